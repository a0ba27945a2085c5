"""Listing must not load a tenant: the page query walks the listing index and the
filters use the attribute indexes (SQLite's plan; PostgreSQL's planner is left to its
statistics, see docs/performance-service.md)."""

from __future__ import annotations

from sqlalchemy import select, text

from repository.store import PageRequest
from repository.store.filters import compile_filter
from repository.store.models import Element
from tests.repository.conftest import Api, sqlite_only


def plan(api: Api, request: PageRequest) -> str:
    with api.store() as store:
        query = (select(Element).where(store._view_condition(request))
                 .order_by(Element.sort_name, Element.id).limit(100))
        compiled = query.compile(store.session.get_bind(),
                                 compile_kwargs={"literal_binds": True})
        rows = store.session.execute(text(f"EXPLAIN QUERY PLAN {compiled}")).all()
    return "\n".join(str(row[-1]) for row in rows)


@sqlite_only
def test_a_page_is_a_range_scan_of_the_listing_index(api: Api) -> None:
    steps = plan(api, PageRequest("processes", "list", None, 1, 100))
    assert "ix_elements_page" in steps and "TEMP B-TREE" not in steps


@sqlite_only
def test_attribute_filters_use_the_attribute_indexes(api: Api) -> None:
    steps = plan(api, PageRequest("processes", "list",
                                  compile_filter("name eq 'Order to cash'"), 1, 100))
    assert "ix_attributes_text" in steps and "ix_elements_page" in steps
    numeric = plan(api, PageRequest("processes", "list", compile_filter("priority ge 3"), 1, 100))
    assert "ix_attributes_number" in numeric


@sqlite_only
def test_tree_and_diagram_views_probe_the_child_and_shape_indexes(api: Api) -> None:
    tree = plan(api, PageRequest("processes", "tree", None, 1, 100))
    assert "ix_elements_page" in tree and "TEMP B-TREE" not in tree
    assert "ix_children_child" in tree and "ix_shapes_element" in tree
    diagram = plan(api, PageRequest("processes", "diagram", None, 1, 100))
    assert "ix_shapes_version" in diagram and "ix_elements_page" in diagram
