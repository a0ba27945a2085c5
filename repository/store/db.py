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

The schema is versioned by Alembic revisions (`repository/store/migrations/`). An empty
database gets the current schema at once; one at an older revision (or made before
migrations, recognised by its tables) is refused by `create_schema` and brought up to
date only on request, by `upgrade_schema` (`elrepo db upgrade`): a service never
changes its database's schema by itself (docs/service.md, "Schema migrations").

Every statement of the service runs under a deadline (`make_engine`'s
`statement_timeout`, ELREPO_STATEMENT_TIMEOUT, default 15 s): PostgreSQL's
`statement_timeout`, on SQLite a progress handler that interrupts a statement past it. A
statement past it, a lost connection and an unreachable database raise
`ServiceUnavailable` too (503 with Retry-After; the request's transaction is rolled
back). Command-line engines have no deadline (an import or an upgrade takes what it
takes), and `lift_statement_deadline` lifts it for one transaction (maintenance, schema).

PostgreSQL connections are checked before use (`pool_pre_ping`: a connection the server
dropped while idle is replaced, not handed to a request) and pooled `pool_size` +
POOL_OVERFLOW per process (ELREPO_DB_POOL_SIZE, default 8: four `elrepo serve` of two
workers each hold at most 4 x 2 x (8 + 2) = 80 of PostgreSQL's default 100 connections,
leaving 20 for the command line and administration).

