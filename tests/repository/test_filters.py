"""`$filter`: the grammar (both operator forms, any case) and its SQL semantics."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import StatementError

from repository.errors import InvalidInput
from repository.store import PageRequest
from repository.store.filters import (
    FILTER_TENANT,
    MAX_FILTER_COMPARISONS,
    compile_filter,
    for_tenant,
)
from repository.store.models import DIALECTS_WITH_TEXT_SEARCH, TEXT_SEARCH_TABLE, Element
from tests.repository.conftest import FACETS, Api, assert_error, sqlite_only
from tests.repository.standin import CREDIT, DRAFT, HIRE, ORDER

LIST = FACETS + "/processes/views/list/elements"
postgresql_only = pytest.mark.parametrize("prepared", ["postgresql"], indirect=True)


def matching(api: Api, expression: str) -> set[str]:
    response = api.get(LIST, **{"$filter": expression, "$pageSize": "1000"})
    assert response.status_code == 200, response.get_json()
    return {e["id"] for e in response.get_json()["elements"]}


MAIN = {ORDER, HIRE, DRAFT}


@pytest.mark.parametrize(("expression", "expected"), [
    ("type eq 'mainProcess'", MAIN),
    ("type -eq 'mainProcess'", MAIN),
    ("TYPE EQ 'mainProcess'", MAIN),
    ("name -eq 'Order to cash'", {ORDER}),
    ("name eq 'Auftragsabwicklung'", {ORDER}),
    ("attributes/name/1031 eq 'Auftragsabwicklung'", {ORDER}),
    ("attributes/name/1033 eq 'Auftragsabwicklung'", set()),
    ("type eq 'mainProcess' and contains(name, 'order')", {ORDER}),
    ("type eq 'mainProcess' AND StartsWith(name, 'ORDER')", {ORDER}),
    ("type eq 'mainProcess' and ENDSWITH(name, 'retire')", {HIRE}),
    ("type eq 'mainProcess' and not contains(name, 'order')", {HIRE, DRAFT}),
    ("type eq 'mainProcess' and NOT (name eq 'Order to cash' or name eq 'Hire to retire')",
     {DRAFT}),
    ("type eq 'mainProcess' and (priority gt 5 Or priority -le 3)", {ORDER, HIRE}),
    ("priority ge 3 and priority lt 7", {ORDER}),
    ("priority eq 3.0", {ORDER}),
    ("type in ('subProcess', 'mainProcess') and isnull(priority)", {DRAFT, CREDIT}),
    ("type eq 'mainProcess' and priority ne null", {ORDER, HIRE}),
    ("type eq 'mainProcess' and priority eq null", {DRAFT}),
    ("state eq 'released'", {ORDER}),
    ("state -ne 'released' and type eq 'mainProcess'", {HIRE, DRAFT}),
    ("id eq 'mp-order'", {ORDER}),
    ("facetName eq 'processes' and id in ('mp-order', 'mp-hire')", {ORDER, HIRE}),
    ("isReleased eq true and type eq 'mainProcess'", {ORDER}),
    ("processMaturity eq 'defined'", {ORDER}),
    ("contains(name, '%')", set()),
    ("contains(name, '_')", set()),
    ("name eq 'it''s'", set()),
    ("name in ('Order to cash', 3, true, null) or priority in (7, 'x')", {ORDER, HIRE}),
    ("priority in (null) or id in (3, null)", set()),
])
def test_filter_semantics(api: Api, expression: str, expected: set[str]) -> None:
    assert matching(api, expression) == expected


@pytest.mark.parametrize(("expression", "names"), [
    ("name -like 'x'", "-like"),
    ("name eq", "ends too early"),
    ("(name eq 'x'", "ends too early"),
    ("name eq 'x' xor type eq 'y'", "'xor'"),
    ("foo(name, 'x')", "position 4"),
    ("name eq 'unterminated", "position 9"),
    ("a/b eq 'x'", "a/b"),
    ("contains(name)", "contains"),
    ("name gt null", "gt"),
    ("", "ends too early"),
    ("name == 'x'", "'=='"),
])
def test_invalid_filters_name_the_operator_or_position(api: Api, expression: str,
                                                       names: str) -> None:
    body = assert_error(api.get(LIST, **{"$filter": expression}), 400)
    assert names in " ".join(d["error"] for d in body["data"]) + body["message"]


def test_filter_compiles_to_sql_not_python() -> None:
    sql = str(compile_filter("type eq 'task' and contains(name, 'order')"))
    assert " IN (SELECT attribute_values.version_pk" in sql and "lower" in sql


@pytest.mark.parametrize("expression", ["name eq 'x' )", "not", "in ('a')", "eq 'x'"])
def test_grammar_rejects_malformed_expressions(expression: str) -> None:
    with pytest.raises(InvalidInput):
        compile_filter(expression)


def test_filter_with_paging_pages_the_filtered_result(api: Api) -> None:
    response = api.get(LIST, **{"$filter": "type eq 'mainProcess'", "$pageSize": "2",
                                "$page": "2"})
    assert [e["id"] for e in response.get_json()["elements"]] == [ORDER]


def test_filter_applies_to_reporting(api: Api) -> None:
    response = api.get(FACETS + "/processes/reporting", **{"$filter": "type eq 'mainProcess'"})
    assert {e["id"] for e in response.get_json()["values"]} == MAIN


def test_a_filter_over_the_comparison_limit_is_400(api: Api) -> None:
    """Issue 7: 200 attribute comparisons joined by `and` kept PostgreSQL planning for 43 s,
    800 joined by `or` overflowed SQLite's expression depth (500)."""
    at_limit = " and ".join(["priority gt 1"] * MAX_FILTER_COMPARISONS)
    assert matching(api, at_limit) == {ORDER, HIRE}
    body = assert_error(api.get(LIST, **{"$filter": at_limit + " and priority gt 1"}), 400)
    assert str(MAX_FILTER_COMPARISONS) in body["message"]


