"""Seed endpoints 2-6: list, get, update/create, children, versions."""

from __future__ import annotations

from typing import Any

import pytest

from tests.repository.conftest import FACETS, Api, assert_error
from tests.repository.standin import BIKE, CATEGORY, CREDIT, DRAFT, HIRE, HOUSE, ORDER, SALES

LIST = FACETS + "/processes/views/list/elements"
DETAIL = FACETS + "/processes/views/detail/elements"


def ids(response: Any) -> list[str]:
    assert response.status_code == 200, response.get_json()
    return [e["id"] for e in response.get_json()["elements"]]


def test_list_is_ordered_by_name_then_id_and_count_is_returned(api: Api) -> None:
    body = api.get(LIST, **{"$resources": "attributes"}).get_json()
    names = [e["attributes"]["name"]["1033"].lower() for e in body["elements"]]
    assert names == sorted(names)
    assert body["count"] == len(body["elements"]) > 10


def test_paging_is_one_based_and_repeatable(api: Api) -> None:
    everything = ids(api.get(LIST))
    first = ids(api.get(LIST, **{"$page": "1", "$pageSize": "3"}))
    second = ids(api.get(LIST, **{"$page": "2", "$pageSize": "3"}))
    assert first + second == everything[:6]
    assert ids(api.get(LIST, **{"$page": "99", "$pageSize": "3"})) == []


