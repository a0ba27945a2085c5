"""`$pageSelectionKey` read by seeking the listing order (`Reads.page_holding`): the page
it answers is the page `$page` numbers for the same view, filter and size, whatever the
ties in the sort name and wherever the element lies; a key outside the listing, or one
that is not an element id at all, gets the error envelope; and the statements walk the
listing index by its key, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete

from repository.store import PageRequest
from repository.store.filters import compile_filter
from repository.store.models import Element
from tests.repository.conftest import FACETS, Api, assert_error, recorded_statements, sqlite_only
from tests.repository.standin import SALES
from tests.repository.test_query_plans import load_big_tenant_statistics, postgresql_only

VIEWS = FACETS + "/processes/views"
LIST = VIEWS + "/list/elements"
DETAIL = VIEWS + "/detail/elements"
TIED = ("Tied name", "TIED NAME", "tied name", "Tied Name")


def ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.get_json()
    return [e["id"] for e in response.get_json()["elements"]]


def create(api: Api, *names: str) -> list[str]:
    response = api.post(DETAIL + "/", {"count": len(names), "elements": [
        {"type": "task", "attributes": {"name": {"1033": name}}} for name in names]})
    return ids(response)


def rename(api: Api, element_id: str, name: str) -> None:
    response = api.post(DETAIL + "/", {"count": 1, "elements": [
        {"id": element_id, "attributes": {"name": {"1033": name}}}]})
    assert response.status_code == 200, response.get_json()


def pages_agree(api: Api, path: str, size: int, **params: str) -> list[str]:
    """Every element's key answers the slice of the whole listing that `$page` answers
    for its position; returns the whole listing."""
    everything = ids(api.get(path, **{"$pageSize": "1000", **params}))
    assert everything
    for position, element_id in enumerate(everything):
        number = position // size + 1
        by_key = ids(api.get(path, **{"$pageSize": str(size), "$pageSelectionKey": element_id,
                                      **params}))
        assert by_key == ids(api.get(path, **{"$pageSize": str(size), "$page": str(number),
                                              **params})), (element_id, size)
        assert by_key == everything[(number - 1) * size:number * size]
    return everything


def test_tied_sort_names_page_by_id_as_page_numbers_do(api: Api) -> None:
    tied = create(api, *TIED)  # one sort name, "tied name", four times
    everything = ids(api.get(LIST, **{"$pageSize": "1000"}))
    run = everything.index(min(tied))
    assert everything[run:run + len(tied)] == sorted(tied)  # ties in id order (byte order)
    for size in (1, 2, 3, 5):  # page boundaries inside, before and after the run of ties
        pages_agree(api, LIST, size)


def test_the_last_element_is_on_the_last_page_however_short(api: Api) -> None:
    create(api, "Zz last")
    everything = ids(api.get(LIST, **{"$pageSize": "1000"}))
    size = next(s for s in range(3, 10) if len(everything) % s)
    last = ids(api.get(LIST, **{"$pageSize": str(size), "$pageSelectionKey": everything[-1]}))
    assert last == everything[len(everything) // size * size:]
    assert 0 < len(last) < size


def test_the_tree_and_diagram_views_page_alike(api: Api) -> None:
    create(api, *TIED)  # roots of the tree: nobody's child, in no diagram
    assert len(pages_agree(api, VIEWS + "/tree/elements", 2)) > len(TIED)
    assert pages_agree(api, VIEWS + "/diagram/elements", 1)


def test_a_filtered_listing_pages_within_its_matches(api: Api) -> None:
    create(api, *TIED)
    matching = pages_agree(api, LIST, 2, **{"$filter": "contains(name, 'e')"})
    assert 2 < len(matching) < len(ids(api.get(LIST, **{"$pageSize": "1000"})))


def test_a_renamed_element_is_found_on_the_page_of_its_new_name(api: Api) -> None:
    (moving,) = create(api, "Zz moving")
    rename(api, moving, "  aa first")
    assert ids(api.get(LIST, **{"$pageSize": "3", "$pageSelectionKey": moving}))[0] == moving


def test_a_key_that_left_the_listing_gets_the_error_envelope(api: Api) -> None:
    (leaving, gone) = create(api, "Leaving soon", "Gone soon")
    matches = {"$filter": "startswith(name, 'Leaving')", "$pageSelectionKey": leaving}
    assert ids(api.get(LIST, **matches)) == [leaving]
    rename(api, leaving, "Stayed after all")
    body = assert_error(api.get(LIST, **matches), 404)
    assert leaving in body["message"]
    with api.store() as store:
        store.session.execute(delete(Element).where(Element.id == gone))
        store.session.commit()
    assert_error(api.get(LIST, **{"$pageSelectionKey": gone}), 404)
    assert_error(api.get(LIST, **{"$pageSelectionKey": SALES}), 404)  # another facet's


@pytest.mark.parametrize("key", [
    "x" * 5000, "' OR '1'='1", "%", "_", "el-\u00e4\u20ac\U0001F600", " ", "../", "1e9",
    "a\x07b",
])
def test_a_key_that_is_no_element_id_gets_the_error_envelope(api: Api, key: str) -> None:
    assert_error(api.get(LIST, **{"$pageSelectionKey": key}), 404)


@pytest.mark.parametrize("params", [
    {"$pageSelectionKey": "a\x00b"},
    {"$pageSelectionKey": "x", "$pageSize": "0"}, {"$pageSelectionKey": "x", "$page": "x"},
    {"$pageSelectionKey": "x", "$filter": "name eq"},
])
def test_a_key_with_bad_text_or_beside_a_bad_parameter_is_400(api: Api,
                                                             params: dict[str, str]) -> None:
    assert_error(api.get(LIST, **params), 400)


def selects(statements: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The SELECT statements of those recorded, with their parameters."""
    return [(sql, parameters) for sql, parameters in statements
            if sql.lstrip().upper().startswith("SELECT")]