def test_a_long_in_list_is_one_comparison(api: Api) -> None:
    """Issue 7: one condition per value overflowed SQLite's expression depth (500)."""
    numbers = ", ".join(str(i) for i in range(8, 1300))
    assert matching(api, f"priority in ({numbers}, 3)") == {ORDER}
    ids = ", ".join(f"'e{i}'" for i in range(880))
    response = api.get(f"{LIST[:-len('list/elements')]}detail/elements/{HIRE}",
                       **{"$filter": f"id in ({ids}, 'mp-hire')"})
    assert response.status_code == 200, response.get_json()


# ---- text search: the same results through the trigram index, or without it ------------

GESPRAECH = {"name": {"1031": "Bewerbungsgespräch", "1033": "Job interview"}}
PERCENT = {"name": {"1033": "100% sure_thing"}}
QUOTED = {"name": {"1033": "It's \"quoted\" AND more*"}}


@pytest.fixture
def searchable(api: Api) -> dict[str, str]:
    """Three new processes whose names hold non-ASCII letters, LIKE's and FTS5's special
    characters; their ids by key."""
    elements = [{"type": "mainProcess", "attributes": attributes}
                for attributes in (GESPRAECH, PERCENT, QUOTED)]
    response = api.post(FACETS + "/processes/views/detail/elements/",
                        {"count": len(elements), "elements": elements}, role="editor")
    assert response.status_code == 200, response.get_json()
    ids = [e["id"] for e in response.get_json()["elements"]]
    return dict(zip(("gespraech", "percent", "quoted"), ids, strict=True))


