"""Listing must not load a tenant: the page query walks the listing index and the
filters use the attribute indexes. SQLite's plans are checked with the planner
statistics of a 100,000-element tenant (the plan for the test's few rows is another);
PostgreSQL's planner is left to its statistics (docs/performance-service.md), so there
the check is that the indexes can serve the query at all."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import ColumnElement, Select, func, select, text
from sqlalchemy.orm import Session

from repository.store import PageRequest
from repository.store.db import TRIGRAM_INDEX
from repository.store.filters import compile_filter
from repository.store.models import DIALECTS_WITH_TEXT_SEARCH, AttributeValue, Element
from tests.repository.conftest import Api, sqlite_only

postgresql_only = pytest.mark.parametrize("prepared", ["postgresql"], indirect=True)

# sqlite_stat1 rows of a tenant of 100,000 elements with three attribute values each
# (as benchmarks/repository_listing.py makes): rows, then rows per distinct prefix.
BIG_TENANT_STATISTICS = {
    ("elements", "ix_elements_page"): "100000 100000 100000 1 1",
    ("elements", "ix_elements_type"): "100000 100000 20000",
    ("elements", "ix_elements_current_version"): "100000 1",
    ("elements", "ix_elements_tenant_version"): "100000 100000 1",
    ("elements", "sqlite_autoindex_elements_1"): "100000 100000 1",
    ("element_versions", "ix_versions_element"): "100000 1 1",
    ("element_versions", "ix_versions_version_id"): "100000 1",
    ("attribute_values", "ix_attributes_text"): "300000 100000 2 1",
    ("attribute_values", "ix_attributes_number"): "300000 100000 10000 1",
    ("attribute_values", "sqlite_autoindex_attribute_values_1"): "300000 3 1 1",
}


def plan(api: Api, request: PageRequest, *, big: bool = False) -> str:
    """The page query's plan; `big`: with SQLite statistics of a big tenant."""
    query = (select(Element).where(request_condition(api, request, big=big))
             .order_by(Element.sort_name, Element.id).limit(100))
    return explain(api, query, big=big)


def request_condition(api: Api, request: PageRequest, *, big: bool = False) -> ColumnElement[bool]:
    with api.store() as store:
        store.reads._large_tenant = big  # the form a filter takes in a tenant of that size
        return store.reads._view_condition(request)


def explain(api: Api, query: Select[Any], *, big: bool = False) -> str:
    """SQLite's `EXPLAIN QUERY PLAN` or PostgreSQL's `EXPLAIN` lines of a query."""
    with api.store() as store:
        connection = store.session.connection()
        if connection.dialect.name == "sqlite":
            if big:
                load_big_tenant_statistics(store.session)
            compiled = query.compile(connection, compile_kwargs={"literal_binds": True})
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}").all()
            return "\n".join(str(row[-1]) for row in rows)
        compiled = query.compile(
            connection, compile_kwargs={"literal_binds": True}, render_schema_translate=True,
            schema_translate_map=connection.get_execution_options()["schema_translate_map"])
        # Can the indexes serve it? The test's few rows would otherwise be read whole.
        connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        # Parameters (none) given, so the driver reads the `%%` of the LIKE patterns as `%`.
        return "\n".join(connection.exec_driver_sql(f"EXPLAIN {compiled}", ()).scalars())


def load_big_tenant_statistics(session: Session) -> None:
    session.execute(text("ANALYZE"))  # makes sqlite_stat1
    session.execute(text("DELETE FROM sqlite_stat1"))
    for (table, index), figures in BIG_TENANT_STATISTICS.items():
        session.execute(text("INSERT INTO sqlite_stat1 VALUES (:table, :index, :figures)"),
                        {"table": table, "index": index, "figures": figures})
    session.execute(text("ANALYZE sqlite_schema"))  # reads them


def filtered(expression: str) -> PageRequest:
    return PageRequest("processes", "list", compile_filter(expression), 1, 100)


