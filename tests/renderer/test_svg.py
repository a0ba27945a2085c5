"""The SVG writer against docs/contract.md, "SVG contract", on hand-built layouts (no layout pipeline)."""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from layouts.geometry import Box, EdgeRoute, LaneBand, Layout, NodeBox
from renderer.markup import fmt
from renderer.scene import Scene, ShapeView
from renderer.svg import ARROW_MARKER_ID, write_svg
from renderer.symbols import Circle, Polygon, Rect, Stroke, symbol_for
from renderer.text import FONT_FAMILY
from tests.conftest import attribute
from tests.renderer.svg_scenes import (
    FLOW_TYPES,
    ROLES,
    SVG_NS,
    by_class,
    flow,
    hostile,
    matrix,
    parse,
    single,
)

SHARED_TOOLS = Path(__file__).resolve().parents[3] / "shared" / "tools"


# --------------------------------------------------------------------------- root


def test_root_attributes() -> None:
    layout, scene = flow()
    root = parse(write_svg(layout, scene))
    assert root.tag == SVG_NS + "svg"
    assert root.get("viewBox") == "0 0 1470 220"
    assert (root.get("width"), root.get("height")) == ("1470", "220")
    assert root.get("data-diagram-id") == "diagram-1"
    assert root.get("data-layout") == "swimlaneHorizontal"
    assert root.get("font-family") == FONT_FAMILY


def test_same_input_same_bytes() -> None:
    layout, scene = flow()
    reordered = Scene(scene.diagram_id, scene.layout_key, dict(reversed(scene.shapes.items())),
                      scene.lanes, scene.edge_labels)
    first = write_svg(layout, scene)
    assert write_svg(layout, scene) == first
    assert write_svg(layout, reordered) == first


def test_no_ids_timestamps_or_unrounded_numbers() -> None:
    svg = write_svg(*flow())
    ids = [e.get("id") for e in parse(svg).iter() if e.get("id") is not None]
    assert ids == [ARROW_MARKER_ID]
    assert not re.search(r"\d\.\d{3}", svg)
    assert "-0 " not in svg and '"-0"' not in svg


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1"), (1.5, "1.5"), (1.256, "1.26"), (-0.001, "0"), (-0.0, "0"), (-2.5, "-2.5"),
    (100.10, "100.1"), (0.004, "0"),
])
def test_fmt(value: float, text: str) -> None:
    assert fmt(value) == text


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_fmt_refuses_non_finite(value: float) -> None:
    with pytest.raises(ValueError):
        fmt(value)


# --------------------------------------------------------------------------- overlays


def test_one_overlay_per_node_with_exact_box_and_ids() -> None:
    layout, scene = flow()
    root = parse(write_svg(layout, scene))
    overlays = by_class(root, "rect", "overlay")
    assert len(overlays) == len(layout.nodes)
    for node, rect in zip(layout.nodes, overlays):
        view = scene.shapes[node.id]
        assert [float(attribute(rect, k)) for k in ("x", "y", "width", "height")] == pytest.approx(
            [node.box.x, node.box.y, node.box.w, node.box.h], abs=0.005)
        assert rect.get("fill") == "transparent"
        assert rect.get("data-shape-id") == view.shape_id
        assert rect.get("data-guid") == view.guid
        assert rect.get("data-type") == view.type
        assert rect.get("data-diagram-id") == "diagram-1"
        assert rect.get("data-lane-id") == view.lane_id


def test_overlays_are_the_last_untransformed_group() -> None:
    root = parse(write_svg(*flow()))
    last = root[-1]
    assert last.tag == SVG_NS + "g" and last.get("class") == "overlays"
    assert last.get("transform") is None
    assert all(child.get("class") == "overlay" for child in last)
    assert len(by_class(root, "rect", "overlay")) == len(last)


def test_no_lane_id_without_lane() -> None:
    root = parse(write_svg(*single("task")))
    assert by_class(root, "rect", "overlay")[0].get("data-lane-id") is None


def test_empty_layout_still_has_overlay_group() -> None:
    root = parse(write_svg(Layout(0, 0, ()), Scene("d", "layered", {})))
    assert root[-1].get("class") == "overlays" and len(root[-1]) == 0


# --------------------------------------------------------------------------- edges


