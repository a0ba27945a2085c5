"""Issue 18: the service's database settings: PostgreSQL connections per worker
(`--db-pool-size`, ELREPO_DB_POOL_SIZE) checked before use, and the statement deadline
(`--statement-timeout`, ELREPO_STATEMENT_TIMEOUT), both refused when not positive."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, QueuePool, event

from repository.cli import main
from repository.settings import (
    DB_POOL_SIZE_ENV,
    DEFAULT_POOL_SIZE,
    POOL_OVERFLOW,
    STATEMENT_TIMEOUT_ENV,
    Settings,
)
from repository.store.db import make_engine

POSTGRESQL = "postgresql+psycopg://nobody@127.0.0.1:1/nothing"  # never connected to


def test_postgresql_pools_are_bounded_and_checked_before_use() -> None:
    pool = make_engine(POSTGRESQL).pool
    assert isinstance(pool, QueuePool)
    assert (pool.size(), pool._max_overflow) == (DEFAULT_POOL_SIZE, POOL_OVERFLOW)
    assert pool._pre_ping
    # Four servers of two workers each stay under PostgreSQL's default max_connections.
    assert 4 * 2 * (DEFAULT_POOL_SIZE + POOL_OVERFLOW) <= 100 - 10
    smaller = make_engine(POSTGRESQL, pool_size=3).pool
    assert isinstance(smaller, QueuePool) and smaller.size() == 3


class Captured(Exception):
    pass


def connect_options(engine: Engine) -> str:
    """The `options` the engine would connect with (caught before connecting)."""
    seen: dict[str, Any] = {}

    def capture(_dialect: Any, _record: Any, _args: Any, params: dict[str, Any]) -> None:
        seen.update(params)
        raise Captured
    event.listen(engine, "do_connect", capture)
    with pytest.raises(Captured):
        engine.connect()
    return str(seen.get("options", ""))


def test_the_statement_deadline_reaches_postgresql_as_statement_timeout() -> None:
    assert "-c statement_timeout=1500" in connect_options(
        make_engine(POSTGRESQL, statement_timeout=1.5))
    assert "statement_timeout" not in connect_options(make_engine(POSTGRESQL))  # the CLI's


@pytest.mark.parametrize(("name", "field", "default"), [
    (DB_POOL_SIZE_ENV, "db_pool_size", DEFAULT_POOL_SIZE),
    (STATEMENT_TIMEOUT_ENV, "statement_timeout", 15.0)])
def test_settings_from_the_environment(name: str, field: str, default: float) -> None:
    assert getattr(Settings.from_environment({}), field) == default
    assert getattr(Settings.from_environment({name: "3"}), field) == 3
    for bad in ("0", "-1", "x", "nan"):
        with pytest.raises(ValueError, match=name):
            Settings.from_environment({name: bad})


@pytest.mark.parametrize(("option", "value"), [
    ("--db-pool-size", "0"), ("--db-pool-size", "2.5"), ("--db-pool-size", "x"),
    ("--statement-timeout", "0"), ("--statement-timeout", "nan")])
def test_a_bad_database_setting_is_one_line_exit_2(tmp_path: Path, option: str, value: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "unused.db"
    assert main(["serve", option, value, "--db", f"sqlite:///{database}"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and option in captured.err
    assert not database.exists()


def test_serve_hands_its_settings_to_the_workers(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """In the `Settings` every worker's app is built on, not in the environment."""
    monkeypatch.delenv(DB_POOL_SIZE_ENV, raising=False)
    monkeypatch.delenv(STATEMENT_TIMEOUT_ENV, raising=False)
    served: dict[str, Any] = {}
    monkeypatch.setattr("repository.server.run", lambda **options: served.update(options))
    database = f"sqlite:///{tmp_path / 'w.db'}"
    assert main(["serve", "--no-demo", "--port", "0", "--db-pool-size", "5",
                 "--statement-timeout", "7.5", "--db", database]) == 0
    settings = served["settings"]
    assert (settings.db_pool_size, settings.statement_timeout, settings.database_url) == (5, 7.5, database)
    assert DB_POOL_SIZE_ENV not in os.environ and STATEMENT_TIMEOUT_ENV not in os.environ