Text search has an index per dialect that is neither a plain table nor a plain index
(`create_text_search`): SQLite's FTS5 trigram table, PostgreSQL's pg_trgm GIN index.
Where the database cannot have one (a SQLite library without the trigram tokenizer,
a PostgreSQL without pg_trgm or without the right to install it), text search scans:
slower, same results; maintenance creates the index once it can.
"""

from __future__ import annotations

import functools
import logging
import math
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, Table, create_engine, event, inspect, make_url, text
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from repository.errors import ServiceUnavailable
from repository.settings import DEFAULT_POOL_SIZE, POOL_OVERFLOW
from repository.store.models import (
    DIALECTS_WITH_TEXT_SEARCH,
    TEXT_SEARCH_TABLE,
    Base,
    sqlite_has_trigram_search,
)

# Longer than the longest write the service makes (a 5,000-shape content create, well
# under 2 s), so writers queue behind it; short enough that a stuck lock answers quickly.
BUSY_TIMEOUT_SECONDS = 5
RETRY_AFTER_SECONDS = 2
_SQLITE_BEGIN = "sqlite_begin"
# A BEGIN that takes the schema lock waits for it as long as its holder takes (the first
# start loading the demo takes seconds, more on a loaded machine), as PostgreSQL's
# advisory lock does; SQLite's wait is its busy timeout, this many ms (about 24 days).
_SCHEMA_LOCK = "elrepo_schema_lock"
_SQLITE_WAIT_AS_LONG_AS_IT_TAKES_MS = 2**31 - 1
_SQLITE_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
# lock_not_available (lock_timeout), serialization_failure, deadlock_detected
_POSTGRESQL_BUSY_STATES = frozenset({"55P03", "40001", "40P01"})
_POSTGRESQL_CANCELED = "57014"  # query_canceled: past statement_timeout
# admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now; and class
# 08, connection exceptions
_POSTGRESQL_LOST_STATES = frozenset({"57P01", "57P02", "57P03"})
# SQLite looks at the statement's clock every this many virtual machine steps (well under
# a millisecond of work).
_SQLITE_PROGRESS_STEPS = 10_000
_STATEMENT_CLOCK = "elrepo_statement_clock"
_NO_DEADLINE = "elrepo_no_statement_deadline"
# The Alembic revisions, by path: found the same way from a checkout and a wheel.
_FIRST_SCHEMA_TABLES = ("tenants", "elements", "element_versions", "attribute_values",
                        "related_links", "children", "shapes", "tokens")
MIGRATIONS_DIRECTORY = Path(__file__).parent / "migrations"
# The revisions a database made by create_all before migrations can be at: the first
# schema, and it with `elements.revision`, which create_schema then added at start-up.
_FIRST_SCHEMA = "0001"
_WITH_ELEMENT_REVISION = "0002"
TRIGRAM_INDEX = "ix_attributes_text_trigram"
_log = logging.getLogger(__name__)


def make_engine(url: str, *, statement_timeout: float | None = None, **kwargs: Any) -> Engine:
    """An engine on `url` with the service's lock waits; `statement_timeout`: the
    seconds any one statement may run (None: no deadline, the command line's case).
    Other keyword arguments go to sqlalchemy.create_engine (PostgreSQL's `pool_size`
    defaults to DEFAULT_POOL_SIZE)."""
    parsed = make_url(url)
    connect_args = dict(kwargs.pop("connect_args", {}))
    if parsed.get_backend_name() == "sqlite":
        connect_args.setdefault("timeout", BUSY_TIMEOUT_SECONDS)
    elif parsed.get_backend_name() == "postgresql":
        if "options" not in connect_args:
            # Before the URL's own options (`?options=-csearch_path=...`): they win, and stay.
            given = parsed.query.get("options", ())
            deadline = ([] if statement_timeout is None else
                        [f"-c statement_timeout={math.ceil(statement_timeout * 1000)}"])
            connect_args["options"] = " ".join([
                f"-c lock_timeout={BUSY_TIMEOUT_SECONDS * 1000}", *deadline,
                *([given] if isinstance(given, str) else given)])
        kwargs.setdefault("pool_pre_ping", True)
        kwargs.setdefault("pool_size", DEFAULT_POOL_SIZE)
        kwargs.setdefault("max_overflow", POOL_OVERFLOW)
    engine = create_engine(url, connect_args=connect_args, **kwargs)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine, statement_timeout)
    event.listen(engine, "handle_error", _refuse_when_unavailable)
    return engine


def lift_statement_deadline(connection: Connection) -> None:
    """No statement deadline for the rest of this transaction: maintenance and schema
    changes take as long as the data needs."""
    connection.execution_options(**{_NO_DEADLINE: True})
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SET LOCAL statement_timeout = 0")


class _StatementClock:
    """SQLite's statement deadline, one per connection: started by each statement, asked
    by the progress handler (a true answer interrupts the statement), stopped at the end
    of the transaction."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.deadline = math.inf

    def start(self, lifted: bool) -> None:
        self.deadline = math.inf if lifted else time.monotonic() + self.timeout

    def stop(self) -> None:
        self.deadline = math.inf

    def past_deadline(self) -> bool:
        return time.monotonic() > self.deadline


def _configure_sqlite(engine: Engine, statement_timeout: float | None) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        # Take transaction control from pysqlite so BEGIN is ours (see do_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()
        if statement_timeout is not None:
            clock = record.info[_STATEMENT_CLOCK] = _StatementClock(statement_timeout)
            dbapi_connection.set_progress_handler(clock.past_deadline, _SQLITE_PROGRESS_STEPS)

    @event.listens_for(engine, "begin")
    def do_begin(connection: Any) -> None:
        options = connection.get_execution_options()
        begin = f"BEGIN {options.get(_SQLITE_BEGIN, 'DEFERRED')}"
        if not options.get(_SCHEMA_LOCK):
            connection.exec_driver_sql(begin)
            return
        # The busy timeout bounds only the wait for the lock: back to the engine's own
        # once BEGIN holds it.
        usual = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
        connection.exec_driver_sql(f"PRAGMA busy_timeout = {_SQLITE_WAIT_AS_LONG_AS_IT_TAKES_MS}")
        try:
            connection.exec_driver_sql(begin)
        finally:
            connection.exec_driver_sql(f"PRAGMA busy_timeout = {int(usual)}")

    if statement_timeout is None:
        return

    @event.listens_for(engine, "before_cursor_execute")
    def start_clock(connection: Connection, *_: Any) -> None:
        clock = connection.info.get(_STATEMENT_CLOCK)
        if clock is not None:
            clock.start(lifted=connection.get_execution_options().get(_NO_DEADLINE, False))

    def stop_clock(connection: Connection) -> None:
        # COMMIT and ROLLBACK run on the last statement's clock otherwise.
        clock = connection.info.get(_STATEMENT_CLOCK)
        if clock is not None:
            clock.stop()
    event.listen(engine, "commit", stop_clock)
    event.listen(engine, "rollback", stop_clock)


def _refuse_when_unavailable(context: ExceptionContext) -> None:
    """A statement (BEGIN and COMMIT included) that failed for want of a lock, that ran
    past the statement deadline, or lost its database, becomes a 503 the client may
    retry; every other database error goes on as it is."""
    error = context.original_exception
    if context.is_pre_ping:  # the pool replaces the connection: nothing to answer yet
        return
    if _is_busy(error):
        raise _busy() from error
    if _is_past_deadline(error):
        raise ServiceUnavailable("A database statement ran past the service's deadline; "
                                 "nothing was written, try again later",
                                 retry_after=RETRY_AFTER_SECONDS) from error
    connect_failed = context.connection is None and isinstance(
        error, context.dialect.loaded_dbapi.OperationalError)
    if context.is_disconnect or connect_failed or _is_lost(error):
        raise ServiceUnavailable("The database cannot be reached; nothing was written, "
                                 "try again", retry_after=RETRY_AFTER_SECONDS) from error


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


def _is_past_deadline(error: BaseException) -> bool:
    if isinstance(error, sqlite3.OperationalError):
        return error.sqlite_errorcode == sqlite3.SQLITE_INTERRUPT
    return getattr(error, "sqlstate", None) == _POSTGRESQL_CANCELED


def _is_lost(error: BaseException) -> bool:
    state = getattr(error, "sqlstate", None) or ""
    return state in _POSTGRESQL_LOST_STATES or state.startswith("08")


def create_schema(engine: Engine) -> None:
    """An empty database gets the whole schema at the newest revision (the models'
    `create_all`, stamped: much faster than replaying every revision); a database at
    the newest revision is left alone; any other raises `SchemaMismatch`."""
    with _schema_transaction(engine) as connection:
        state = _schema_state(connection)
        if not (state.current == state.head and state.recorded):
            if state.current is not None:
                raise SchemaMismatch(_mismatch_message(engine, state),
                                     upgradable=state.upgradable)
            Base.metadata.create_all(connection)
            create_text_search(connection)
            _migration_context(connection).stamp(_scripts(), state.head)
        if _has_sqlite_text_search(connection):
            DIALECTS_WITH_TEXT_SEARCH.add(engine.dialect)


@contextmanager
def _schema_transaction(engine: Engine) -> Iterator[Connection]:
    """A transaction that reads and changes the schema, one at a time per database (per
    PostgreSQL schema): two servers or `elrepo db upgrade`s started at once on an empty
    database would otherwise both create it, and one fail. The second waits, then finds
    the schema made. SQLite: the write lock from BEGIN on; PostgreSQL: an advisory lock
    until the end of the transaction, waited for as long as the first one takes."""
    with engine.connect() as plain:
        connection = plain.execution_options(**{_SQLITE_BEGIN: "IMMEDIATE", _SCHEMA_LOCK: True})
        with connection.begin():
            lift_statement_deadline(connection)
            _take_schema_lock(connection)
            yield connection


def _take_schema_lock(connection: Connection) -> None:
    """PostgreSQL's advisory lock of the schema (SQLite's transaction began IMMEDIATE)."""
    if connection.dialect.name != "postgresql":
        return
    schema = _translated_schema(connection, None) or connection.scalar(
        text("SELECT current_schema()"))
    connection.exec_driver_sql("SET LOCAL lock_timeout = 0")  # as long as the first takes
    connection.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                       {"key": f"elrepo schema {schema}"})


