"""Database lifecycle: engine, schema and sessions. No Flask here.

SQLite gets WAL (readers never wait for the writer), foreign keys on and a busy timeout
so gunicorn workers queue for the write lock instead of failing. A session opened with
`write=True` takes SQLite's write lock at BEGIN (BEGIN IMMEDIATE): a request that reads
and then writes cannot lose its snapshot to another worker half way.
"""

from __future__ import annotations

import os
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from repository.models import Base

DEFAULT_DATABASE_URL = "sqlite:///elrepo.db"
DATABASE_URL_ENV = "ELREPO_DATABASE_URL"
_SQLITE_BEGIN = "sqlite_begin"


def database_url(explicit: str | None = None) -> str:
    """`--db` wins, then ELREPO_DATABASE_URL, then ./elrepo.db."""
    return explicit or os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL


def make_engine(url: str, **kwargs: Any) -> Engine:
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine)
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
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def do_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_SQLITE_BEGIN, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def create_schema(engine: Engine) -> None:
    """Create missing tables; a no-op on an existing schema."""
    Base.metadata.create_all(engine)


def open_session(factory: sessionmaker[Session], *, write: bool) -> Session:
    session = factory()
    if write:
        session.connection(execution_options={_SQLITE_BEGIN: "IMMEDIATE"})
    return session


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