def holding_plans(api: Api, *, big: bool = False, filter_text: str | None = None) -> list[str]:
    """The plan of each statement of `page_holding` for an element in the middle."""
    request = PageRequest("processes", "list",
                          compile_filter(filter_text) if filter_text else None, 1, 3)
    middle = ids(api.get(LIST, **{"$pageSize": "1000"}))[5]
    with api.store() as store:
        connection = store.session.connection()
        sqlite = connection.dialect.name == "sqlite"
        if sqlite and big:
            load_big_tenant_statistics(store.session)
        with recorded_statements(api.app) as statements:
            assert any(e.id == middle for e in store.page_holding(request, middle))
        if not sqlite:
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
        return ["\n".join(str(row[-1]) for row in
                          connection.exec_driver_sql(explain + statement, parameters))
                for statement, parameters in selects(statements)]


@sqlite_only
def test_sqlite_seeks_the_listing_index_by_its_key(api: Api) -> None:
    key, rest, count, head = holding_plans(api, big=True)
    assert "(tenant_pk=? AND id=?)" in key  # by its id alone
    assert count.count("COVERING INDEX ix_elements_page") == 2  # before it, and its ties
    assert "sort_name<?" in count and "sort_name=? AND id<?" in count
    assert "ix_elements_page (tenant_pk=? AND facet=? AND (sort_name,id)<(?,?))" in head
    assert "ix_elements_page (tenant_pk=? AND facet=? AND (sort_name,id)>(?,?))" in rest
    assert all("TEMP B-TREE" not in plan for plan in (count, head, rest))
    _, _, filtered, _ = holding_plans(api, big=True, filter_text="contains(name, 'e')")
    # With a `$filter`, one count: each would evaluate the filter's sub-query anew.
    assert filtered.count("SCALAR SUBQUERY") == filtered.count("LIST SUBQUERY") == 1


@postgresql_only
def test_postgresql_seeks_the_listing_index_by_its_key(api: Api) -> None:
    # The count's index is the planner's pick by the test's few rows (at 100,000 it reads
    # the table when most of it is counted: docs/performance-service.md); the seeks are
    # the listing index's whatever the rows.
    _, rest, _, head = holding_plans(api)
    assert "Index Scan Backward using ix_elements_page" in head
    assert "Index Scan using ix_elements_page" in rest
    for plan in (head, rest):
        assert "ROW(sort_name, id)" in plan.replace("(sort_name)::text", "sort_name").replace(
            "(id)::text", "id") and "Sort" not in plan


@sqlite_only
def test_a_deep_page_steps_over_the_elements_before_it_in_the_index_alone(api: Api) -> None:
    with api.store() as store:
        load_big_tenant_statistics(store.session)
        with recorded_statements(api.app) as statements:
            store.page(PageRequest("processes", "list", None, 500, 100))
        ((statement, parameters),) = selects(statements)
        plan = "\n".join(str(row[-1]) for row in store.session.connection().exec_driver_sql(
            "EXPLAIN QUERY PLAN " + statement, parameters))
    assert "COVERING INDEX ix_elements_page (tenant_pk=? AND facet=?)" in plan