@sqlite_only
def test_a_page_is_a_range_scan_of_the_listing_index(api: Api) -> None:
    steps = plan(api, PageRequest("processes", "list", None, 1, 100))
    assert "ix_elements_page" in steps and "TEMP B-TREE" not in steps


@sqlite_only
def test_a_deep_page_of_a_big_tenant_is_a_range_scan_of_the_listing_index(api: Api) -> None:
    steps = plan(api, PageRequest("processes", "list", None, 500, 100), big=True)
    assert "ix_elements_page" in steps and "TEMP B-TREE" not in steps


@sqlite_only
def test_attribute_filters_read_the_attribute_indexes_alone(api: Api) -> None:
    # A tenant past filters.SMALL_TENANT elements: a small one reads its own values first.
    steps = plan(api, filtered("name eq 'Order to cash'"), big=True)
    assert "COVERING INDEX ix_attributes_text" in steps and "ix_elements_" in steps
    numeric = plan(api, filtered("priority ge 3"), big=True)
    assert "COVERING INDEX ix_attributes_number" in numeric


@sqlite_only
def test_an_exact_name_in_a_big_tenant_finds_the_versions_first(api: Api) -> None:
    steps = plan(api, filtered("name -eq 'Process 042000'"), big=True)
    assert "COVERING INDEX ix_attributes_text (name=? AND value_text=?)" in steps
    assert "ix_elements_tenant_version (tenant_pk=? AND current_version_pk=?)" in steps


@sqlite_only
def test_text_search_in_a_big_tenant_asks_the_trigram_table_first(api: Api) -> None:
    steps = plan(api, filtered("contains(name, '4242')"), big=True)
    assert "SCAN attribute_text_search VIRTUAL TABLE" in steps
    assert "ix_elements_tenant_version (tenant_pk=? AND current_version_pk=?)" in steps
    # The candidates are read by pk, not every `name` value checked against them (which
    # a `(...) = 1` around the condition once hid from the planner: 75 ms at 100,000).
    assert "SEARCH attribute_values USING INTEGER PRIMARY KEY (rowid=?)" in steps
    assert "ix_attributes_text" not in steps
    assert "attribute_text_search" not in plan(api, filtered("contains(name, '42')"), big=True)


@sqlite_only
def test_text_search_without_the_trigram_table_scans(api: Api) -> None:
    engine = api.app.extensions["elrepo.engine"]
    DIALECTS_WITH_TEXT_SEARCH.discard(engine.dialect)
    engine.clear_compiled_cache()
    assert "attribute_text_search" not in plan(api, filtered("contains(name, '4242')"))


@postgresql_only
def test_postgresql_indexes_serve_the_page_and_every_filter_form(api: Api) -> None:
    page = plan(api, PageRequest("processes", "list", None, 500, 100))
    assert "ix_elements_page" in page and "Sort" not in page
    # The filter's text condition (filters._condition), alone: the trigram index serves it.
    for pattern in (func.lower(AttributeValue.value_text).contains("order", autoescape=True),
                    func.lower(AttributeValue.value_text).startswith("order", autoescape=True)):
        assert TRIGRAM_INDEX in explain(api, select(AttributeValue.version_pk).where(pattern))
    exact = plan(api, filtered("name -eq 'Order to cash'"))
    assert "ix_attributes_text_hash" in exact
    assert "ix_attributes_number" in plan(api, filtered("priority ge 3"))


@sqlite_only
def test_tree_and_diagram_views_probe_the_child_and_shape_indexes(api: Api) -> None:
    tree = plan(api, PageRequest("processes", "tree", None, 1, 100))
    assert "ix_elements_page" in tree and "TEMP B-TREE" not in tree
    assert "ix_children_child" in tree and "ix_shapes_element" in tree
    diagram = plan(api, PageRequest("processes", "diagram", None, 1, 100))
    assert "ix_shapes_version" in diagram and "ix_elements_page" in diagram
