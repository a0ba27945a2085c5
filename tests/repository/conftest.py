"""A fresh app and database per test, on SQLite and (when ELREPO_TEST_DATABASE_URL is
set) on PostgreSQL. Both backends load the stand-in tenants once per session and give
each test a copy: SQLite a copy of the template file, PostgreSQL the template's rows in
the test process's work schema, emptied before (`WorkSchema`)."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Connection, create_engine, event, text
from werkzeug.test import TestResponse

from repository.app import create_app
from repository.demo import create_role_tokens, load_demo
from repository.render_pool import RenderPool
from repository.store import Store, find_tenant, now_timestamp
from repository.store.models import Base, Tenant, WebhookEndpoint
from repository.webhooks.signing import new_secret
from tests.repository.standin import STANDIN_WEBHOOK, standin_tenant

PG_ENV = "ELREPO_TEST_DATABASE_URL"
TENANT = "/demo/default"
OTHER_TENANT = "/other/default"
FACETS = TENANT + "/_api/rest/facets"


@dataclass(frozen=True)
class Prepared:
    """A loaded database: app config plus the bearer tokens of both tenants."""

    config: dict[str, Any]
    tokens: dict[str, str]
    other_tokens: dict[str, str]


def prepare(config: dict[str, Any]) -> Prepared:
    """Schema, the stand-in tenant `demo/default`, a small `other/default`, tokens."""
    app = create_app(config)
    with app.extensions["elrepo.sessions"]() as session:
        tenant = load_demo(session, elements=standin_tenant())
        tokens = create_role_tokens(session, tenant)
        other = load_demo(session, "other", "default", elements=standin_tenant()[:2])
        other_tokens = create_role_tokens(session, other)
        session.add(WebhookEndpoint(tenant_pk=tenant.pk, id=STANDIN_WEBHOOK,
                                    url="https://hooks.example.com/standin", secret=new_secret(),
                                    created_at=now_timestamp(), enabled=True, cursor=0))
        session.commit()
    app.extensions["elrepo.engine"].dispose()
    return Prepared(config, tokens, other_tokens)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Prepared]:
    """Loaded once; each test gets a copy of the file (much faster than reloading)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    return path, prepare({"DATABASE_URL": f"sqlite:///{path}"})


@pytest.fixture(scope="session")
def render_pool() -> Iterator[RenderPool]:
    """One pool for the apps of every test, as one server worker has one: its render
    processes load the engine once per test process, not once per test."""
    pool = RenderPool()
    yield pool
    pool.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def prepared(request: pytest.FixtureRequest, tmp_path: Path,
             render_pool: RenderPool) -> Iterator[Prepared]:
    """A fresh loaded database of the parametrized backend, private to the test; its
    apps share the session's render pool."""
    if request.param == "sqlite":
        template, loaded = request.getfixturevalue("sqlite_template")
        copy = tmp_path / "test.db"
        shutil.copyfile(template, copy)
        yield Prepared({"DATABASE_URL": f"sqlite:///{copy}", "RENDER_POOL": render_pool},
                       loaded.tokens, loaded.other_tokens)
        return
    _, loaded = request.getfixturevalue("postgres_template")
    work: WorkSchema = request.getfixturevalue("postgres_work_schema")
    config = work.refill()
    yield Prepared({**config, "RENDER_POOL": render_pool}, loaded.tokens, loaded.other_tokens)
    work.check_layout()


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[tuple[str, Prepared]]:
    """A schema loaded once, whose rows each PostgreSQL test copies (as SQLite copies its
    template file): copying is a few statements, loading the stand-in tenant hundreds."""
    with postgres_schema("template") as (url, schema):
        yield schema, prepare(schema_config(url, schema))


