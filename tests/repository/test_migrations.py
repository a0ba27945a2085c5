"""Schema migrations: a database of an older schema, data and all, is brought to the
current one by `elrepo db upgrade` and refused by every other command until then; an
empty database gets the current schema at once. On SQLite, and on PostgreSQL when
ELREPO_TEST_DATABASE_URL is set (each test in its own schema)."""

from __future__ import annotations

import os
import shlex
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, Engine, create_engine, inspect, text

from repository.app import create_app
from repository.cli import main
from repository.store.db import (
    TRIGRAM_INDEX,
    SchemaMismatch,
    alembic_config,
    create_schema,
    make_engine,
    upgrade_schema,
)
from repository.store.models import TEXT_SEARCH_TABLE, Base
from tests.repository.conftest import PG_ENV, TENANT, Prepared
from tests.repository.standin import ORDER

HEAD = "0010"


def engine_of(config: dict[str, Any]) -> Engine:
    return make_engine(config["DATABASE_URL"], **config.get("ENGINE_OPTIONS", {}))


def schema_name(config: dict[str, Any]) -> str | None:
    translate = config.get("ENGINE_OPTIONS", {}).get("execution_options", {}).get(
        "schema_translate_map", {})
    name: str | None = translate.get(None)
    return name


def cli_url(config: dict[str, Any]) -> str:
    """The database of `config` as `--db` names it: a PostgreSQL schema by search_path."""
    url: str = config["DATABASE_URL"]
    schema = schema_name(config)
    if schema is None:
        return url
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


def table(config: dict[str, Any], name: str) -> str:
    schema = schema_name(config)
    return f'"{schema}".{name}' if schema else name


def row_counts(engine: Engine, config: dict[str, Any]) -> dict[str, int]:
    with engine.connect() as connection:
        return {t.name: connection.execute(
            text(f"SELECT count(*) FROM {table(config, t.name)}")).scalar_one()
            for t in Base.metadata.sorted_tables
            # Not in 0001; a downgrade past 0009 drops the change feed (docs/events.md).
            if t.name not in ("content_generations", "idempotency_keys", "change_events",
                              "change_counters", "layout_sketches", "webhook_endpoints", "webhook_deliveries",
                              "leases")}


def make_first_release_database(config: dict[str, Any], *, recorded: str | None) -> None:
    """Turns the loaded database into one of the first schema (the revisions after 0001
    undone, data kept): the revision recorded as `recorded`, or no version table at all,
    as the releases before migrations left it."""
    engine = engine_of(config)
    with engine.begin() as connection:
        use_schema_of(connection, config)
        command.downgrade(alembic_config(connection), "0001")
        if recorded is None:
            connection.execute(text(f"DROP TABLE {table(config, 'alembic_version')}"))
        else:
            connection.execute(text(f"UPDATE {table(config, 'alembic_version')} "
                                    "SET version_num = :recorded"), {"recorded": recorded})
    engine.dispose()


def use_schema_of(connection: Connection, config: dict[str, Any]) -> None:
    """Alembic's ALTER TABLE ignores schema_translate_map: name the test's schema the way
    `upgrade_schema` does."""
    if schema_name(config):
        connection.execute(text(f'SET LOCAL search_path TO "{schema_name(config)}"'))


def etag_of_element(prepared: Prepared) -> str:
    app = create_app(prepared.config)
    try:
        response = app.test_client().get(
            f"{TENANT}/_api/rest/facets/processes/views/detail/elements/{ORDER}",
            headers={"Authorization": f"Bearer {prepared.tokens['viewer']}"})
        assert response.status_code == 200, response.get_json()
        return response.headers["ETag"]
    finally:
        app.extensions["elrepo.engine"].dispose()


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err.strip()