@pytest.mark.parametrize(("expression", "expected"), [
    ("contains(name, 'gespräch')", {"gespraech"}),
    ("contains(name, 'GESPRÄCH')", {"gespraech"}),
    ("contains(attributes/name/1033, 'gespräch')", set()),
    ("endswith(name, 'ÄCH')", {"gespraech"}),
    ("startswith(name, 'bewerbungs')", {"gespraech"}),
    ("startswith(name, 'gespräch')", set()),
    ("contains(name, 'ä')", {"gespraech", CREDIT}),  # Bonitätsprüfung: one character
    ("contains(name, 'gs')", {"gespraech", ORDER}),  # Auftragsabwicklung: two characters
    ("contains(name, '%')", {"percent"}),
    ("contains(name, '0% s')", {"percent"}),
    ("contains(name, '_t')", {"percent"}),
    ("contains(name, 'e_th')", {"percent"}),
    ("contains(name, 'e%th')", set()),
    ("contains(name, 'ex_')", set()),
    ("contains(name, 'it''s \"quo')", {"quoted"}),
    ("contains(name, '\"')", {"quoted"}),
    ("contains(name, 'and more*')", {"quoted"}),
    ("contains(name, 'more*)')", set()),
    ("contains(name, 'NEAR')", set()),
    ("contains(name, 'interview') and not contains(name, 'gespräch')", set()),
    ("contains(name, 'interview') or contains(name, 'sure')", {"gespraech", "percent"}),
])
def test_text_search_semantics(api: Api, searchable: dict[str, str], expression: str,
                               expected: set[str]) -> None:
    """Case-insensitive substring of any culture's value, `%`, `_` and quotes literal,
    needles shorter than a trigram included, on both backends."""
    assert matching(api, expression) == {searchable.get(key, key) for key in expected}


def test_text_search_follows_updates(api: Api, searchable: dict[str, str]) -> None:
    response = api.post(FACETS + "/processes/views/detail/elements/", {"count": 1, "elements": [
        {"id": searchable["gespraech"], "attributes": {"name": {"1031": "Vorstellungsrunde"}}}]},
        role="editor")
    assert response.status_code == 200, response.get_json()
    assert matching(api, "contains(name, 'gespräch')") == set()
    assert matching(api, "contains(name, 'stellungsr')") == {searchable["gespraech"]}


@sqlite_only
def test_sqlite_text_search_table_stays_in_step_with_the_attribute_rows(
        api: Api, searchable: dict[str, str]) -> None:
    """FTS5's own check against the attribute rows, after inserts, updates and a
    cascaded delete (the triggers fire for each)."""
    test_text_search_follows_updates(api, searchable)
    with api.store() as store:
        session = store.session
        session.execute(text("DELETE FROM element_versions WHERE pk = (SELECT "
                             "current_version_pk FROM elements WHERE id = :id)"),
                        {"id": searchable["percent"]})
        session.execute(text(f"INSERT INTO {TEXT_SEARCH_TABLE} ({TEXT_SEARCH_TABLE}, rank) "
                             "VALUES ('integrity-check', 1)"))
        assert session.scalar(text(f"SELECT count(*) FROM {TEXT_SEARCH_TABLE} "
                                   f"WHERE {TEXT_SEARCH_TABLE} MATCH '\"sure_th\"'")) == 0
        assert session.scalar(text(f"SELECT count(*) FROM {TEXT_SEARCH_TABLE} "
                                   f"WHERE {TEXT_SEARCH_TABLE} MATCH '\"stellungsr\"'")) == 1


@sqlite_only
def test_text_search_without_the_trigram_table_scans_with_the_same_results(
        api: Api, searchable: dict[str, str]) -> None:
    engine = api.app.extensions["elrepo.engine"]
    DIALECTS_WITH_TEXT_SEARCH.discard(engine.dialect)
    engine.clear_compiled_cache()
    assert matching(api, "contains(name, 'gespräch')") == {searchable["gespraech"]}
    assert matching(api, "contains(name, 'e_th')") == {searchable["percent"]}


# ---- issue 18: one tenant's filter reads that tenant's rows; any text is a condition or a 400

def add_descriptions(api: Api, collection: str, count: int, description: str) -> None:
    """`count` elements of tenant `collection`/default with that description, written
    as rows (the API would take minutes for the counts that show the cost)."""
    with api.app.extensions["elrepo.sessions"]() as session, session.begin():
        tenant_pk = session.scalar(text(
            "SELECT pk FROM tenants WHERE collection_id = :c"), {"c": collection})
        first = session.scalar(text("SELECT coalesce(max(pk), 0) + 1 FROM elements"))
        version = session.scalar(text("SELECT coalesce(max(pk), 0) + 1 FROM element_versions"))
        rows = range(count)
        session.execute(text(
            "INSERT INTO elements (pk, tenant_pk, id, facet, type, versioned, sort_name, "
            "current_version_pk, revision) VALUES (:pk, :tenant, :id, 'processes', 'process', "
            "false, :id, :version, 1)"),
            [{"pk": first + i, "tenant": tenant_pk, "id": f"bulk{i:06d}", "version": version + i}
             for i in rows])
        session.execute(text(
            "INSERT INTO element_versions (pk, element_pk, version_id, seq) "
            "VALUES (:pk, :element, :id, 1)"),
            [{"pk": version + i, "element": first + i, "id": f"bulkv{i}"} for i in rows])
        session.execute(text(
            "INSERT INTO attribute_values (version_pk, name, culture, value_json, value_text) "
            "VALUES (:version, 'description', 1033, :json, :text)"),
            [{"version": version + i, "json": json.dumps(description), "text": description}
             for i in rows])