class WorkSchema:
    """The PostgreSQL schema the tests of one test process run in, one after another:
    migrated once, emptied and filled with the template's rows before each test. Making
    and migrating a schema per test (some sixty DDL statements and a trigram index) was
    most of a PostgreSQL test's cost. A test that changes the schema itself (a migration
    test's downgrade, a trigger or function a test adds) is seen after it, by the
    relations, columns, indexes, constraints, functions, triggers and revision no longer
    being the migrated ones, and the schema is made anew."""

    def __init__(self, url: str, template: str) -> None:
        self.url = url
        self.template = template
        self.schema: str | None = None
        self.layout: list[tuple[str, ...]] = []
        self._engine = create_engine(url)

    def refill(self) -> dict[str, Any]:
        """The app config of the work schema, holding exactly the template's rows."""
        with self._engine.connect() as connection:
            if self.schema is None:
                self.schema = f"w_{uuid.uuid4().hex[:16]}"
                with connection.begin():
                    connection.execute(text(f'CREATE SCHEMA "{self.schema}"'))
                create_app(schema_config(self.url, self.schema)).extensions["elrepo.engine"].dispose()
                self.layout = self._layout(connection)
            else:
                tables = ", ".join(f'"{self.schema}"."{table.name}"'
                                   for table in Base.metadata.sorted_tables)
                with connection.begin():
                    connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
            copy_rows(connection, self.template, self.schema)
        return schema_config(self.url, self.schema)

    def check_layout(self) -> None:
        """After a test: a schema it changed is dropped, to be made anew for the next."""
        if self.schema is None:
            return
        with self._engine.connect() as connection:
            changed = self._layout(connection) != self.layout
        if changed:
            self.drop()

    def drop(self) -> None:
        if self.schema is not None:
            with self._engine.begin() as connection:
                connection.execute(text(f'DROP SCHEMA "{self.schema}" CASCADE'))
            self.schema = None

    def close(self) -> None:
        self.drop()
        self._engine.dispose()

    def _layout(self, connection: Connection) -> list[tuple[str, ...]]:
        with connection.begin():
            parameters = {"schema": self.schema}
            described = connection.execute(text(
                "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull "
                "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = :schema AND a.attnum > 0 AND NOT a.attisdropped "
                "UNION ALL SELECT tablename, indexname, indexdef, NULL FROM pg_indexes "
                "WHERE schemaname = :schema "
                "UNION ALL SELECT c.conname, pg_get_constraintdef(c.oid), NULL, NULL "
                "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
                "WHERE n.nspname = :schema "
                # every relation (sequences, views), function and trigger a test added
                "UNION ALL SELECT c.relname, c.relkind::text, NULL, NULL FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = :schema "
                "UNION ALL SELECT p.proname, pg_get_function_identity_arguments(p.oid), NULL, "
                "NULL FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = :schema "
                "UNION ALL SELECT t.tgname, c.relname, NULL, NULL FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = :schema AND NOT t.tgisinternal"), parameters).all()
            revision = connection.execute(text(
                f'SELECT version_num FROM "{self.schema}".alembic_version')).all() if any(
                    row[0] == "alembic_version" for row in described) else []
        return sorted(tuple(map(str, row)) for row in [*described, *revision])


@pytest.fixture(scope="session")
def postgres_work_schema(postgres_template: tuple[str, Prepared]) -> Iterator[WorkSchema]:
    url = os.environ[PG_ENV]  # postgres_template skipped the test without it
    work = WorkSchema(url, postgres_template[0])
    yield work
    work.close()


def schema_config(url: str, schema: str) -> dict[str, Any]:
    """App config whose tables live in `schema` of the server at `url`."""
    return {"DATABASE_URL": url, "ENGINE_OPTIONS": {
        "execution_options": {"schema_translate_map": {None: schema}}}}


def copy_rows(connection: Connection, source: str, target: str) -> None:
    """Every row of schema `source` into the same tables of the migrated schema `target`,
    parents first, and each serial column's sequence moved past the copied ids."""
    with connection.begin():
        for table in Base.metadata.sorted_tables:
            connection.execute(text(f'INSERT INTO "{target}"."{table.name}" '
                                    f'SELECT * FROM "{source}"."{table.name}"'))
        serials = connection.execute(text(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = :schema AND column_default LIKE 'nextval(%'"),
            {"schema": target}).all()
        for table_name, column in serials:
            qualified = f'"{target}"."{table_name}"'
            connection.execute(text(
                f"SELECT setval(pg_get_serial_sequence(:table, :column), "
                f'COALESCE(MAX("{column}"), 0) + 1, false) FROM {qualified}'),
                {"table": qualified, "column": column})


@contextmanager
def postgres_schema(prefix: str) -> Iterator[tuple[str, str]]:
    """(server URL, name) of an empty PostgreSQL schema of the test's own, dropped after
    it; the test skips without ELREPO_TEST_DATABASE_URL."""
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f"{PG_ENV} is not set; PostgreSQL runs are skipped")
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield url, schema
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def in_schema(url: str, schema: str) -> str:
    """`url` with `schema` as the search path: what a command-line `--db` can carry."""
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


