"""Stable layout through the service (issue 22, item 1): a demo diagram changed through
the API (a task added on a flow, one renamed, one removed) is drawn from its previous
drawing, so every other shape keeps its row and its order; the same content and the
same previous drawing give the same bytes, and the render cache key names the sketch."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from layouts.geometry import Layout
from layouts.stability import Stability
from renderer.sketch_svg import layout_of_svg
from repository.app import create_app
from repository.demo import create_role_tokens, load_demo
from repository.store.sketches import LayoutSketch, SketchRecord
from tests.repository.conftest import Api
from tests.repository.standin import ORDER

TENANT = "/demo/default"
ELEMENTS = TENANT + "/_api/rest/facets/processes/views/{}/elements"
CONTENT = TENANT + "/_api/rest/facets/processes/views/diagram/elements/{}/content"
RENDER = TENANT + "/_api/rest/diagram/{}/render/1033/{}"
STANDIN_RENDER = TENANT + "/_api/rest/diagram/{}/render/1033/horizontal"
LONGER = " and then a much longer description of what exactly happens in this step"


class Demo:
    def __init__(self, app: Flask, token: str) -> None:
        self.app = app
        self.client: FlaskClient = app.test_client()
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str) -> Any:
        response = self.client.get(path, headers=self.headers)
        assert response.status_code == 200, response.data[:300]
        return response

    def post(self, path: str, body: Any) -> Any:
        response = self.client.post(path, json=body, headers=self.headers)
        assert response.status_code == 200, response.data[:300]
        return response.get_json()

    def update(self, element: dict[str, Any]) -> None:
        self.post(ELEMENTS.format("detail"), {"elements": [element]})

    def content(self, diagram_id: str) -> list[dict[str, Any]]:
        element = self.get(ELEMENTS.format("detail") + "/" + diagram_id).get_json()["elements"][0]
        content: list[dict[str, Any]] = element["content"]
        return content

    def svg(self, diagram_id: str, layout_key: str = "horizontal") -> bytes:
        data: bytes = self.get(RENDER.format(diagram_id, layout_key)).data
        return data


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'demo.db'}"})
    with app.extensions["elrepo.sessions"]() as session:
        tokens = create_role_tokens(session, load_demo(session))
        session.commit()
    yield Demo(app, tokens["administrator"])
    app.extensions["elrepo.engine"].dispose()


def largest_diagram(demo: Demo) -> str:
    diagrams = demo.get(ELEMENTS.format("diagram")).get_json()["elements"]
    largest: str = max(diagrams, key=lambda diagram: (len(diagram["content"]), diagram["id"]))["id"]
    return largest


def edit(demo: Demo, diagram_id: str) -> tuple[str, str, str]:
    """A task added on the flow into the first task that has one predecessor, the last
    other task renamed, the one before it removed (its successors take its
    predecessors); the shape ids added, renamed and removed."""
    shapes = demo.content(diagram_id)
    tasks = [shape for shape in shapes if shape["type"] == "task"]
    target = next(task for task in tasks if len(task["predecessors"]) == 1)
    source = target["predecessors"][0]
    others = [task for task in tasks if task is not target and task["shapeId"] != source]
    renamed, removed = others[-1], others[-2]
    added = demo.post(CONTENT.format(diagram_id), {"values": [
        {"shapeInfo": {"index": 0, "id": source, "predecessors": []}},
        {"shapeInfo": {"index": 1, "predecessors": [0]},
         "element": {"type": "task", "attributes": {"name": {"1033": "Check the new rule"}}}}]})["values"][1]["id"]
    entries = []
    for shape in demo.content(diagram_id):
        if shape["shapeId"] == removed["shapeId"]:
            continue
        predecessors = [added if shape["shapeId"] == target["shapeId"] and p == source else p
                        for p in shape["predecessors"]]
        if removed["shapeId"] in predecessors:
            at = predecessors.index(removed["shapeId"])
            predecessors[at:at + 1] = [p for p in removed["predecessors"] if p not in predecessors]
        entries.append({"shapeId": shape["shapeId"], "predecessors": predecessors})
    demo.update({"id": diagram_id, "content": entries})
    names = demo.get(ELEMENTS.format("detail") + "/" + renamed["id"]).get_json()["elements"][0]["attributes"]["name"]
    demo.update({"id": renamed["id"], "attributes": {"name": {"1033": names.get("1033", "Task") + LONGER}}})
    return added, renamed["shapeId"], removed["shapeId"]


@pytest.mark.parametrize("layout_key", ["horizontal", "verticalSwimlane"])
def test_a_changed_demo_diagram_keeps_every_other_shape_in_its_row_and_order(demo: Demo, layout_key: str) -> None:
    diagram_id = largest_diagram(demo)
    before = layout_of_svg(demo.svg(diagram_id, layout_key))
    added, renamed, removed = edit(demo, diagram_id)
    after = layout_of_svg(demo.svg(diagram_id, layout_key))
    drawn = {node.id for node in after.nodes}
    assert added in drawn and renamed in drawn and removed not in drawn
    # every other shape: the renamed one grew (a wider box may now overlap a neighbour's
    # extent, which the order measure counts as a pair no longer apart)
    kept = Stability.between(without(before, renamed), without(after, renamed),
                             vertical=layout_key.startswith("vertical"))
    assert kept.shared == len(before.nodes) - 2
    assert kept.rows_left == 0 and kept.order_kept == 1.0, kept


def without(layout: Layout, shape_id: str) -> Layout:
    return replace(layout, nodes=tuple(node for node in layout.nodes if node.id != shape_id))


def test_same_content_and_previous_drawing_give_the_same_bytes_and_the_key_names_the_sketch(demo: Demo) -> None:
    diagram_id = largest_diagram(demo)
    first = demo.get(RENDER.format(diagram_id, "horizontal"))
    assert demo.get(RENDER.format(diagram_id, "horizontal")).headers["ETag"] == first.headers["ETag"]
    edit(demo, diagram_id)
    changed = demo.get(RENDER.format(diagram_id, "horizontal"))
    assert changed.headers["X-Render-Cache"] == "miss" and changed.headers["ETag"] != first.headers["ETag"]
    # keeping the new drawing's record does not change what the next request asks for
    again = demo.get(RENDER.format(diagram_id, "horizontal"))
    assert again.headers["X-Render-Cache"] == "hit" and again.headers["ETag"] == changed.headers["ETag"]
    demo.app.extensions["elrepo.render_cache"].clear()
    redrawn = demo.get(RENDER.format(diagram_id, "horizontal"))
    assert redrawn.headers["X-Render-Cache"] == "miss" and redrawn.data == changed.data
    assert redrawn.headers["ETag"] == changed.headers["ETag"]
    with demo.app.extensions["elrepo.sessions"]() as session:
        rows = session.execute(select(LayoutSketch.layout_key, LayoutSketch.culture, LayoutSketch.base)).all()
    # the diagram's version is in process, so the edits changed it: its one row now holds
    # the new drawing, drawn from the first one (its base)
    assert [(key, culture, bool(base)) for key, culture, base in rows] == [("horizontal", 1033, True)]


def test_a_record_gives_its_base_at_the_generation_it_was_drawn_at_else_its_drawing() -> None:
    record = SketchRecord(version_pk=5, generation=40, sketch="drawn", base="before")
    assert record.sketch_for(5, 40) == "before"  # the same content: drawn as it was
    assert record.sketch_for(5, 41) == "drawn"  # written since: from the last drawing
    assert record.sketch_for(6, 41) == "drawn"  # a newer version: from the older one's drawing


def test_only_flow_layouts_keep_a_sketch(demo: Demo) -> None:
    diagram_id = largest_diagram(demo)
    demo.svg(diagram_id, "processMatrix")
    with demo.app.extensions["elrepo.sessions"]() as session:
        assert session.scalars(select(LayoutSketch.pk)).all() == []


def test_a_new_version_is_drawn_from_the_released_versions_drawing(api: Api) -> None:
    # on the stand-in tenant (SQLite, and PostgreSQL when ELREPO_TEST_DATABASE_URL is set)
    order_svg = STANDIN_RENDER.format(ORDER)
    released = api.element(ORDER)
    before = layout_of_svg(api.get(order_svg).data)
    kept_shapes = [shape["shapeId"] for shape in released["content"][:-1]]  # the end event removed
    response = api.post(ELEMENTS.format("detail"), {"elements": [
        {"id": ORDER, "content": [{"shapeId": shape_id} for shape_id in kept_shapes]}]}, role="editor")
    assert response.status_code == 200, response.get_json()
    assert api.element(ORDER)["versionId"] != released["versionId"]  # a new version
    after = layout_of_svg(api.get(order_svg).data)
    kept = Stability.between(before, after, vertical=False)
    assert kept.shared == len(kept_shapes) and kept.rows_left == 0 and kept.order_kept == 1.0
    with api.store() as store:
        rows = store.session.execute(select(LayoutSketch.version_pk, LayoutSketch.base)
                                     .order_by(LayoutSketch.version_pk)).all()
    # the released version's row (drawn fresh) and the new version's, drawn from it
    assert len(rows) == 2 and rows[0].base == "" and rows[1].base != ""