def sqlite_steps(api: Api, expression: str) -> int:
    """The SQLite virtual machine's steps (in hundreds) for the first listing page of
    `expression` in the demo tenant: a cost that does not depend on the machine."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0
    with api.store() as store:
        raw = store.session.connection().connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        raw.set_progress_handler(count, 100)
        try:
            store.reads.page(PageRequest("processes", "list", compile_filter(expression), 1, 100))
        finally:
            raw.set_progress_handler(None, 0)
    return steps


@sqlite_only
@pytest.mark.parametrize("expression", [
    "contains(description, 'zq')", "contains(description, 'other text')",
    "description eq 'other text'", "isnull(description)"])
def test_another_tenants_rows_do_not_slow_a_filter(api: Api, expression: str) -> None:
    """Issue 18: attribute sub-queries read every tenant's rows, so another tenant's 1.5 M
    descriptions made `contains(description, 'zq')` 130 times slower."""
    alone = sqlite_steps(api, expression)
    add_descriptions(api, "other", 20_000, "other text")
    assert sqlite_steps(api, expression) <= alone + 5


@postgresql_only
def test_postgresql_filter_sub_queries_start_from_the_tenant(api: Api) -> None:
    with api.store() as store:
        condition = store.reads._view_condition(
            PageRequest("processes", "list", compile_filter("contains(description, 'zq')"), 1, 100))
        connection = store.session.connection()
        compiled = select(Element.pk).where(condition).compile(
            connection, compile_kwargs={"literal_binds": True}, render_schema_translate=True,
            schema_translate_map=connection.get_execution_options()["schema_translate_map"])
        connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        plan = "\n".join(connection.exec_driver_sql(f"EXPLAIN {compiled}", ()).scalars())
    assert "filter_owner" in plan and "tenant_pk =" in plan, plan


def test_a_filter_without_its_tenant_is_never_run(api: Api) -> None:
    """The sub-queries name their tenant by a parameter `for_tenant` fills in: used
    without it, the statement fails rather than read every tenant's rows."""
    with api.store() as store, pytest.raises(StatementError, match=FILTER_TENANT):
        store.session.execute(select(Element.pk).where(compile_filter("priority ge 1")))


@pytest.mark.parametrize("expression", [
    "\u00a0", "\u3000", "\u2003", "name eq 'x'\u00a0", "name eq 'x' \u3000", "\u2028name eq 'x'",
    "name\u00a0eq 'x'"])
def test_unicode_whitespace_is_a_400_naming_the_character(api: Api, expression: str) -> None:
    """Issue 18: an IndexError (500). Only ASCII whitespace separates words."""
    body = assert_error(api.get(LIST, **{"$filter": expression}), 400)
    assert "Invalid $filter" in body["message"]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60) | st.lists(st.sampled_from([
    "name", "priority", "attributes/name/1033", "eq", "-ne", "gt", "in", "(", ")", ",", "'x'",
    "'a''b'", "1.5", "-2", "true", "null", "and", "or", "not", "contains(", "isnull(", " ",
    "\u00a0", "\x1c", "/", "1033"]), max_size=14).map("".join))
def test_the_compiler_answers_any_text_with_a_condition_or_invalid_input(expression: str) -> None:
    try:
        condition = compile_filter(expression)
    except InvalidInput:
        return
    limited = for_tenant(condition, 1)
    for dialect in (sqlite.dialect(), postgresql.dialect()):  # type: ignore[no-untyped-call]
        select(Element.pk).where(limited).compile(dialect=dialect)
