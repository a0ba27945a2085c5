"""Issue 18: every statement of the service runs under a deadline (PostgreSQL's
`statement_timeout`, a progress handler on SQLite); past it the request answers 503 with
Retry-After and writes nothing. Maintenance and the command line have none."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, text

from repository.errors import ServiceUnavailable
from repository.store.db import lift_statement_deadline, make_engine
from tests.repository.conftest import FACETS, Api, Prepared, assert_error, sqlite_only
from tests.repository.standin import DRAFT, ORDER
from tests.repository.test_render_cache import make_api

DETAIL = FACETS + "/processes/views/detail/elements"
MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"
TINY_DEADLINE = 0.05
# SQLite: about a second of work for its virtual machine; PostgreSQL: a sleep.
SQLITE_SLOW = ("SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
               "SELECT x + 1 FROM c WHERE x < 1000000) SELECT x FROM c)")
POSTGRESQL_SLOW_SECONDS = 1


@pytest.fixture
def hurried_api(prepared: Prepared) -> Iterator[Api]:
    api = make_api(prepared, STATEMENT_TIMEOUT=TINY_DEADLINE)
    yield api
    api.app.extensions["elrepo.engine"].dispose()


def slow_down(api: Api, table: str, element_condition: str) -> None:
    """A trigger that makes every insert or update of `table` rows matching the condition
    take far longer than TINY_DEADLINE."""
    with api.app.extensions["elrepo.engine"].begin() as connection:
        # set up under no deadline: on a loaded machine creating the trigger alone can take
        # longer than TINY_DEADLINE (CI: PostgreSQL cancelled the CREATE TRIGGER)
        lift_statement_deadline(connection)
        if connection.dialect.name == "sqlite":
            for when in ("INSERT", "UPDATE"):
                connection.exec_driver_sql(
                    f"CREATE TRIGGER slow_{table}_{when.lower()} AFTER {when} ON {table} "
                    f"WHEN {element_condition} BEGIN {SQLITE_SLOW}; END")
            return
        schema = schema_of(connection)
        connection.exec_driver_sql(
            f'CREATE FUNCTION "{schema}".slow() RETURNS trigger LANGUAGE plpgsql AS '
            f"$$ BEGIN PERFORM pg_sleep({POSTGRESQL_SLOW_SECONDS}); RETURN NEW; END $$")
        connection.exec_driver_sql(
            f'CREATE TRIGGER slow AFTER INSERT OR UPDATE ON "{schema}".{table} FOR EACH ROW '
            f'WHEN ({element_condition.replace("new.", "NEW.")}) EXECUTE FUNCTION "{schema}".slow()')


def schema_of(connection: Connection) -> str:
    translate = connection.get_execution_options().get("schema_translate_map") or {}
    return str(translate.get(None) or connection.scalar(text("SELECT current_schema()")))


def test_a_write_past_the_statement_deadline_is_503_and_writes_nothing(
        hurried_api: Api) -> None:
    slow_down(hurried_api, "attribute_values", "new.name = 'authorNote'")
    response = hurried_api.post(DETAIL, {"count": 1, "elements": [
        {"id": DRAFT, "attributes": {"authorNote": {"1033": "x"}, "name": {"1033": "Renamed"}}}]},
        role="editor")
    body = assert_error(response, 503)
    assert int(response.headers["Retry-After"]) > 0
    assert "deadline" in body["message"]
    element = hurried_api.element(DRAFT)
    assert "authorNote" not in element["attributes"]
    assert element["attributes"]["name"]["1033"] != "Renamed"


def test_maintenance_has_no_statement_deadline(hurried_api: Api,
                                               service_token: str) -> None:
    slow_down(hurried_api, "elements", f"new.id = '{ORDER}'")
    response = hurried_api.client.get(MAINTAIN, query_string={"api-version": "4.0"},
                                      headers={"service-auth-token": service_token})
    assert response.status_code == 200, response.get_json()


@sqlite_only
def test_only_engines_given_a_deadline_interrupt_a_statement(prepared: Prepared) -> None:
    """The command line's engines (import, export, db upgrade) have none."""
    url = prepared.config["DATABASE_URL"]
    for statement_timeout, interrupted in ((None, False), (TINY_DEADLINE, True)):
        engine = make_engine(url, statement_timeout=statement_timeout)
        try:
            with engine.connect() as connection:
                if interrupted:
                    with pytest.raises(ServiceUnavailable):
                        connection.exec_driver_sql(SQLITE_SLOW)
                    # and the connection goes on: the next statement has its own clock
                    assert connection.exec_driver_sql("SELECT 1").scalar() == 1
                else:
                    assert connection.exec_driver_sql(SQLITE_SLOW).scalar() == 1000000
        finally:
            engine.dispose()
