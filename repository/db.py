"""Database lifecycle: engine, schema and sessions. No Flask here.

SQLite gets WAL (readers never wait for the writer) and foreign keys on. A session
opened with `write=True` takes SQLite's write lock at BEGIN (BEGIN IMMEDIATE): a request
that reads and then writes cannot lose its snapshot to another worker half way.

Waiting for a lock is bounded (docs/contract.md, "Limits and robustness"): SQLite waits
at most BUSY_TIMEOUT_SECONDS for the write lock (pysqlite's `timeout`), PostgreSQL at
most as long for a row or table lock (`lock_timeout`). A write that still cannot go on
(the lock, a deadlock, a serialization failure) raises `ServiceUnavailable`: 503 with
Retry-After, never 500. Both waits can be set per engine through the driver's own
connect arguments (`timeout`, `options`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event, inspect, make_url
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.schema import CreateColumn

from repository.errors import ServiceUnavailable
from repository.models import Base

DEFAULT_DATABASE_URL = "sqlite:///elrepo.db"
DATABASE_URL_ENV = "ELREPO_DATABASE_URL"
# Longer than the longest write the service makes (a 5,000-shape content create, well
# under 2 s), so writers queue behind it; short enough that a stuck lock answers quickly.
BUSY_TIMEOUT_SECONDS = 5
RETRY_AFTER_SECONDS = 2
_SQLITE_BEGIN = "sqlite_begin"
_SQLITE_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
# lock_not_available (lock_timeout), serialization_failure, deadlock_detected
_POSTGRESQL_BUSY_STATES = frozenset({"55P03", "40001", "40P01"})


def database_url(explicit: str | None = None) -> str:
    """`--db` wins, then ELREPO_DATABASE_URL, then ./elrepo.db."""
    return explicit or os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL


def make_engine(url: str, **kwargs: Any) -> Engine:
    parsed = make_url(url)
    connect_args = dict(kwargs.pop("connect_args", {}))
    if parsed.get_backend_name() == "sqlite":
        connect_args.setdefault("timeout", BUSY_TIMEOUT_SECONDS)
    elif parsed.get_backend_name() == "postgresql" and "options" not in connect_args:
        # Before the URL's own options (`?options=-csearch_path=...`): they win, and stay.
        given = parsed.query.get("options", ())
        connect_args["options"] = " ".join([f"-c lock_timeout={BUSY_TIMEOUT_SECONDS * 1000}",
                                            *([given] if isinstance(given, str) else given)])
    engine = create_engine(url, connect_args=connect_args, **kwargs)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine)
    event.listen(engine, "handle_error", _refuse_when_busy)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from pysqlite so BEGIN is ours (see do_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def do_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_SQLITE_BEGIN, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def _refuse_when_busy(context: ExceptionContext) -> None:
    """A statement (BEGIN and COMMIT included) that failed for want of a lock becomes a
    503 the client may retry; every other database error goes on as it is."""
    if _is_busy(context.original_exception):
        raise _busy() from context.original_exception


@contextmanager
def refusing_when_busy() -> Iterator[None]:
    """`_refuse_when_busy` for driver calls SQLAlchemy does not see (PostgreSQL's COPY)."""
    try:
        yield
    except Exception as error:
        if _is_busy(error):
            raise _busy() from error
        raise


def _busy() -> ServiceUnavailable:
    return ServiceUnavailable(
        "The database is busy with other writes; nothing was written, try again",
        retry_after=RETRY_AFTER_SECONDS)


def _is_busy(error: BaseException) -> bool:
    if isinstance(error, sqlite3.OperationalError):
        return (error.sqlite_errorcode & 0xFF) in _SQLITE_BUSY_CODES
    return getattr(error, "sqlstate", None) in _POSTGRESQL_BUSY_STATES


def create_schema(engine: Engine) -> None:
    """Create missing tables, then add the columns a database made by an older release
    lacks (each new column is nullable or has a server default); a no-op when current."""
    Base.metadata.create_all(engine)
    with engine.begin() as connection:
        _add_missing_columns(connection)


def _add_missing_columns(connection: Connection) -> None:
    inspector = inspect(connection)
    for table in Base.metadata.sorted_tables:
        present = {column["name"] for column in inspector.get_columns(
            table.name, _schema_of(connection, table))}
        for column in table.columns:
            if column.name not in present:
                definition = CreateColumn(column).compile(dialect=connection.dialect)
                connection.exec_driver_sql(f"ALTER TABLE {qualified_name(connection, table)} "
                                           f"ADD COLUMN {definition}")


def qualified_name(connection: Connection, table: Table) -> str:
    """The table's quoted name as the connection sees it (schema_translate_map applied),
    for the few statements written as text."""
    preparer = connection.dialect.identifier_preparer
    schema = _schema_of(connection, table)
    name = preparer.quote(table.name)
    return name if schema is None else f"{preparer.quote_schema(schema)}.{name}"


def _schema_of(connection: Connection, table: Table) -> str | None:
    translate = connection.get_execution_options().get("schema_translate_map") or {}
    schema: str | None = translate.get(table.schema, table.schema)
    return schema


def open_session(factory: sessionmaker[Session], *, write: bool) -> Session:
    session = factory()
    if write:
        try:
            session.connection(execution_options={_SQLITE_BEGIN: "IMMEDIATE"})
        except BaseException:
            session.close()
            raise
    return session


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
