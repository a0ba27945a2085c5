"""Two versions of a diagram compared through the API (issue 22, item 3): the JSON diff
and the compare drawing, with the render endpoint's checks."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from lxml import etree

from tests.repository.conftest import OTHER_TENANT, TENANT, Api, assert_error
from tests.repository.standin import DRAFT, ORDER
from tests.repository.test_openapi import document, validate
from tests.repository.test_versioned_content import CONTENT, release, update, versions

COMPARE = TENANT + "/_api/rest/diagram/{}/compare/{}/{}"
DRAWING = COMPARE + "/render/{}/{}"
SVG = "{http://www.w3.org/2000/svg}"


def new_revision(api: Api) -> tuple[str, str, str]:
    """ORDER (released) given a task after its last shape and a new English name: the
    released version's id, the new version's id, and the added shape's id."""
    released = api.element(ORDER)
    last = released["content"][-1]["shapeId"]
    body = {"values": [
        {"shapeInfo": {"index": 0, "predecessors": [], "id": last}},
        {"shapeInfo": {"index": 1, "predecessors": [0]},
         "element": {"type": "task", "attributes": {"name": {"1033": "Archive <the> order"}}}},
    ]}
    response = api.post(CONTENT.format(ORDER), body, role="editor", **{"api-version": "3.0"})
    assert response.status_code == 200, response.get_json()
    added = response.get_json()["values"][1]["id"]
    update(api, {"id": ORDER, "attributes": {"name": {"1033": "Order to cash, revised"}}})
    old_version, new_version = (v["versionId"] for v in versions(api, ORDER))
    assert old_version == released["versionId"]
    return old_version, new_version, added


__all__ = ["document"]  # the OpenAPI document, a fixture of test_openapi


def test_compare_names_the_added_shape_its_flow_and_the_renamed_diagram(api: Api, document: dict[str, Any]) -> None:
    old, new, added = new_revision(api)
    path = COMPARE.format(ORDER, old, new)
    response = api.get(path, **{"api-version": "2.0"})
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    validate(document, "GET", path, 200, body)
    assert (body["diagramId"], body["fromVersionId"], body["toVersionId"]) == (ORDER, old, new)
    assert body["same"] is False
    assert [s["shapeId"] for s in body["shapes"]["added"]] == [added]
    assert body["shapes"]["added"][0]["name"] == {"1033": "Archive <the> order"}
    assert body["shapes"]["removed"] == body["shapes"]["changed"] == body["shapes"]["moved"] == []
    assert len(body["flows"]["added"]) == 1 and body["flows"]["added"][0]["targetShapeId"] == added
    assert body["flows"]["removed"] == []
    assert body["diagram"]["attributes"] == [{"name": "name", "cultures": [1033]}]
    # Backwards: the same changes the other way round.
    back = api.get(COMPARE.format(ORDER, new, old)).get_json()
    assert [s["shapeId"] for s in back["shapes"]["removed"]] == [added]
    assert back["shapes"]["added"] == []


def test_a_version_against_itself_and_the_diagram_id_as_its_newest_version(api: Api) -> None:
    old, new, _ = new_revision(api)
    assert api.get(COMPARE.format(ORDER, old, old)).get_json()["same"] is True
    assert api.get(COMPARE.format(ORDER, new, ORDER)).get_json()["same"] is True
    assert api.get(COMPARE.format(ORDER, old, ORDER)).get_json()["same"] is False


