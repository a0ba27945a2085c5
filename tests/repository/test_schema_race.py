"""Issue 18: two `elrepo db upgrade`s, or two `elrepo serve`s, started at once on an
empty database: one exited with a raw IntegrityError (both created the schema, or both
loaded the demo). Schema creation and the first start's demo now take one lock."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from repository.errors import ServiceUnavailable
from repository.store.db import create_schema, make_engine, open_session, session_factory
from tests.repository.conftest import in_schema, postgres_schema
from tests.repository.test_cli import START_SECONDS, served_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    with postgres_schema("race") as (url, schema):
        yield in_schema(url, schema)


def elrepo(*arguments: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "repository.cli", *arguments],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.slow  # starts elrepo in processes of its own
def test_two_upgrades_at_once_on_an_empty_database_both_succeed(
        empty_database: str, tmp_path: Path) -> None:
    upgrades = [elrepo("db", "upgrade", "--db", empty_database, cwd=tmp_path) for _ in range(2)]
    outcomes = [(upgrade.wait(timeout=60), upgrade.communicate()[1]) for upgrade in upgrades]
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    said = sorted(error for _, error in outcomes)  # "Created ..." before "The database ..."
    assert said[0].startswith("Created schema") and "already" in said[1], said


@pytest.mark.slow  # starts elrepo serve in processes of its own
def test_two_servers_started_at_once_on_an_empty_database_both_serve(
        empty_database: str, tmp_path: Path) -> None:
    logs = [(tmp_path / f"serve{i}.log").open("w") for i in range(2)]
    servers = [subprocess.Popen(
        [sys.executable, "-m", "repository.cli", "serve", "--port", "0", "--workers", "1",
         "--db", empty_database], stdout=log, stderr=log, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)}) for log in logs]
    try:
        ports = [served_port(tmp_path / f"serve{i}.log", server) for i, server in enumerate(servers)]
        for server, port in zip(servers, ports):
            assert answers(server, port), (tmp_path / "serve0.log").read_text() + (
                tmp_path / "serve1.log").read_text()
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=30)
        for log in logs:
            log.close()
    engine = create_engine(empty_database)
    with engine.connect() as connection:  # one demo tenant, loaded by one of them
        assert connection.scalar(text("SELECT count(*) FROM tenants")) == 1
    engine.dispose()


def answers(server: subprocess.Popen[bytes], port: int) -> bool:
    """Whether the server answers HTTP (any status) before it exits or START_SECONDS pass."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=5):
                return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            time.sleep(0.1)
    return False


def test_the_schema_lock_on_sqlite_is_waited_for_past_the_busy_timeout(tmp_path: Path) -> None:
    """The second of two servers starting at once waited for the first one's demo load
    only the busy timeout (5 s), then failed "database is busy" on a loaded machine:
    the schema lock is now waited for as long as its holder takes, as on PostgreSQL,
    while any other write still gives up after the busy timeout (a tenth of a second here)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'locked.db'}", connect_args={"timeout": 0.1})
    create_schema(engine)
    sessions = session_factory(engine)
    holder = open_session(sessions, write=True, schema_lock=True)  # the first start
    waited: list[object] = []

    def second_start() -> None:
        try:
            session = open_session(sessions, write=True, schema_lock=True)
        except ServiceUnavailable as refused:
            waited.append(refused)
            return
        waited.append("locked")
        session.close()

    waiter = threading.Thread(target=second_start)
    waiter.start()
    try:
        for _ in range(3):  # each ends at the busy timeout: the waiter waits past them
            with pytest.raises(ServiceUnavailable, match="busy"):
                open_session(sessions, write=True)
        assert waiter.is_alive() and not waited, waited
    finally:
        holder.close()  # the first start's work is done
        waiter.join()
        engine.dispose()
    assert waited == ["locked"]
    with engine.connect() as connection:  # the engine's own busy timeout, unchanged
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 100
    engine.dispose()