def create_text_search(connection: Connection) -> bool:
    """The dialect's text-search index over `attribute_values.value_text`, filled from the
    rows there, unless it exists; whether it exists afterwards. A database that cannot
    have one is told in the log (its text search scans)."""
    if connection.dialect.name == "sqlite":
        if _has_sqlite_text_search(connection):
            return True
        if not sqlite_has_trigram_search():
            _log.warning("This SQLite library lacks FTS5's trigram tokenizer (SQLite 3.34 or "
                         "later): text search in $filter scans every attribute value")
            return False
        for statement in _SQLITE_TEXT_SEARCH:
            connection.exec_driver_sql(statement)
        return True
    if connection.dialect.name == "postgresql":
        trigram_schema = _trigram_extension_schema(connection)
        if trigram_schema is None:
            _log.warning("PostgreSQL's pg_trgm extension is not installed and cannot be (it "
                         "ships with postgresql-contrib; CREATE EXTENSION needs the CREATE "
                         "right on the database): text search in $filter scans every "
                         "attribute value until maintenance finds it installed")
            return False
        table = qualified_name(connection, Base.metadata.tables["attribute_values"])
        connection.exec_driver_sql(
            f"CREATE INDEX IF NOT EXISTS {TRIGRAM_INDEX} ON {table} "
            f"USING gin (lower(value_text) {trigram_schema}.gin_trgm_ops)")
        return True
    return False