def test_the_compare_drawing_marks_the_added_task_and_nothing_else(api: Api) -> None:
    old, new, added = new_revision(api)
    response = api.get(DRAWING.format(ORDER, old, new, 1033, "horizontal"))
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "image/svg+xml"
    assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert response.headers["ETag"] and response.headers["X-Render-Cache"] == "miss"
    root = etree.fromstring(response.data)
    marked = {(o.get("data-shape-id"), o.get("data-change"))
              for o in root.iter(f"{SVG}rect") if "overlay" in (o.get("class") or "") and o.get("data-change")}
    assert marked == {(added, "added")}
    assert "Archive <the> order" in "".join(root.itertext())  # user text stays text
    again = api.get(DRAWING.format(ORDER, old, new, 1033, "horizontal"))
    assert again.data == response.data and again.headers["X-Render-Cache"] == "hit"
    unchanged = api.client.get(DRAWING.format(ORDER, old, new, 1033, "horizontal"),
                               headers={**api.headers("administrator", None),
                                        "If-None-Match": response.headers["ETag"]})
    assert unchanged.status_code == 304


def test_unknown_versions_diagrams_and_bad_requests_are_render_errors(api: Api) -> None:
    old, _, _ = new_revision(api)
    body = assert_error(api.get(COMPARE.format(ORDER, old, "no-such-version")), 404, render=True)
    assert "no-such-version" in body["message"]
    draft_version = api.element(DRAFT)["versionId"]  # a version of another element
    assert_error(api.get(COMPARE.format(ORDER, draft_version, old)), 404, render=True)
    assert_error(api.get(COMPARE.format("ghost", old, old)), 404, render=True)
    assert_error(api.get(DRAWING.format(ORDER, old, old, 1033, "spiral")), 400, render=True)
    assert_error(api.get(DRAWING.format(ORDER, old, old, "english", "horizontal")), 400, render=True)
    assert_error(api.get(COMPARE.format(ORDER, old, old), **{"api-version": "4.0"}), 400, render=True)


def test_another_tenant_sees_neither_the_versions_nor_the_drawing(api: Api) -> None:
    old, new, _ = new_revision(api)
    other = api.other_tokens["administrator"]
    assert_error(api.get(COMPARE.format(ORDER, old, new), token=other), 403, render=True)
    assert_error(api.get(DRAWING.format(ORDER, old, new, 1033, "horizontal"), token=other), 403, render=True)
    on_its_own_path = OTHER_TENANT + f"/_api/rest/diagram/{ORDER}/compare/{old}/{new}"
    assert_error(api.get(on_its_own_path, token=other), 404, render=True)
    assert_error(api.get(COMPARE.format(ORDER, old, new), role=None), 401, render=True)


def test_release_then_compare_keeps_the_released_version_as_it_was(api: Api) -> None:
    old, new, added = new_revision(api)
    release(api, ORDER)
    body = api.get(COMPARE.format(ORDER, old, new)).get_json()
    assert [s["shapeId"] for s in body["shapes"]["added"]] == [added]


def test_a_task_renamed_since_the_release_is_changed_though_it_has_one_state(api: Api) -> None:
    """A task is not versioned: both versions describe it by its one state. Written after
    the released version was saved, it is changed, `writtenSince`; the others are not."""
    released = api.element(ORDER)
    saved = released["attributes"]["changedOn"]["127"]
    while now_stamp() <= saved:  # stamps have seconds: the rename must come after the release's
        time.sleep(0.2)
    renamed = released["content"][2]
    update(api, {"id": renamed["id"], "attributes": {"name": {"1033": "Check the customer's credit"}}})
    old, new, added = new_revision(api)
    body = api.get(COMPARE.format(ORDER, old, new)).get_json()
    assert [(s["shapeId"], s["attributes"], s.get("writtenSince")) for s in body["shapes"]["changed"]] == [
        (renamed["shapeId"], [], True)]
    assert [s["shapeId"] for s in body["shapes"]["added"]] == [added]
    svg = etree.fromstring(api.get(DRAWING.format(ORDER, old, new, 1033, "horizontal")).data)
    marked = {(o.get("data-shape-id"), o.get("data-change")) for o in svg.iter(f"{SVG}rect")
              if o.get("class") == "overlay" and o.get("data-change")}
    assert marked == {(added, "added"), (renamed["shapeId"], "changed")}
    assert api.get(COMPARE.format(ORDER, new, ORDER)).get_json()["same"] is True  # both in process: one state


def now_stamp() -> str:
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