def test_page_selection_key_returns_the_page_holding_the_element(api: Api) -> None:
    everything = ids(api.get(LIST))
    position = everything.index(ORDER)
    page = ids(api.get(LIST, **{"$pageSize": "2", "$pageSelectionKey": ORDER}))
    assert ORDER in page and page == everything[position // 2 * 2:position // 2 * 2 + 2]


def test_page_selection_key_outside_the_listing_is_404(api: Api) -> None:
    assert_error(api.get(LIST, **{"$pageSelectionKey": "nope"}), 404)


@pytest.mark.parametrize("params", [
    {"$page": "0"}, {"$page": "x"}, {"$pageSize": "1001"}, {"$pageSize": "0"},
    {"$resources": "attributes,bogus"}, {"api-version": "1.0"},
])
def test_bad_listing_parameters_are_400(api: Api, params: dict[str, str]) -> None:
    assert_error(api.get(LIST, **params), 400)


def test_page_size_up_to_1000_is_accepted(api: Api) -> None:
    assert api.get(LIST, **{"$pageSize": "1000", "api-version": "4.0"}).status_code == 200


def test_resources_restrict_the_returned_parts(api: Api) -> None:
    element = api.get(LIST, **{"$resources": "attributes,children"}).get_json()["elements"][0]
    assert "attributes" in element and "children" in element
    assert "related" not in element and "content" not in element and "displayNames" not in element


def test_default_resources_omit_root_path_and_stereotype(api: Api) -> None:
    element = api.element(ORDER)
    assert {"attributes", "related", "children", "content", "displayNames"} <= set(element)
    assert "rootPath" not in element and "stereotype" not in element


def test_select_filters_attributes_and_related_together(api: Api) -> None:
    element = api.element(ORDER, **{"$select": "name,executedBy"})
    assert set(element["attributes"]) == {"name"}
    assert set(element["related"]) == {"executedBy"}


def test_expand_related_adds_attributes_of_the_linked_elements(api: Api) -> None:
    plain = api.element(ORDER)["related"]["executedBy"][0]
    assert "attributes" not in plain
    expanded = api.element(ORDER, **{"$expandRelated": "executedBy"})["related"]["executedBy"][0]
    assert expanded["attributes"]["name"]["1033"] == "Sales"
    assert "related" in expanded


def test_tree_view_lists_roots_and_children_endpoint_lists_children_in_order(api: Api) -> None:
    # Categories are children, the credit check only a shape of a diagram: not roots.
    assert ids(api.get(FACETS + "/processes/views/tree/elements")) == [DRAFT, HOUSE]
    assert ids(api.get(f"{FACETS}/processes/views/tree/elements/{CATEGORY}/children")) == [
        ORDER, HIRE]


def test_diagram_view_lists_elements_with_content(api: Api) -> None:
    assert ids(api.get(FACETS + "/processes/views/diagram/elements")) == [ORDER]


def test_get_element_by_id_and_by_version_id(api: Api) -> None:
    element = api.element(ORDER)
    assert element["id"] == ORDER and element["creationId"] == ORDER
    assert element["state"] == "released" and element["versionId"]
    by_version = api.element(element["versionId"])
    assert by_version["versionId"] == element["versionId"]


def test_get_root_path_from_nearest_parent_to_root(api: Api) -> None:
    path = api.element(ORDER, **{"$resources": "rootPath"})["rootPath"]
    assert [p["id"] for p in path] == [CATEGORY, HOUSE]


def test_stereotype_resource_is_null_without_a_stereotype(api: Api) -> None:
    assert api.element(ORDER, **{"$resources": "stereotype"})["stereotype"] is None


def test_content_entries_are_shape_references_in_order(api: Api) -> None:
    content = api.element(ORDER)["content"]
    assert len(content) == 7
    assert content[4]["id"] == CREDIT
    assert content[1]["predecessors"] == [content[0]["shapeId"], content[3]["shapeId"]]
    assert all(entry["shapeId"] for entry in content)


@pytest.mark.parametrize("element_id", ["nope", "..", "%2e%2e", "..%2f..%2fetc"])
def test_unknown_or_traversal_ids_are_404(api: Api, element_id: str) -> None:
    body = assert_error(api.get(f"{DETAIL}/{element_id}"), 404)
    assert "/" not in body["message"].replace("'", "").split()[0]


def test_element_of_another_facet_is_404(api: Api) -> None:
    assert_error(api.get(f"{DETAIL}/{SALES}"), 404)


def test_unknown_facet_and_view_are_404(api: Api) -> None:
    assert_error(api.get(FACETS + "/nofacet/views/list/elements"), 404)
    assert_error(api.get(FACETS + "/products/views/diagram/elements"), 404)


def test_get_with_filter_that_does_not_match_is_404(api: Api) -> None:
    assert api.get(f"{DETAIL}/{ORDER}", **{"$filter": "type eq 'mainProcess'"}).status_code == 200
    assert_error(api.get(f"{DETAIL}/{ORDER}", **{"$filter": "type eq 'task'"}), 404)


# ---- update and create ---------------------------------------------------------------

def update(api: Api, *elements: dict[str, Any], role: str = "editor",
           facet: str = "processes") -> Any:
    return api.post(f"{FACETS}/{facet}/views/detail/elements/",
                    {"count": len(elements), "elements": list(elements)}, role=role)


def test_create_sets_ids_version_and_server_attributes(api: Api) -> None:
    response = update(api, {"type": "mainProcess", "attributes": {
        "name": {"1033": "New process"}, "createdOn": {"127": "1999-01-01T00:00:00"}}})
    assert response.status_code == 200, response.get_json()
    created = response.get_json()["elements"][0]
    assert created["creationId"] == created["id"] and created["versionId"]
    assert created["state"] == "inProcess"
    attributes = created["attributes"]
    assert attributes["version"] == {"127": "0.1"} and attributes["isReleased"] == {"127": False}
    assert attributes["createdOn"]["127"] != "1999-01-01T00:00:00"
    assert created["related"]["createdBy"][0]["type"] == "authToken"
    assert created["related"]["changedBy"][0]["facetName"] == "automation"
    assert api.element(created["id"])["attributes"]["name"] == {"1033": "New process"}


def test_create_unversioned_element_has_no_version(api: Api) -> None:
    created = update(api, {"type": "task", "attributes": {"name": {"1033": "T"}}}).get_json()
    element = created["elements"][0]
    assert "versionId" not in element and element["attributes"]["state1"] == {"127": "show"}


def test_update_merges_attributes_per_name_and_culture(api: Api) -> None:
    response = update(api, {"id": DRAFT, "attributes": {
        "name": {"1031": None, "1033": "Draft renamed"}, "authorNote": {"1033": "note"}}})
    assert response.status_code == 200, response.get_json()
    attributes = api.element(DRAFT)["attributes"]
    assert attributes["name"] == {"1033": "Draft renamed"}
    assert attributes["authorNote"] == {"1033": "note"}


def test_update_replaces_named_related_contexts_and_children_and_keeps_the_rest(api: Api) -> None:
    assert update(api, {"id": DRAFT, "related": {"hasOutput": [{"id": BIKE}]},
                        "children": [{"id": CREDIT}]}).status_code == 200
    element = api.element(DRAFT)
    assert [r["id"] for r in element["related"]["hasOutput"]] == [BIKE]
    assert [c["id"] for c in element["children"]] == [CREDIT]
    assert update(api, {"id": DRAFT, "attributes": {"authorNote": {"1033": "x"}}}).status_code == 200
    again = api.element(DRAFT)
    assert [c["id"] for c in again["children"]] == [CREDIT] and "hasOutput" in again["related"]


def test_update_content_reorders_and_drops_shapes(api: Api) -> None:
    content = api.element(ORDER)["content"]
    keep = [{"shapeId": content[1]["shapeId"]}, {"shapeId": content[0]["shapeId"],
                                                 "predecessors": [content[1]["shapeId"]]}]
    assert update(api, {"id": ORDER, "content": keep}).status_code == 200
    after = api.element(ORDER)["content"]
    assert [c["shapeId"] for c in after] == [content[1]["shapeId"], content[0]["shapeId"]]
    assert after[0]["predecessors"] == [content[0]["shapeId"]]
    assert after[1]["predecessors"] == [content[1]["shapeId"]]


def test_updating_a_released_element_starts_a_new_version(api: Api) -> None:
    before = api.element(ORDER)
    response = update(api, {"id": ORDER, "versionId": before["versionId"],
                            "attributes": {"authorNote": {"1033": "rework"}}})
    assert response.status_code == 200, response.get_json()
    after = response.get_json()["elements"][0]
    assert after["versionId"] != before["versionId"]
    assert after["state"] == "inProcess" and after["attributes"]["version"] == {"127": "1.1"}
    old = api.element(before["versionId"])
    assert old["state"] == "released" and "authorNote" not in old["attributes"]


def test_stale_version_id_is_409_and_nothing_is_written(api: Api) -> None:
    versions = api.get(f"{DETAIL}/{HIRE}/versions").get_json()["elements"]
    stale = versions[0]["versionId"]
    response = update(api, {"id": HIRE, "versionId": stale,
                            "attributes": {"authorNote": {"1033": "lost"}}})
    assert_error(response, 409)
    assert "authorNote" not in api.element(HIRE)["attributes"]


def test_update_answers_changed_on_and_changed_by(api: Api) -> None:
    element = update(api, {"id": DRAFT, "attributes": {"authorNote": {"1033": "n"}}}).get_json()[
        "elements"][0]
    assert element["attributes"]["changedOn"]["127"]
    editor_token = element["related"]["changedBy"][0]
    with api.store() as store:
        actor = store.reads.element(editor_token["id"])
        assert actor.type == "authToken"


BAD_BODIES: list[tuple[Any, int]] = [
    ({"count": 2, "elements": [{"id": DRAFT}]}, 400),
    ({"elements": "x"}, 400),
    ([], 400),
    ({"count": 1, "elements": [{"type": "bogusType"}]}, 400),
    ({"count": 1, "elements": [{"type": "product"}]}, 400),
    ({"count": 1, "elements": [{"attributes": {}}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "attributes": {"name": {"en": "x"}}}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "attributes": {"name": "x"}}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "attributes": {"name": {"1033": {"a": 1}}}}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "related": {"owner": [{"id": "ghost"}]}}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "related": {"owner": {"id": SALES}}}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "children": [{"id": DRAFT}]}]}, 400),
    ({"count": 1, "elements": [{"id": CATEGORY, "children": [{"id": HOUSE}]}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "type": "task"}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "facetName": "products"}]}, 400),
    ({"count": 1, "elements": [{"id": DRAFT, "content": [{"shapeId": "ghost"}]}]}, 400),
    ({"count": 1, "elements": [{"id": "ghost"}]}, 404),
]