@pytest.mark.parametrize("recorded", [None, "0001"])
def test_a_first_schema_database_with_data_is_upgraded_and_keeps_its_data(
        prepared: Prepared, recorded: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    make_first_release_database(prepared.config, recorded=recorded)
    engine = engine_of(prepared.config)
    before = row_counts(engine, prepared.config)
    assert before["elements"] > 10 and before["shapes"] > 0 and before["tokens"] > 0
    assert main(["db", "upgrade", "--db", cli_url(prepared.config)]) == 0
    assert f"from schema 0001 to {HEAD}" in capsys.readouterr().err
    assert row_counts(engine, prepared.config) == before
    with engine.connect() as connection:
        assert connection.execute(text(
            f"SELECT DISTINCT revision FROM {table(prepared.config, 'elements')}")).scalars().all() == [1]
    engine.dispose()
    assert etag_of_element(prepared) == '"1"'  # the old tokens and data serve as before
    assert main(["db", "upgrade", "--db", cli_url(prepared.config)]) == 0
    assert f"is at schema {HEAD} already" in capsys.readouterr().err


def test_an_out_of_date_database_is_refused_with_the_command_that_upgrades_it(
        prepared: Prepared, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    make_first_release_database(prepared.config, recorded="0001")
    url = cli_url(prepared.config)
    monkeypatch.setattr("repository.server.run", lambda **_: pytest.fail("serve started"))
    for command_line in (["tenant", "create", "new", "one"],
                         ["token", "create", "demo", "default", "--role", "viewer"],
                         ["export", "demo", "default", "-o", "unused"],
                         ["serve", "--port", "0"]):
        assert main([*command_line, "--db", url]) == 2, command_line
        message = one_error_line(capsys)
        assert message.endswith(f"is at schema 0001, this elrepo needs {HEAD}; "
                                f"run: elrepo db upgrade --db {shlex.quote(url)}"), message
    with pytest.raises(SchemaMismatch, match=f"at schema 0001, this elrepo needs {HEAD}"):
        create_app(prepared.config)
    # The hint runs as printed; then the refused command goes through.
    assert main(shlex.split(message.partition("run: elrepo ")[2])) == 0
    assert main(["tenant", "create", "new", "one", "--db", url]) == 0


def test_a_hint_without_db_names_the_same_database_through_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv("ELREPO_DATABASE_URL", url)
    engine = make_engine(url)
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0001")
    engine.dispose()
    assert main(["tenant", "create", "env", "tenant"]) == 2
    assert one_error_line(capsys).endswith("; run: elrepo db upgrade")
    assert main(["db", "upgrade"]) == 0
    assert main(["tenant", "create", "env", "tenant"]) == 0


def test_a_fresh_database_is_created_at_the_current_schema(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    assert main(["tenant", "create", "acme", "main", "--db", url]) == 0
    assert main(["db", "upgrade", "--db", url]) == 0
    assert f"is at schema {HEAD} already" in capsys.readouterr().err
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    assert main(["db", "upgrade", "--db", empty]) == 0
    assert f"Created schema {HEAD}" in capsys.readouterr().err
    assert main(["tenant", "create", "acme", "main", "--db", empty]) == 0


def test_a_database_of_a_newer_elrepo_is_refused_and_left_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'newer.db'}"
    engine = make_engine(url)
    create_schema(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    engine.dispose()
    for command_line in (["tenant", "create", "a", "b"], ["db", "upgrade"]):
        assert main([*command_line, "--db", url]) == 2
        message = one_error_line(capsys)
        assert "at schema 0999, which this elrepo does not know" in message
        assert "run:" not in message


def test_a_database_with_only_some_of_the_tables_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'partial.db'}"
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE tenants (pk INTEGER PRIMARY KEY)"))
    engine.dispose()
    assert main(["db", "upgrade", "--db", url]) == 2
    assert "has some of elrepo's tables but not all (missing: elements" in one_error_line(capsys)


@pytest.fixture(params=["sqlite", "postgresql"])
def two_empty_databases(request: pytest.FixtureRequest,
                        tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    if request.param == "sqlite":
        created, migrated = (make_engine(f"sqlite:///{tmp_path / name}")
                             for name in ("created.db", "migrated.db"))
        yield created, migrated
        created.dispose()
        migrated.dispose()
        return
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f"{PG_ENV} is not set; PostgreSQL runs are skipped")
    schemas = [f"m_{uuid.uuid4().hex[:16]}" for _ in range(2)]
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        for schema in schemas:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    engines = [make_engine(url, execution_options={"schema_translate_map": {None: schema}})
               for schema in schemas]
    try:
        yield engines[0], engines[1]
    finally:
        for engine in engines:
            engine.dispose()
        with admin.connect() as connection:
            for schema in schemas:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def described_schema(engine: Engine) -> dict[str, Any]:
    """Every table's columns, keys and indexes as the database reports them."""
    with engine.connect() as connection:
        inspector = inspect(connection)
        schema = schema_of(connection)
        return {name: {
            "columns": [(c["name"], str(c["type"]), getattr(c["type"], "collation", None),
                         c["nullable"], without_schema(c["default"], schema))
                        for c in inspector.get_columns(name, schema)],
            "primary key": inspector.get_pk_constraint(name, schema)["constrained_columns"],
            "unique": sorted(tuple(u["column_names"])
                             for u in inspector.get_unique_constraints(name, schema)),
            "foreign keys": sorted((tuple(f["constrained_columns"]), f["referred_table"],
                                    tuple(f["referred_columns"]), f["options"].get("ondelete"))
                                   for f in inspector.get_foreign_keys(name, schema)),
            "indexes": sorted((i["name"], tuple(i["column_names"]), i["unique"],
                               str(i.get("dialect_options", {})))
                              for i in inspector.get_indexes(name, schema)),
        } for name in sorted(inspector.get_table_names(schema))}


def without_schema(default: str | None, schema: str | None) -> str | None:
    """A column default as it reads in any schema (PostgreSQL's serial names its own)."""
    return default if default is None or schema is None else default.replace(f"{schema}.", "")


def schema_of(connection: Connection) -> str | None:
    translate = connection.get_execution_options().get("schema_translate_map") or {}
    name: str | None = translate.get(None)
    return name


def test_replaying_every_revision_gives_the_schema_of_the_models(
        two_empty_databases: tuple[Engine, Engine]) -> None:
    created, migrated = two_empty_databases
    create_schema(created)  # create_all of the models, stamped
    assert upgrade_schema(migrated).current is None
    assert described_schema(migrated) == described_schema(created)
    # Ours and alembic_version; on SQLite the text-search table and its 4 shadow tables.
    extra = 1 + 5 * (created.dialect.name == "sqlite")
    assert len(described_schema(created)) == len(Base.metadata.tables) + extra
    assert text_search_objects(migrated) == text_search_objects(created)
    assert len(text_search_objects(created)) == (4 if created.dialect.name == "sqlite" else 1)


def text_search_objects(engine: Engine) -> list[tuple[Any, ...]]:
    """The text-search index as the database defines it: SQLite's FTS5 table and its
    triggers, PostgreSQL's trigram index (its schema left out)."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            return [tuple(row) for row in connection.execute(text(
                "SELECT type, name, sql FROM sqlite_master WHERE name LIKE :name "
                "AND sql LIKE 'CREATE %' ORDER BY name"), {"name": f"{TEXT_SEARCH_TABLE}%"})
                    if "VIRTUAL" in row.sql or row.type == "trigger"]
        schema = schema_of(connection)
        return [(name, without_schema(definition, schema)) for name, definition in connection.execute(
            text("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = :schema "
                 "AND indexname = :name"), {"schema": schema, "name": TRIGRAM_INDEX})]


def test_the_newest_revision_downgrades_and_upgrades_again_without_losing_data(
        prepared: Prepared) -> None:
    engine = engine_of(prepared.config)
    before = row_counts(engine, prepared.config)
    with engine.begin() as connection:
        use_schema_of(connection, prepared.config)
        command.downgrade(alembic_config(connection), "0001")
    assert upgrade_schema(engine).current == "0001"
    assert row_counts(engine, prepared.config) == before
    engine.dispose()
    assert etag_of_element(prepared) == '"1"'
