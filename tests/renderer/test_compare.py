"""What changed between two versions of a diagram, as plain data (renderer/compare.py),
on hand-made versions."""
from __future__ import annotations

import copy
from typing import Any

from renderer.compare import compare_diagrams
from renderer.model import parse_diagram
from tests.renderer.compare_cases import ADDED_SHAPE, REMOVED_SHAPE, RENAMED_SHAPE, edited, newer, older


def changes_of(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = compare_diagrams(parse_diagram(old), parse_diagram(new)).to_json()
    return body


def shape_ids(listed: list[dict[str, Any]]) -> list[str]:
    return [item["shapeId"] for item in listed]


def flows(listed: list[dict[str, str]]) -> set[tuple[str, str]]:
    return {(flow["sourceShapeId"], flow["targetShapeId"]) for flow in listed}


def value_of(fixture: dict[str, Any], shape_id: str) -> dict[str, Any]:
    value: dict[str, Any] = next(v for v in fixture["values"] if v["shapeInfo"]["id"] == shape_id)
    return value


def test_a_version_against_itself_is_the_same_model() -> None:
    old = older()
    body = changes_of(old, copy.deepcopy(old))
    assert body["same"] is True
    assert all(not listed for part in ("shapes", "elements", "flows") for listed in body[part].values())


def test_one_task_added_one_renamed_one_removed_and_nothing_else() -> None:
    old = older()
    body = changes_of(old, newer(old))
    assert body["same"] is False
    shapes = body["shapes"]
    assert shape_ids(shapes["added"]) == [ADDED_SHAPE]
    assert shape_ids(shapes["removed"]) == [REMOVED_SHAPE]
    assert shape_ids(shapes["changed"]) == [RENAMED_SHAPE]
    assert shapes["changed"][0]["attributes"] == [{"name": "name", "cultures": [1031, 1033]}]
    assert shapes["moved"] == []  # the shapes beside the insertion and the removal stay unmarked
    assert flows(body["flows"]["added"]) == {("shape-1", ADDED_SHAPE), (ADDED_SHAPE, "shape-2"),
                                             ("shape-8", "shape-10")}
    assert flows(body["flows"]["removed"]) == {("shape-1", "shape-2"), ("shape-8", REMOVED_SHAPE),
                                               (REMOVED_SHAPE, "shape-10")}
    assert [e["id"] for e in body["elements"]["added"]] == ["element-new"]
    assert [e["id"] for e in body["elements"]["removed"]] == [value_of(old, REMOVED_SHAPE)["element"]["id"]]
    assert body["diagram"] == {"attributes": [], "related": []}


def test_a_shape_cut_and_pasted_elsewhere_is_moved_not_changed() -> None:
    old = older()
    # "Check customer master data" (shape-1) taken out between shape-0 and shape-2 and put
    # on the flow from shape-14 to shape-15.
    new = copy.deepcopy(old)
    index = {v["shapeInfo"]["id"]: v["shapeInfo"]["index"] for v in new["values"]}
    value_of(new, "shape-2")["shapeInfo"]["predecessors"] = [index["shape-0"]]
    value_of(new, "shape-1")["shapeInfo"]["predecessors"] = [index["shape-14"]]
    merge = value_of(new, "shape-15")["shapeInfo"]
    merge["predecessors"] = [index["shape-1"] if p == index["shape-14"] else p for p in merge["predecessors"]]
    body = changes_of(old, new)
    assert shape_ids(body["shapes"]["moved"]) == ["shape-1"]
    assert body["shapes"]["changed"] == body["shapes"]["added"] == body["shapes"]["removed"] == []


def test_only_the_cultures_whose_value_changed_are_named() -> None:
    old = older()
    new = copy.deepcopy(old)
    value_of(new, "shape-4")["element"]["attributes"]["name"]["1031"] = "Offene Posten abgleichen"
    value_of(new, "shape-4")["element"]["attributes"]["description"] = {"1033": ""}  # empty is no value
    changed = changes_of(old, new)["shapes"]["changed"]
    assert changed == [{**changed[0], "shapeId": "shape-4",
                        "attributes": [{"name": "name", "cultures": [1031]}], "related": []}]


def test_bookkeeping_is_no_change_but_a_related_context_is() -> None:
    old = older()
    new = copy.deepcopy(old)
    element = value_of(new, "shape-6")["element"]
    element["attributes"]["changedOn"] = {"127": "2026-11-27T12:00:00"}
    element["attributes"]["releaseComment"] = {"127": "Approved in the weekly review"}
    element["related"]["changedBy"] = [{"id": "someone"}]
    new["diagram"].setdefault("attributes", {})["version"] = {"127": "1.1"}
    assert changes_of(old, new)["same"] is True
    element["related"]["informed"] = [{"id": "someone"}]
    changed = changes_of(old, new)["shapes"]["changed"]
    assert [(c["shapeId"], c["related"], c["attributes"]) for c in changed] == [("shape-6", ["informed"], [])]


def test_a_shape_showing_another_element_names_the_one_it_showed() -> None:
    old = older()
    new = copy.deepcopy(old)
    replaced = value_of(new, "shape-4")
    before = replaced["element"]["id"]
    replaced["element"] = {**replaced["element"], "id": "element-other"}
    changed = changes_of(old, new)["shapes"]["changed"]
    assert [(c["shapeId"], c["elementId"], c["elementBefore"]) for c in changed] == [
        ("shape-4", "element-other", before)]


def test_the_diff_is_symmetric_and_deterministic() -> None:
    old = older()
    new = newer(old)
    forward, backward = changes_of(old, new), changes_of(new, old)
    assert shape_ids(backward["shapes"]["added"]) == shape_ids(forward["shapes"]["removed"])
    assert shape_ids(backward["shapes"]["removed"]) == shape_ids(forward["shapes"]["added"])
    assert flows(backward["flows"]["added"]) == flows(forward["flows"]["removed"])
    assert changes_of(old, new) == forward


def test_a_run_of_inserted_shapes_leaves_its_neighbours_unmarked() -> None:
    old = older()
    new = edited(edited(old, insert_after="shape-6", remove="shape-16"), insert_after="shape-6", remove="shape-18",
                 added="shape-newer")
    body = changes_of(old, new)
    assert body["shapes"]["moved"] == []


def test_an_element_written_since_is_changed_without_attributes() -> None:
    old = older()
    element_id = value_of(old, "shape-4")["element"]["id"]
    changes = compare_diagrams(parse_diagram(old), parse_diagram(copy.deepcopy(old)), frozenset({element_id}))
    body = changes.to_json()
    assert body["same"] is False
    assert [(c["shapeId"], c["attributes"], c["writtenSince"]) for c in body["shapes"]["changed"]] == [
        ("shape-4", [], True)]
    assert changes.shape_marks() == {"shape-4": "changed"}
