"""`$pageSelectionKey` read by seeking the listing order (`Reads.page_holding`): the page
it answers is the page `$page` numbers for the same view, filter and size, whatever the
ties in the sort name and wherever the element lies; a key outside the listing, or one
that is not an element id at all, gets the error envelope; and the statements walk the
listing index by its key, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import delete

from repository.app import create_app
from repository.render_cache import MemoryRenderCache
from repository.store import PageRequest, Store, find_tenant
from repository.store.db import open_session
from repository.store.filters import compile_filter
from repository.store.models import Element
from repository.store.positions import SPACING, ListingPositions, Milestones
from repository.store.reads import Reads
from tests.repository.conftest import (
    FACETS,
    Api,
    Prepared,
    assert_error,
    recorded_statements,
    sqlite_only,
)
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
])
def test_a_key_that_is_no_element_id_gets_the_error_envelope(api: Api, key: str) -> None:
    assert_error(api.get(LIST, **{"$pageSelectionKey": key}), 404)


def test_a_key_with_a_control_character_is_refused_as_text(api: Api) -> None:
    """The text rule (no control characters XML cannot carry) comes before the look-up."""
    assert_error(api.get(LIST, **{"$pageSelectionKey": "a\x07b"}), 400)


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
            if sql.lstrip().upper().startswith(("SELECT", "WITH"))]


def holding_plans(api: Api, *, big: bool = False, filter_text: str | None = None,
                  spacing: int | None = SPACING) -> list[str]:
    """The plan of each statement of `page_holding` for an element in the middle (the
    store's own milestones, `spacing` apart: read anew; None: as if a write came in
    between every time, the plain count)."""
    request = PageRequest("processes", "list",
                          compile_filter(filter_text) if filter_text else None, 1, 3)
    middle = ids(api.get(LIST, **{"$pageSize": "1000"}))[5]
    with api.store() as store:
        if spacing is None:
            store.reads._position_from_milestone = lambda *_: None  # type: ignore[method-assign]
        else:
            store.positions = ListingPositions(spacing)
        connection = store.session.connection()
        sqlite = connection.dialect.name == "sqlite"
        if sqlite and big:
            load_big_tenant_statistics(store.session)
        with recorded_statements(api.app) as statements:
            assert any(e.id == middle for e in store.reads.page_holding(request, middle))
        if not sqlite:
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
        return ["\n".join(str(row[-1]) for row in
                          connection.exec_driver_sql(explain + statement, parameters))
                for statement, parameters in selects(statements)]


@sqlite_only
def test_sqlite_seeks_the_listing_index_by_its_key(api: Api) -> None:
    key, rest, milestones, count, head = holding_plans(api, big=True, spacing=2)
    assert "(tenant_pk=? AND id=?)" in key  # by its id alone
    assert "COVERING INDEX ix_elements_page (tenant_pk=? AND facet=?)" in milestones
    # from the milestone before it: one range of the index
    assert "COVERING INDEX ix_elements_page (tenant_pk=? AND facet=? AND (sort_name,id)>(?,?) AND " \
           "(sort_name,id)<(?,?))" in count
    assert "ix_elements_page (tenant_pk=? AND facet=? AND (sort_name,id)<(?,?))" in head
    assert "ix_elements_page (tenant_pk=? AND facet=? AND (sort_name,id)>(?,?))" in rest
    assert all("TEMP B-TREE" not in plan for plan in (milestones, count, head, rest))
    *_, filtered, _ = holding_plans(api, big=True, filter_text="contains(name, 'e')")
    # With a `$filter`, one count: each would evaluate the filter's sub-query anew.
    assert filtered.count("SCALAR SUBQUERY") == filtered.count("LIST SUBQUERY") == 1
    # Without milestones (a write came in between, twice), the plain count: two ranges
    # of the index, names before its name, then its ties.
    _, _, count, _ = holding_plans(api, big=True, spacing=None)
    assert count.count("COVERING INDEX ix_elements_page") == 2
    assert "sort_name<?" in count and "sort_name=? AND id<?" in count


@postgresql_only
def test_postgresql_seeks_the_listing_index_by_its_key(api: Api) -> None:
    # The count's way through the index is the planner's pick by the statistics of the
    # test's few rows, which earlier tests in the same schema change (an index-only scan
    # or a bitmap of it; at 100,000 it reads the table when most of it is counted:
    # docs/performance-service.md); the seeks are the listing index's whatever the rows.
    _, rest, _, count, head = holding_plans(api, spacing=2)
    assert "Index Scan Backward using ix_elements_page" in head
    assert "Index Scan using ix_elements_page" in rest
    assert re.search(r"Index (Only )?Scan (using|on) ix_elements_page", count), count
    for plan in (head, rest, count):
        assert "ROW(sort_name, id)" in plan.replace("(sort_name)::text", "sort_name").replace(
            "(id)::text", "id") and "Sort" not in plan


def page_plans(api: Api, request: PageRequest, spacing: int) -> list[str]:
    """The plan of each statement of `Reads.page` (the store's own milestones, `spacing`
    apart), with SQLite statistics of a big tenant."""
    with api.store() as store:
        store.positions = ListingPositions(spacing)
        load_big_tenant_statistics(store.session)
        with recorded_statements(api.app) as statements:
            store.reads.page(request)
        return ["\n".join(str(row[-1]) for row in store.session.connection().exec_driver_sql(
            "EXPLAIN QUERY PLAN " + statement, parameters))
            for statement, parameters in selects(statements)]


@sqlite_only
def test_a_deep_page_starts_at_the_milestone_before_it(api: Api) -> None:
    milestones, page = page_plans(api, PageRequest("processes", "list", None, 3, 5), spacing=4)
    assert "COVERING INDEX ix_elements_page (tenant_pk=? AND facet=?)" in milestones
    assert "COVERING INDEX ix_elements_page (tenant_pk=? AND facet=? AND (sort_name,id)>(?,?))" in page
    assert "TEMP B-TREE" not in milestones  # the page's few rows are sorted, as without


@sqlite_only
def test_a_deep_page_without_milestones_steps_over_the_elements_before_it_in_the_index_alone(
        api: Api) -> None:
    # Page 500 of a few dozen elements: past the last milestone's page, so read plainly.
    *_, plain = page_plans(api, PageRequest("processes", "list", None, 500, 100), spacing=4)
    assert "COVERING INDEX ix_elements_page (tenant_pk=? AND facet=?)" in plain


def spaced_api(prepared: Prepared, spacing: int) -> Api:
    positions = ListingPositions(spacing)
    app = create_app({**prepared.config, "LISTING_POSITIONS": positions,
                      "LISTING_CACHE": MemoryRenderCache(max_bytes=0)})
    return Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)


@pytest.fixture
def spaced(prepared: Prepared) -> Iterator[Api]:
    """The API with milestones two elements apart: most pages and keys start from one."""
    made = spaced_api(prepared, 2)
    yield made
    made.app.extensions["elrepo.engine"].dispose()


def test_milestones_answer_the_pages_of_the_plain_count_and_offset(spaced: Api) -> None:
    create(spaced, *TIED)
    for size in (1, 2, 3, 5):  # `pages_agree`'s whole listing is read without milestones
        pages_agree(spaced, LIST, size)
    assert len(pages_agree(spaced, VIEWS + "/tree/elements", 3)) > len(TIED)
    assert pages_agree(spaced, VIEWS + "/diagram/elements", 1)


def test_a_write_moves_the_milestones_on(spaced: Api) -> None:
    """Milestones of an earlier generation are never used: after a rename and a create
    every key and page is where the listing has it."""
    (moving,) = create(spaced, "Zz moving")
    pages_agree(spaced, LIST, 3)
    rename(spaced, moving, "  aa first")
    assert ids(spaced.get(LIST, **{"$pageSize": "3", "$pageSelectionKey": moving}))[0] == moving
    pages_agree(spaced, LIST, 3)
    create(spaced, "Aa new", "Mm new")
    pages_agree(spaced, LIST, 3)


def test_milestones_read_before_a_write_are_not_used(spaced: Api,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A statement that sees another generation than its milestones' is not answered
    from them: read anew once, then the plain count and OFFSET."""
    everything = ids(spaced.get(LIST, **{"$pageSize": "1000"}))
    positions: ListingPositions = spaced.app.extensions["elrepo.listing_positions"]
    with spaced.store() as store:
        listing = (store.tenant.pk, "processes", "list")
    stale = Milestones(-1, 2, [("", "")] * len(everything))  # every key wrong
    positions.put(listing, stale)
    assert ids(spaced.get(LIST, **{"$pageSize": "2", "$page": "3"})) == everything[4:6]
    assert positions.get(listing) != stale  # replaced by ones read now
    # read anew, and stale again: a write between every read and its use
    monkeypatch.setattr(Reads, "_read_milestones", lambda *_: stale)
    for position, element_id in enumerate(everything):
        page = ids(spaced.get(LIST, **{"$pageSize": "2", "$pageSelectionKey": element_id}))
        assert page == everything[position // 2 * 2:position // 2 * 2 + 2]
    assert ids(spaced.get(LIST, **{"$pageSize": "2", "$page": "3"})) == everything[4:6]


def test_milestones_of_a_later_generation_stay() -> None:
    positions = ListingPositions(2)
    newer, older = Milestones(7, 2, [("a", "1")]), Milestones(6, 2, [("b", "2")])
    positions.put((1, "processes", "list"), newer)
    positions.put((1, "processes", "list"), older)
    assert positions.get((1, "processes", "list")) is newer


def test_the_milestone_before_a_key_and_at_or_before_a_position() -> None:
    milestones = Milestones(1, 3, [("a", "1"), ("c", "1"), ("c", "3")])  # positions 0, 3, 6
    assert milestones.before(("a", "1")) is None
    assert milestones.before(("b", "9")) == (0, ("a", "1"))
    assert milestones.before(("c", "1")) == (0, ("a", "1"))  # strictly before
    assert milestones.before(("c", "2")) == (3, ("c", "1"))
    assert milestones.before(("z", "")) == (6, ("c", "3"))
    assert [milestones.at_or_before(p) for p in (0, 2, 3, 8, 100)] == [
        (0, ("a", "1")), (0, ("a", "1")), (3, ("c", "1")), (6, ("c", "3")), (6, ("c", "3"))]
    with pytest.raises(ValueError):
        ListingPositions(0)


def test_milestones_read_in_a_write_are_not_kept(spaced: Api) -> None:
    """A write's transaction may roll back and its generation become the next write's:
    what it read is never kept for other requests; a read's is."""
    everything = ids(spaced.get(LIST, **{"$pageSize": "1000"}))
    positions: ListingPositions = spaced.app.extensions["elrepo.listing_positions"]
    factory = spaced.app.extensions["elrepo.sessions"]
    for write in (True, False):
        with open_session(factory, write=write) as session:
            tenant = find_tenant(session, "demo", "default")
            assert tenant is not None
            store = Store(session, tenant, positions)
            page = store.reads.page_holding(PageRequest("processes", "list", None, 1, 2), everything[5])
            assert [e.id for e in page] == everything[4:6]
            kept = positions.get((tenant.pk, "processes", "list"))
        assert (kept is None) is write
