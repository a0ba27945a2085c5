"""`$resources=rootPath` is batched: a page costs the same statements whatever its size and
the depth of the tree, and each path is the one the per-element walk gave (nearest
parent first, the first parent by child row, stopping where first parents loop)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, select

from repository.store import MAX_TREE_DEPTH, Store
from repository.store.models import Child, Element
from tests.repository.conftest import FACETS, Api, recorded_statements
from tests.repository.standin import CATEGORY, DRAFT, HOUSE, ORDER

DETAIL = FACETS + "/processes/views/detail/elements/"
LIST = FACETS + "/processes/views/list/elements"
# Each new element is a child of element (i - 1) // FAN_OUT, the first under DRAFT.
NEW_ELEMENTS = 120
FAN_OUT = 3
# A listing page with attributes and rootPath, any size: the request's token and tenant,
# the page, the root paths (one recursive query), the versions, the attributes. Before:
# 30 for a page of 10 and 529 for a page of 100 of this tree (a query per parent, another
# per parent's version).
STATEMENTS_PER_PAGE = 6


def update(api: Api, *elements: dict[str, Any]) -> list[dict[str, Any]]:
    response = api.post(DETAIL, {"count": len(elements), "elements": list(elements)},
                        role="editor")
    assert response.status_code == 200 and response.get_json(), response.get_json()
    updated: list[dict[str, Any]] = response.get_json()["elements"]
    return updated


def create(api: Api, count: int) -> list[str]:
    created = update(api, *({"type": "mainProcess",
                             "attributes": {"name": {"1033": f"Deep {i:03}"}}}
                            for i in range(count)))
    return [e["id"] for e in created]


def walked_root_path(store: Store, element: Element) -> list[str]:
    """The per-element walk rootPath used before it was batched: one query per parent."""
    path: list[str] = []
    seen = {element.pk}
    current: Element | None = element
    while current is not None:
        current = store.session.scalar(
            select(Element).join(Child, and_(Child.parent_pk == Element.pk,
                                             Child.version_pk == Element.current_version_pk))
            .where(Child.child_pk == current.pk).order_by(Child.pk).limit(1))
        if current is None or current.pk in seen or len(path) == MAX_TREE_DEPTH:
            break
        path.append(current.id)
        seen.add(current.pk)
    return path


def assert_paths_as_walked(api: Api, elements: list[dict[str, Any]]) -> None:
    with api.store() as store:
        by_id = store.reads.elements_by_id([e["id"] for e in elements])
        for element in elements:
            assert ([p["id"] for p in element["rootPath"]]
                    == walked_root_path(store, by_id[element["id"]])), element["id"]


def deep_tree(api: Api) -> list[str]:
    """NEW_ELEMENTS new processes in a tree of depth 5 below DRAFT."""
    ids = create(api, NEW_ELEMENTS)
    parents = [{"id": DRAFT, "children": [{"id": ids[0]}]}]
    parents += [{"id": parent, "children": [{"id": c} for c in
                                            ids[FAN_OUT * i + 1:FAN_OUT * i + 1 + FAN_OUT]]}
                for i, parent in enumerate(ids) if FAN_OUT * i + 1 < NEW_ELEMENTS]
    update(api, *parents)
    return ids


def listing(api: Api, resources: str, size: int) -> tuple[list[dict[str, Any]], int]:
    """A page of processes with names only, and the statements it ran."""
    params: dict[str, Any] = {"$resources": resources, "$pageSize": size, "$select": "name"}
    with recorded_statements(api.app) as statements:
        response = api.get(LIST, **params)
    assert response.status_code == 200 and response.get_json(), response.get_json()
    # SQLite alone opens its transactions with an explicit BEGIN.
    return (response.get_json()["elements"],
            len([sql for sql, _ in statements if sql != "BEGIN DEFERRED"]))


def test_a_page_or_element_costs_the_same_statements_whatever_its_size_and_depth(api: Api) -> None:
    ids = deep_tree(api)
    small, small_count = listing(api, "attributes,rootPath", 10)
    large, large_count = listing(api, "attributes,rootPath", 100)
    assert len(small) == 10 and len(large) == 100
    assert small_count == large_count == STATEMENTS_PER_PAGE, (small_count, large_count)
    with recorded_statements(api.app) as one_deep:
        assert api.element(ids[0], **{"$resources": "rootPath"})["rootPath"][0]["id"] == DRAFT
    with recorded_statements(api.app) as five_deep:
        deepest = api.element(ids[-1], **{"$resources": "rootPath"})["rootPath"]
    assert len(deepest) == 5 and deepest[-1]["id"] == DRAFT
    assert len(five_deep) == len(one_deep)
    parent = api.element(deepest[0]["id"], **{"$resources": ""})
    assert deepest[0] == {"facetName": "processes", "id": parent["id"],
                          "versionId": parent["versionId"], "type": "mainProcess",
                          "state": "inProcess", "expandUri": DETAIL + parent["id"]}
    assert_paths_as_walked(api, large)


def test_paths_are_the_ones_the_per_element_walk_gave(api: Api) -> None:
    listed, _ = listing(api, "rootPath", 1000)
    assert_paths_as_walked(api, listed)
    order = next(e for e in listed if e["id"] == ORDER)
    assert order["rootPath"] == [
        {"facetName": "processes", "id": CATEGORY, "creationId": CATEGORY,
         "type": "subCategory", "expandUri": DETAIL + CATEGORY},
        {"facetName": "processes", "id": HOUSE, "creationId": HOUSE,
         "type": "processHouse", "expandUri": DETAIL + HOUSE}]


def test_a_loop_of_first_parents_stops_at_the_repeat(api: Api) -> None:
    # B's first parent is C; A becomes B's second parent, B may then take A as a child
    # (A is not on B's path), and C letting B go closes the loop A -> B -> A.
    a, b, c = create(api, 3)
    update(api, {"id": c, "children": [{"id": b}]})
    update(api, {"id": a, "children": [{"id": b}]})
    update(api, {"id": b, "children": [{"id": a}]})
    update(api, {"id": c, "children": []})
    assert [p["id"] for p in api.element(a, **{"$resources": "rootPath"})["rootPath"]] == [b]
    assert [p["id"] for p in api.element(b, **{"$resources": "rootPath"})["rootPath"]] == [a]
    listed, _ = listing(api, "rootPath", 1000)
    assert_paths_as_walked(api, [e for e in listed if e["id"] in {a, b, c}])