# External content: the FTS table holds only the trigram index of `value_text` under
# the attribute row's pk; the triggers keep it in step with every write, cascaded
# deletes included. `rebuild` indexes the rows already there (an upgraded database).
_SQLITE_TEXT_SEARCH = (
    f"CREATE VIRTUAL TABLE {TEXT_SEARCH_TABLE} USING fts5(value_text, "
    "content='attribute_values', content_rowid='pk', tokenize='trigram')",
    f"CREATE TRIGGER {TEXT_SEARCH_TABLE}_insert AFTER INSERT ON attribute_values BEGIN "
    f"INSERT INTO {TEXT_SEARCH_TABLE} (rowid, value_text) VALUES (new.pk, new.value_text); END",
    f"CREATE TRIGGER {TEXT_SEARCH_TABLE}_delete AFTER DELETE ON attribute_values BEGIN "
    f"INSERT INTO {TEXT_SEARCH_TABLE} ({TEXT_SEARCH_TABLE}, rowid, value_text) "
    "VALUES ('delete', old.pk, old.value_text); END",
    f"CREATE TRIGGER {TEXT_SEARCH_TABLE}_update AFTER UPDATE ON attribute_values BEGIN "
    f"INSERT INTO {TEXT_SEARCH_TABLE} ({TEXT_SEARCH_TABLE}, rowid, value_text) "
    "VALUES ('delete', old.pk, old.value_text); "
    f"INSERT INTO {TEXT_SEARCH_TABLE} (rowid, value_text) VALUES (new.pk, new.value_text); END",
    f"INSERT INTO {TEXT_SEARCH_TABLE} ({TEXT_SEARCH_TABLE}) VALUES ('rebuild')",
)


def drop_text_search(connection: Connection) -> None:
    """Undoes `create_text_search` (pg_trgm stays installed: other schemas may use it)."""
    if connection.dialect.name == "sqlite":
        for trigger in ("insert", "delete", "update"):
            connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {TEXT_SEARCH_TABLE}_{trigger}")
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {TEXT_SEARCH_TABLE}")
    elif connection.dialect.name == "postgresql":
        schema = _translated_schema(connection, None)
        index = TRIGRAM_INDEX if schema is None else (
            f"{connection.dialect.identifier_preparer.quote_schema(schema)}.{TRIGRAM_INDEX}")
        connection.exec_driver_sql(f"DROP INDEX IF EXISTS {index}")


def _has_sqlite_text_search(connection: Connection) -> bool:
    return connection.dialect.name == "sqlite" and connection.scalar(text(
        "SELECT count(*) FROM sqlite_master WHERE name = :name"),
        {"name": TEXT_SEARCH_TABLE}) == 1


def _trigram_extension_schema(connection: Connection) -> str | None:
    """The (quoted) schema of the pg_trgm extension, installed here if the server offers
    it and the user may; None if neither."""
    installed = text("SELECT extnamespace::regnamespace::text FROM pg_extension "
                     "WHERE extname = 'pg_trgm'")
    schema: str | None = connection.scalar(installed)
    if schema is not None:
        return schema
    if not connection.scalar(text(
            "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm'")):
        return None
    try:
        with connection.begin_nested():
            connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DBAPIError as error:
        _log.warning("CREATE EXTENSION pg_trgm failed: %s", error.orig)
        return None
    schema = connection.scalar(installed)
    return schema


def upgrade_schema(engine: Engine) -> SchemaState:
    """Brings the database to the newest revision by running the revisions it lacks; an
    older database without a recorded revision (made before migrations) is recognised by
    its tables and stamped first. Returns the state found (the newest revision is then
    reached). A database this release cannot upgrade raises `SchemaMismatch`."""
    with _schema_transaction(engine) as connection:
        state = _schema_state(connection)
        if not state.upgradable:
            raise SchemaMismatch(_mismatch_message(engine, state), upgradable=False)
        if state.current is not None and not state.recorded:
            _migration_context(connection).stamp(_scripts(), state.current)
        schema = _translated_schema(connection, None)
        if schema is not None and connection.dialect.name == "postgresql":
            # Alembic's ALTER TABLE ignores schema_translate_map: name the schema the way
            # a `search_path` URL option does.
            connection.exec_driver_sql("SET LOCAL search_path TO "
                                       + connection.dialect.identifier_preparer.quote_schema(schema))
        command.upgrade(alembic_config(connection), "head")
    return state


class SchemaMismatch(Exception):
    """The database's schema is not the one this release needs. `upgradable`: whether
    `upgrade_schema` (elrepo db upgrade) can bring it there."""

    def __init__(self, message: str, *, upgradable: bool) -> None:
        super().__init__(message)
        self.upgradable = upgradable


@dataclass(frozen=True)
class SchemaState:
    """What a database's schema is. `current`: the recorded revision, else the one the
    tables match (`recorded` false), None for a database without any of our tables.
    `known`: whether the revisions include `current`; `missing`: our tables absent from
    a database that has some of them (not made by elrepo, or damaged)."""

    current: str | None
    head: str
    recorded: bool
    known: bool
    missing: tuple[str, ...]

    @property
    def upgradable(self) -> bool:
        return self.known and not self.missing


