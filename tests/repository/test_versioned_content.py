"""Content and children belong to a version (docs/contract.md, "Elements, versions and
release workflow"), so changing a released element's content or children starts a new
inProcess version and leaves the released one as it was (shape ids stay the same across
versions)."""

from __future__ import annotations

from typing import Any

from repository.fixtures import diagram_fixture
from tests.repository.conftest import FACETS, TENANT, Api, assert_error
from tests.repository.standin import CREDIT, DRAFT, HIRE, HOUSE, ORDER

DETAIL = FACETS + "/processes/views/detail/elements"
TREE = FACETS + "/processes/views/tree/elements"
CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"
RENDER = TENANT + "/_api/rest/diagram/{}/render/1033/horizontal"


def update(api: Api, element: dict[str, Any]) -> dict[str, Any]:
    response = api.post(DETAIL, {"count": 1, "elements": [element]}, role="editor")
    assert response.status_code == 200, response.get_json()
    updated: dict[str, Any] = response.get_json()["elements"][0]
    return updated


def release(api: Api, element_id: str) -> None:
    response = api.post(f"{TENANT}/_api/release/{element_id}/transitions/InProcessToReleased")
    assert response.status_code == 200, response.get_json()


def versions(api: Api, element_id: str) -> list[dict[str, Any]]:
    response = api.get(f"{DETAIL}/{element_id}/versions")
    assert response.status_code == 200, response.get_json()
    listed: list[dict[str, Any]] = response.get_json()["elements"]
    return listed


def shape_ids(element: dict[str, Any]) -> list[str]:
    return [shape["shapeId"] for shape in element["content"]]


def assert_new_revision_of(api: Api, released: dict[str, Any]) -> dict[str, Any]:
    """The element now has a 1.1 inProcess version; the released one is untouched."""
    current = api.element(released["id"])
    assert current["versionId"] != released["versionId"]
    assert current["state"] == "inProcess"
    assert current["attributes"]["version"] == {"127": "1.1"}
    kept = api.element(released["versionId"])
    assert kept["state"] == "released"
    assert kept["content"] == released["content"]
    assert kept["children"] == released["children"]
    assert [v["versionId"] for v in versions(api, released["id"])] == [
        released["versionId"], current["versionId"]]
    return current


def test_content_create_on_a_released_diagram_starts_version_1_1(api: Api) -> None:
    released = api.element(ORDER)
    assert released["state"] == "released"
    last = released["content"][-1]["shapeId"]
    body = {"values": [
        {"shapeInfo": {"index": 0, "predecessors": [], "id": last}},
        {"shapeInfo": {"index": 1, "predecessors": [0]},
         "element": {"type": "task", "attributes": {"name": {"1033": "Archive"}}}},
    ]}
    response = api.post(CONTENT.format(ORDER), body, role="editor", **{"api-version": "3.0"})
    assert response.status_code == 200, response.get_json()
    added = response.get_json()["values"][1]["id"]
    current = assert_new_revision_of(api, released)
    assert shape_ids(current) == [*shape_ids(released), added]
    assert current["content"][-1]["predecessors"] == [last]
    assert added not in shape_ids(api.element(released["versionId"]))
    by_version = {v["versionId"]: v for v in versions(api, ORDER)}
    assert by_version[released["versionId"]]["content"] == released["content"]
    assert by_version[current["versionId"]]["content"] == current["content"]


def test_a_second_content_create_adds_to_the_same_revision(api: Api) -> None:
    body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                        "element": {"type": "task"}}]}
    assert api.post(CONTENT.format(ORDER), body, role="editor").status_code == 200
    revision = api.element(ORDER)
    assert api.post(CONTENT.format(ORDER), body, role="editor").status_code == 200
    again = api.element(ORDER)
    assert again["versionId"] == revision["versionId"]
    assert len(again["content"]) == len(revision["content"]) + 1
    assert len(versions(api, ORDER)) == 2


def test_rejected_content_create_on_a_released_diagram_starts_no_version(api: Api) -> None:
    body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                        "element": {"id": "ghost"}}]}
    assert_error(api.post(CONTENT.format(ORDER), body, role="editor"), 400)
    assert [v["state"] for v in versions(api, ORDER)] == ["released"]