@contextmanager
def recorded_statements(app: Flask) -> Iterator[list[tuple[str, Any]]]:
    """(SQL, parameters) of every statement the app's engine runs meanwhile: how the
    tests hold a request to a fixed number of statements."""
    seen: list[tuple[str, Any]] = []
    engine = app.extensions["elrepo.engine"]

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


# For sweeps whose outcome cannot depend on the backend (auth checks before any query of
# tenant data): run them on SQLite only and keep the suite fast.
sqlite_only = pytest.mark.parametrize("prepared", ["sqlite"], indirect=True)


@dataclass
class Api:
    """The test client with tokens of both tenants, one per role."""

    app: Flask
    client: FlaskClient
    tokens: dict[str, str]
    other_tokens: dict[str, str]

    def headers(self, role: str | None, token: str | None) -> dict[str, str]:
        if token is not None:
            return {"Authorization": f"Bearer {token}"}
        return {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}

    # `**params` is the query string; its values are text, as on the wire.
    def get(self, path: str, role: str | None = "administrator", token: str | None = None,
            **params: str) -> TestResponse:
        return self.client.get(path, query_string=params, headers=self.headers(role, token))

    def post(self, path: str, body: Any = None, role: str | None = "administrator",
             token: str | None = None, **params: str) -> TestResponse:
        """POST `body` as JSON (no body at all when it is None)."""
        raw = json.dumps(body).encode() if body is not None else b""
        return self.post_raw(path, raw, role, token, **params)

    def send(self, method: str, path: str, body: Any = None, role: str | None = "administrator",
             token: str | None = None, **params: str) -> TestResponse:
        """GET, DELETE (no body) or POST `body` as JSON: a sweep's call of any method."""
        if method == "POST":
            return self.post(path, body, role, token, **params)
        return self.client.open(path, method=method, query_string=params,
                                headers=self.headers(role, token))

    def post_raw(self, path: str, raw: bytes, role: str | None = "administrator",
                 token: str | None = None, **params: str) -> TestResponse:
        """POST these exact bytes as the JSON body (for malformed or oversized input)."""
        return self.client.post(path, data=raw, query_string=params,
                                content_type="application/json",
                                headers=self.headers(role, token))

    def element(self, element_id: str, facet: str = "processes", **params: str) -> dict[str, Any]:
        response = self.get(f"{FACETS}/{facet}/views/detail/elements/{element_id}", **params)
        assert response.status_code == 200, response.get_json()
        element: dict[str, Any] = response.get_json()["elements"][0]
        return element

    @contextmanager
    def store(self) -> Iterator[Store]:
        with self.app.extensions["elrepo.sessions"]() as session:
            tenant = find_tenant(session, "demo", "default")
            assert isinstance(tenant, Tenant)
            yield Store(session, tenant)


@pytest.fixture
def api(prepared: Prepared) -> Iterator[Api]:
    """An app on the prepared database, which knows the service token."""
    app = create_app({"SERVICE_TOKEN": SERVICE_TOKEN, **prepared.config})
    yield Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)
    app.extensions["elrepo.engine"].dispose()


def assert_error(response: TestResponse, status: int, *, render: bool = False) -> dict[str, Any]:
    """The contract's error envelope with that status; returns the body."""
    assert response.status_code == status, (response.status_code, response.data[:500])
    body = response.get_json()
    assert isinstance(body, dict)
    assert isinstance(body["message"], str) and body["message"]
    assert body["type"] in ("critical", "error", "warning", "success", "unauthorized")
    assert isinstance(body["data"], list) and all("error" in d for d in body["data"])
    assert ("output" in body) is (not render)
    assert "Traceback" not in response.get_data(as_text=True)
    return body


SERVICE_TOKEN = "service-secret"


@pytest.fixture
def service_token(monkeypatch: pytest.MonkeyPatch) -> str:
    """The maintenance endpoint's service token: every app of `api` and `make_api` knows
    it; this sets it in the environment too, for the servers a test starts."""
    monkeypatch.setenv("ELREPO_SERVICE_AUTH_TOKEN", SERVICE_TOKEN)
    return SERVICE_TOKEN


REDIS_ENV = "ELREPO_TEST_REDIS_URL"


@pytest.fixture
def redis_url() -> str:
    """ELREPO_TEST_REDIS_URL; the test skips without it."""
    url = os.environ.get(REDIS_ENV)
    if not url:
        pytest.skip(f"{REDIS_ENV} is not set; Redis runs are skipped")
    return url


@pytest.fixture
def namespace() -> str:
    """A cache key namespace of the test's own."""
    return f"test-{uuid.uuid4().hex[:12]}"