def _schema_state(connection: Connection) -> SchemaState:
    scripts = _scripts()
    head = scripts.get_current_head()
    assert head is not None  # the revisions are ours: one line, never empty
    recorded = _migration_context(connection).get_current_revision()
    if recorded is not None:
        known = recorded in {script.revision for script in scripts.walk_revisions()}
        return SchemaState(recorded, head, True, known, ())
    inspector = inspect(connection)
    schema = _translated_schema(connection, None)
    present = set(inspector.get_table_names(schema))
    # A database made before migrations has the first schema's tables (later revisions
    # add theirs): those tell it apart from a database elrepo did not make.
    missing = tuple(name for name in _FIRST_SCHEMA_TABLES if name not in present)
    if len(missing) == len(_FIRST_SCHEMA_TABLES):
        return SchemaState(None, head, False, True, ())
    if missing:
        return SchemaState(None, head, False, False, missing)
    element_columns = {column["name"] for column in inspector.get_columns("elements", schema)}
    inferred = _WITH_ELEMENT_REVISION if "revision" in element_columns else _FIRST_SCHEMA
    return SchemaState(inferred, head, False, True, ())


def _mismatch_message(engine: Engine, state: SchemaState) -> str:
    where = f"the database at {engine.url}"  # str() of a URL masks its password
    if state.missing:
        return (f"{where} has some of elrepo's tables but not all (missing: "
                f"{', '.join(state.missing)}); it was not made by elrepo")
    if not state.known:
        return (f"{where} is at schema {state.current}, which this elrepo does not know "
                f"(a newer elrepo made it); this elrepo needs {state.head}")
    if not state.recorded:
        return (f"{where} has no recorded schema version (made before migrations; its "
                f"tables are schema {state.current}), this elrepo needs {state.head}")
    return f"{where} is at schema {state.current}, this elrepo needs {state.head}"


@functools.cache
def _scripts() -> ScriptDirectory:
    """Read once per process: the revisions are files of the installed package, and each
    app (each test's) checks its database against them."""
    return ScriptDirectory.from_config(alembic_config())


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, made here rather than read from an alembic.ini (which an
    installed package lacks); with a connection, for `alembic.command` functions that
    run revisions (env.py runs them on it, in its transaction)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIRECTORY))
    # rNNNN_what.py: a module name mypy accepts (a leading digit is not one).
    config.set_main_option("file_template", "r%%(rev)s_%%(slug)s")
    if connection is not None:
        config.attributes["connection"] = connection
        config.attributes["version_table_schema"] = _translated_schema(connection, None)
    return config


def _migration_context(connection: Connection) -> MigrationContext:
    # Alembic looks its version table up without schema_translate_map: name the schema.
    return MigrationContext.configure(
        connection, opts={"version_table_schema": _translated_schema(connection, None)})


def qualified_name(connection: Connection, table: Table) -> str:
    """The table's quoted name as the connection sees it (schema_translate_map applied),
    for the few statements written as text."""
    preparer = connection.dialect.identifier_preparer
    schema = _translated_schema(connection, table.schema)
    name = preparer.quote(table.name)
    return name if schema is None else f"{preparer.quote_schema(schema)}.{name}"


def _translated_schema(connection: Connection, schema: str | None) -> str | None:
    """The schema `schema` names on this connection (schema_translate_map applied)."""
    translate = connection.get_execution_options().get("schema_translate_map") or {}
    translated: str | None = translate.get(schema, schema)
    return translated


def open_session(factory: sessionmaker[Session], *, write: bool,
                 schema_lock: bool = False) -> Session:
    """A request's session; `session.info["writes"]` says whether it may write (a read
    ends without a commit: there is nothing to commit). `schema_lock` (a writing
    session): it holds, until its transaction ends, the lock schema creation takes,
    waited for as long as its holder takes: the first start's work on an empty database
    (`elrepo serve` loading the demo) is done once when two servers start at once."""
    if schema_lock and not write:
        raise ValueError("the schema lock is for a session opened with write=True")
    session = factory()
    session.info["writes"] = write
    if write:
        try:
            connection = session.connection(execution_options={
                _SQLITE_BEGIN: "IMMEDIATE", _SCHEMA_LOCK: schema_lock})
            if schema_lock:
                _take_schema_lock(connection)
        except BaseException:
            session.close()
            raise
    return session


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