@pytest.mark.parametrize(("body", "status"), BAD_BODIES)
def test_bad_update_bodies_are_rejected_and_nothing_is_written(api: Api, body: Any,
                                                               status: int) -> None:
    before = api.get(LIST, **{"$pageSize": "1000"}).get_json()
    response = api.post(FACETS + "/processes/views/detail/elements", body, role="editor")
    assert_error(response, status)
    after = api.get(LIST, **{"$pageSize": "1000"}).get_json()
    assert _without_stamps(after) == _without_stamps(before)


def test_a_failing_item_rolls_back_the_items_before_it(api: Api) -> None:
    before = api.get(LIST, **{"$pageSize": "1000"}).get_json()["count"]
    response = update(api, {"type": "task", "attributes": {"name": {"1033": "kept?"}}},
                      {"id": DRAFT, "related": {"owner": [{"id": "ghost"}]}})
    assert_error(response, 400)
    assert api.get(LIST, **{"$pageSize": "1000"}).get_json()["count"] == before


@pytest.mark.parametrize("raw", [b"{", b"\xff\xfe", b"", b"null", b"[1,2"])
def test_malformed_json_is_400(api: Api, raw: bytes) -> None:
    assert_error(api.post_raw(LIST, raw, role="editor"), 400)


def test_versions_list_every_version_with_state_and_release_history(api: Api) -> None:
    versions = api.get(f"{DETAIL}/{HIRE}/versions").get_json()["elements"]
    assert [v["state"] for v in versions] == ["expired", "released", "inProcess"]
    assert [v["attributes"]["version"]["127"] for v in versions] == ["1.0", "2.0", "2.1"]
    assert versions[1]["attributes"]["validUntil"] == {"127": "9999-12-31T23:59:59"}
    assert versions[0]["attributes"]["isReleased"] == {"127": False}
    history = versions[1]["related"]["releaseHistory"]
    assert [h["versionId"] for h in history] == [versions[0]["versionId"],
                                                 versions[1]["versionId"]]


def test_versions_filter_applies_to_each_version(api: Api) -> None:
    response = api.get(f"{DETAIL}/{HIRE}/versions", **{"$filter": "state eq 'released'"})
    assert [v["state"] for v in response.get_json()["elements"]] == ["released"]


def test_versions_of_an_unversioned_element_are_empty(api: Api) -> None:
    assert api.get(f"{DETAIL}/{HOUSE}/versions").get_json() == {"count": 0, "elements": []}


def _without_stamps(listing: dict[str, Any]) -> Any:
    for element in listing["elements"]:
        element["attributes"].pop("changedOn", None)
    return listing