def test_connectors_use_absolute_mlhv_and_the_arrow() -> None:
    layout, scene = flow()
    root = parse(write_svg(layout, scene))
    paths = by_class(root, "path", "connector")
    assert len(paths) == len(layout.edges)
    number = r"-?\d+(\.\d+)?"
    grammar = re.compile(rf"M {number} {number}( (H {number}|V {number}|L {number} {number}))*")
    for route, path in zip(layout.edges, paths):
        assert grammar.fullmatch(attribute(path, "d"))
        assert path.get("data-source-shape-id") == scene.shapes[route.source].shape_id
        assert path.get("data-target-shape-id") == scene.shapes[route.target].shape_id
        assert path.get("fill") == "none"
        assert path.get("marker-end") == f"url(#{ARROW_MARKER_ID})"
    assert paths[0].get("d") == "M 100 50 H 110 V 60 H 200.25"


def test_path_drops_points_that_coincide_after_rounding() -> None:
    layout, scene = single("task")
    route = EdgeRoute("n", "n", ((0, 0), (0.001, 0), (10, 0), (10, 0), (20, 5)))
    root = parse(write_svg(Layout(200, 100, layout.nodes, (route,)), scene))
    assert by_class(root, "path", "connector")[0].get("d") == "M 0 0 H 10 L 20 5"


def test_arrow_marker_is_a_filled_triangle_oriented_auto() -> None:
    root = parse(write_svg(*flow()))
    marker = root.find(f"{SVG_NS}defs/{SVG_NS}marker")
    assert marker is not None and marker.get("id") == ARROW_MARKER_ID
    assert marker.get("orient") == "auto"
    triangle = marker.find(SVG_NS + "polygon")
    assert triangle is not None and len(attribute(triangle, "points").split()) == 3
    assert triangle.get("fill") not in (None, "none")


def test_edge_label_on_white_ground_after_all_connectors() -> None:
    root = parse(write_svg(*flow()))
    labels = by_class(root, "g", "edge-label")
    assert len(labels) == 1
    ground, text = labels[0]
    assert ground.get("fill") == "#ffffff" and "".join(text.itertext()) == "yes"
    groups = [g.get("class") for g in root if g.tag == SVG_NS + "g"]
    assert groups.index("edge-labels") == groups.index("edges") + 1


def test_connector_ends_are_shape_ids_not_node_ids() -> None:
    scene = Scene("d", "entityRelationship", {
        "node-a": ShapeView("A", "A", "product", role="entity"),
        "node-b": ShapeView("B", "B", "system", role="entity")})
    nodes = (NodeBox("node-a", Box(0, 0, 50, 50)), NodeBox("node-b", Box(100, 0, 50, 50)))
    layout = Layout(300, 100, nodes, (EdgeRoute("node-a", "node-b", ((50, 25), (100, 25))),))
    path = by_class(parse(write_svg(layout, scene)), "path", "connector")[0]
    assert (path.get("data-source-shape-id"), path.get("data-target-shape-id")) == ("A", "B")


# --------------------------------------------------------------------------- lanes, cells


def test_lanes_hold_body_header_and_name() -> None:
    layout, scene = flow()
    root = parse(write_svg(layout, scene))
    lanes = by_class(root, "g", "lane")
    assert [g.get("data-lane-id") for g in lanes] == ["L1", "L2"]
    body = by_class(lanes[0], "rect", "lane-body")[0]
    assert [body.get(k) for k in ("x", "y", "width", "height")] == ["10", "10", "1450", "100"]
    name = lanes[1].find(SVG_NS + "text")
    assert name is not None and name.get("transform") == "rotate(-90 25 160)"
    assert [t.text for t in name] == ["Back", "office"]


def test_wide_lane_header_is_not_rotated() -> None:
    layout, scene = flow()
    lanes = (LaneBand("L1", Box(10, 10, 200, 600), Box(10, 10, 200, 30)),)
    root = parse(write_svg(Layout(1470, 220, layout.nodes, layout.edges, lanes), scene))
    name = by_class(root, "g", "lane")[0].find(SVG_NS + "text")
    assert name is not None and name.get("transform") is None and name.text == "Sales"


def test_matrix_cells_marks_and_legend() -> None:
    layout, scene = matrix()
    root = parse(write_svg(layout, scene))
    cells = by_class(root, "rect", "matrix-cell")
    assert [(c.get("data-row-id"), c.get("data-column-id")) for c in cells] == [
        (cell.row_id, cell.column_id) for cell in layout.cells]
    marks = [t.text for group in by_class(root, "g", "cells") for t in group.findall(SVG_NS + "text")]
    assert marks == ["E, R"]
    legend = by_class(root, "g", "legend")[0]
    assert ["".join(t.itertext()) for t in legend.iter(SVG_NS + "tspan")] == [
        "E \u2013 executed by", "R \u2013 responsible"]
    assert float(attribute(root, "height")) > layout.height
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"