def test_update_content_of_a_released_diagram_changes_only_the_new_version(api: Api) -> None:
    released = api.element(ORDER)
    first, second = released["content"][:2]
    update(api, {"id": ORDER, "versionId": released["versionId"], "content": [
        {"shapeId": second["shapeId"]},
        {"shapeId": first["shapeId"], "predecessors": [second["shapeId"]]},
    ]})
    current = assert_new_revision_of(api, released)
    assert shape_ids(current) == [second["shapeId"], first["shapeId"]]
    assert current["content"][1]["predecessors"] == [second["shapeId"]]


def test_update_children_of_a_released_element_changes_only_the_new_version(
        api: Api) -> None:
    update(api, {"id": DRAFT, "children": [{"id": CREDIT}]})
    release(api, DRAFT)
    released = api.element(DRAFT)
    assert [c["id"] for c in released["children"]] == [CREDIT]
    update(api, {"id": DRAFT, "children": [{"id": CREDIT}, {"id": HIRE}]})
    current = assert_new_revision_of(api, released)
    assert [c["id"] for c in current["children"]] == [CREDIT, HIRE]
    children = api.get(f"{DETAIL}/{released['versionId']}/children").get_json()["elements"]
    assert [c["id"] for c in children] == [CREDIT]
    newest = api.get(f"{DETAIL}/{DRAFT}/children").get_json()["elements"]
    assert [c["id"] for c in newest] == [CREDIT, HIRE]


def test_a_revision_copies_content_and_children_with_the_same_shape_ids(api: Api) -> None:
    released = api.element(ORDER)
    update(api, {"id": ORDER, "attributes": {"authorNote": {"1033": "rework"}}})
    current = assert_new_revision_of(api, released)
    assert current["content"] == released["content"]


def test_content_create_on_an_unversioned_element_keeps_its_one_version(api: Api) -> None:
    body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                        "element": {"type": "task", "attributes": {"name": {"1033": "T"}}}}]}
    response = api.post(CONTENT.format(HOUSE), body, role="editor")
    assert response.status_code == 200, response.get_json()
    house = api.element(HOUSE)
    assert "versionId" not in house
    assert shape_ids(house) == [response.get_json()["values"][0]["id"]]
    assert versions(api, HOUSE) == []
    with api.store() as store:
        assert len(store.reads.versions(store.reads.element(HOUSE))) == 1


def test_render_draws_the_newest_version(api: Api) -> None:
    released = api.element(ORDER)
    dropped = released["content"][-1]["shapeId"]
    update(api, {"id": ORDER, "content": [{"shapeId": s} for s in shape_ids(released)[:-1]]})
    body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                        "element": {"type": "task", "attributes": {"name": {"1033": "New"}}}}]}
    added = api.post(CONTENT.format(ORDER), body, role="editor").get_json()["values"][0]["id"]
    with api.store() as store:
        fixture = diagram_fixture(store, store.reads.element(ORDER))
    assert [v["shapeInfo"]["id"] for v in fixture["values"]] == [
        *shape_ids(released)[:-1], added]
    svg = api.get(RENDER.format(ORDER)).get_data(as_text=True)
    assert f'data-shape-id="{added}"' in svg and f'data-shape-id="{dropped}"' not in svg


def test_tree_roots_and_parents_follow_the_newest_version(api: Api) -> None:
    child = update(api, {"type": "subProcess", "attributes": {"name": {"1033": "Loose"}}})
    update(api, {"id": DRAFT, "children": [{"id": child["id"]}]})
    release(api, DRAFT)

    def roots() -> list[str]:
        listing = api.get(TREE, **{"$pageSize": "1000"}).get_json()["elements"]
        return [e["id"] for e in listing]

    def root_path() -> list[str]:
        info = api.get(f"{DETAIL}/{child['id']}/info").get_json()["values"][0]
        path: list[str] = info["rootPath"]
        return path

    assert child["id"] not in roots() and root_path() == [DRAFT]
    update(api, {"id": DRAFT, "children": []})
    assert child["id"] in roots() and root_path() == []
    released_children = api.element(versions(api, DRAFT)[0]["versionId"])["children"]
    assert [c["id"] for c in released_children] == [child["id"]]
