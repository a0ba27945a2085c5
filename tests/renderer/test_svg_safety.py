"""The SVG writer keeps user text inert and refuses what it cannot draw faithfully
(docs/contract.md, "SVG contract"), on hand-built layouts."""
from __future__ import annotations

import re

import pytest
from lxml import etree

from layouts.geometry import Box, EdgeRoute, Layout, NodeBox
from renderer.markup import clean_text
from renderer.scene import Scene, ShapeView
from renderer.svg import write_svg
from tests.renderer.svg_scenes import HOSTILE, SVG_NS, by_class, hostile, parse, single

# --------------------------------------------------------------------------- hostile text


def assert_no_active_content(root: etree._Element) -> None:
    for element in root.iter():
        forbidden = ("script", "foreignObject", "image", "a", "use")
        assert etree.QName(element).localname not in forbidden
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on")
            assert "href" not in name
            assert not re.match(r"\s*(url\()?\s*(https?:|javascript:|data:)", value, re.I)
        assert "@import" not in (element.text or "")


def test_hostile_labels_and_ids_stay_text_and_attribute_values() -> None:
    root = parse(write_svg(*hostile()))
    assert_no_active_content(root)
    assert root.get("data-diagram-id") == HOSTILE
    overlay = by_class(root, "rect", "overlay")[0]
    assert overlay.get("data-shape-id") == HOSTILE
    assert overlay.get("data-type") == HOSTILE + "t"
    assert overlay.get("data-lane-id") == HOSTILE
    connector = by_class(root, "path", "connector")[0]
    assert connector.get("data-source-shape-id") == HOSTILE
    assert by_class(root, "g", "lane")[0].get("data-lane-id") == HOSTILE
    assert by_class(root, "rect", "matrix-cell")[0].get("data-row-id") == HOSTILE
    texts = ["".join(t.itertext()) for t in root.iter(SVG_NS + "text")]
    assert texts.count(HOSTILE) >= 4


def test_control_characters_and_lone_surrogates_are_removed() -> None:
    dirty = "a\x00b\x08c\x0bd\x0ce\x1ff\ud800g\udfffh\ufffei\uffffj\U0001F600"
    assert clean_text(dirty) == "abcdefghij\U0001F600"
    assert clean_text("tab\tnew\nline\r") == "tab\tnew\nline\r"
    layout, _ = single("task")
    scene = Scene("d\x00", "layered", {"n": ShapeView("n\x01", "g\x02", "task", (dirty,), "l\x03")})
    svg = write_svg(layout, scene)
    svg.encode("utf-8")
    root = parse(svg)
    assert root.get("data-diagram-id") == "d"
    overlay = by_class(root, "rect", "overlay")[0]
    ids = [overlay.get(f"data-{name}") for name in ("shape-id", "guid", "lane-id")]
    assert ids == ["n", "g", "l"]
    assert "abcdefghij\U0001F600" in [t.text for t in root.iter(SVG_NS + "text")]


# --------------------------------------------------------------------------- refusals


def test_node_without_view_is_refused() -> None:
    layout, _ = single("task")
    with pytest.raises(ValueError, match="no ShapeView"):
        write_svg(layout, Scene("d", "layered", {}))


def test_edge_to_unknown_node_is_refused() -> None:
    layout, scene = single("task")
    with pytest.raises(ValueError, match="edge end"):
        write_svg(Layout(1, 1, layout.nodes, (EdgeRoute("n", "ghost", ((0, 0), (1, 1))),)), scene)


def test_duplicate_shape_ids_are_refused() -> None:
    twin = ShapeView("s", "g", "task")
    scene = Scene("d", "layered", {"a": twin, "b": twin})
    nodes = (NodeBox("a", Box(0, 0, 1, 1)), NodeBox("b", Box(2, 0, 1, 1)))
    with pytest.raises(ValueError, match="share one shape id"):
        write_svg(Layout(1, 1, nodes), scene)


@pytest.mark.parametrize("field", ["shape_id", "guid", "type", "lane_id"])
def test_empty_ids_are_refused(field: str) -> None:
    values = {"shape_id": "s", "guid": "g", "type": "task", "lane_id": "l", field: "\x00"}
    view = ShapeView(values["shape_id"], values["guid"], values["type"], lane_id=values["lane_id"])
    scene = Scene("d", "layered", {"n": view})
    with pytest.raises(ValueError, match="empty"):
        write_svg(Layout(1, 1, (NodeBox("n", Box(0, 0, 1, 1)),)), scene)