# --------------------------------------------------------------------------- symbols


def node_markup(svg: str) -> bytes:
    """The drawn symbol of the only node, without its label text."""
    group = by_class(parse(svg), "g", "node")[0]
    for text in group.findall(SVG_NS + "text"):
        group.remove(text)
    return etree.tostring(group)


def test_every_type_and_role_draws_something_distinct() -> None:
    kinds = [single(kind) for kind in FLOW_TYPES] + [single("x", role=role) for role in ROLES]
    drawings = [node_markup(write_svg(*case)) for case in kinds]
    assert len(set(drawings)) == len(drawings)
    assert all(b"<rect" in d or b"<circle" in d or b"<polygon" in d for d in drawings)


def test_unknown_type_shows_its_name_as_a_note() -> None:
    root = parse(write_svg(*single("mainProcess")))
    texts = {t.text: t for t in root.iter(SVG_NS + "text")}
    assert texts["mainProcess"].get("font-style") == "italic"
    assert "A label" in texts


def test_event_label_goes_in_its_outside_box() -> None:
    layout, scene = flow()
    root = parse(write_svg(layout, scene))
    start = next(g for g in root.iter(SVG_NS + "g") if "symbol-start" in (g.get("class") or ""))
    text = start.find(SVG_NS + "text")
    assert text is not None and float(attribute(text, "y")) > layout.nodes[0].box.bottom


@pytest.mark.parametrize("kind", FLOW_TYPES + ROLES)
def test_symbol_parts_stay_inside_the_box(kind: str) -> None:
    role = kind if kind in ROLES else "shape"
    box = Box(10, 20, 90, 50)
    symbol = symbol_for(ShapeView("n", "g", kind, ("a", "b"), role=role), box, 15.0, 12.0)
    for part in symbol.parts:
        if isinstance(part, Rect):
            xs, ys = [part.box.x, part.box.right], [part.box.y, part.box.bottom]
        elif isinstance(part, Circle):
            reach = part.r + part.style.stroke_width / 2
            xs, ys = [part.cx - reach, part.cx + reach], [part.cy - reach, part.cy + reach]
        else:
            assert isinstance(part, (Polygon, Stroke))
            xs, ys = [p[0] for p in part.points], [p[1] for p in part.points]
        assert box.x - 1e-9 <= min(xs) and max(xs) <= box.right + 1e-9
        assert box.y - 1e-9 <= min(ys) and max(ys) <= box.bottom + 1e-9
    area = symbol.label_area
    assert box.x <= area.x and area.right <= box.right
    assert box.y <= area.y and area.bottom <= box.bottom


def test_containers_are_drawn_under_the_edges() -> None:
    scene = Scene("d", "graphic", {
        "c": ShapeView("c", "c", "processHouse", ("House",), role="container"),
        "a": ShapeView("a", "a", "mainProcess", ("A",), role="leaf"),
        "b": ShapeView("b", "b", "mainProcess", ("B",), role="leaf")})
    layout = Layout(300, 200, (NodeBox("c", Box(0, 0, 300, 200)), NodeBox("a", Box(10, 40, 50, 50)),
                               NodeBox("b", Box(100, 40, 50, 50))),
                    (EdgeRoute("a", "b", ((60, 65), (100, 65))),))
    groups = [g.get("class") for g in parse(write_svg(layout, scene)) if g.tag == SVG_NS + "g"]
    assert groups.index("containers") < groups.index("edges") < groups.index("nodes")


# --------------------------------------------------------------------------- shared checker


@pytest.mark.parametrize("case", [flow, matrix, hostile])
def test_shared_checker_finds_no_issues(case: Callable[[], tuple[Layout, Scene]]) -> None:
    if not (SHARED_TOOLS / "svgmetrics.py").exists():
        pytest.skip(f"shared checker not available at {SHARED_TOOLS}")
    sys.path.insert(0, str(SHARED_TOOLS))
    try:
        import svgmetrics
    finally:
        sys.path.remove(str(SHARED_TOOLS))
    layout, scene = case()
    geometry = svgmetrics.geometry_from_svg(write_svg(layout, scene))
    assert geometry["svg_issues"] == []
    assert len(geometry["nodes"]) == len(layout.nodes)
    assert len(geometry["edges"]) == len(layout.edges)
