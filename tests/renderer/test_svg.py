"""The SVG writer against docs/contract.md, "SVG contract", on hand-built layouts (no layout pipeline)."""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from layouts.geometry import Box, Cell, EdgeRoute, LaneBand, Layout, NodeBox
from renderer.markup import clean_text, fmt
from renderer.scene import LaneView, Scene, ShapeView
from renderer.svg import ARROW_MARKER_ID, write_svg
from renderer.symbols import Circle, Polygon, Rect, Stroke, symbol_for
from renderer.text import FONT_FAMILY
from tests.conftest import attribute

SVG_NS = "{http://www.w3.org/2000/svg}"
SHARED_TOOLS = Path(__file__).resolve().parents[3] / "shared" / "tools"
HOSTILE = '<script>alert(1)</script>" onload="x\' &amp; ]]>'
FLOW_TYPES = ("evStart", "task", "subProcess", "ruleXor", "ruleAnd", "condition",
              "evIntermediate", "processInterfacePlaceholder", "evEnd", "mainProcess")
ROLES = ("container", "leaf", "entity", "satellite", "row", "column")


def parse(svg: str) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    return etree.fromstring(svg.encode("utf-8"), parser)


def by_class(root: etree._Element, tag: str, cls: str) -> list[etree._Element]:
    return [e for e in root.iter(SVG_NS + tag) if cls in (e.get("class") or "").split()]


def flow() -> tuple[Layout, Scene]:
    """One node of every flow type in a row over two horizontal lanes, chained by
    edges; the second edge has a label."""
    nodes, shapes, edges = [], {}, []
    for i, kind in enumerate(FLOW_TYPES):
        small = kind.startswith(("ev", "rule"))
        box = Box(60 + i * 140.25, 30, 40 if small else 110.5, 40 if small else 60)
        label = Box(box.x - 10, box.bottom + 4, 60, 16) if small else None
        node_id = f"n{i}"
        lane = "L1" if i % 2 == 0 else "L2"
        nodes.append(NodeBox(node_id, box, label))
        shapes[node_id] = ShapeView(f"shape-{i}", f"guid-{i}", kind, (f"Step {i}",), lane)
        if i:
            prev = nodes[i - 1].box
            points = ((prev.right, prev.cy), (prev.right + 10, prev.cy),
                      (prev.right + 10, box.cy), (box.x, box.cy))
            label_box = Box(prev.right + 2, prev.cy - 20, 30, 14) if i == 2 else None
            edges.append(EdgeRoute(f"n{i - 1}", node_id, points, label_box, key=f"e{i}"))
    lanes = (LaneBand("L1", Box(10, 10, 1450, 100), Box(10, 10, 30, 100)),
             LaneBand("L2", Box(10, 110, 1450, 100), Box(10, 110, 30, 100)))
    scene = Scene("diagram-1", "swimlaneHorizontal", shapes,
                  {"L1": LaneView("L1", ("Sales",)), "L2": LaneView("L2", ("Back", "office"))},
                  {"e2": ("yes",)})
    return Layout(1470, 220, tuple(nodes), tuple(edges), lanes), scene


def matrix() -> tuple[Layout, Scene]:
    rows, cols = ("r1", "r2"), ("c1", "c2", "c3")
    nodes = [NodeBox(r, Box(10, 50 + 30 * i, 100, 30)) for i, r in enumerate(rows)]
    nodes += [NodeBox(c, Box(110 + 60 * j, 10, 60, 40)) for j, c in enumerate(cols)]
    shapes = {r: ShapeView(r, r, "task", (r.upper(),), role="row") for r in rows}
    shapes |= {c: ShapeView(c, c, "orgUnit", (c.upper(),), role="column") for c in cols}
    cells = tuple(Cell(r, c, Box(110 + 60 * j, 50 + 30 * i, 60, 30))
                  for i, r in enumerate(rows) for j, c in enumerate(cols))
    scene = Scene("m-1", "processMatrix", shapes, cell_marks={("r1", "c2"): "E, R"},
                  legend=(("E", "executed by"), ("R", "responsible")))
    return Layout(300, 120, tuple(nodes), cells=cells), scene


def single(kind: str, role: str = "shape") -> tuple[Layout, Scene]:
    scene = Scene("d", "layered", {"n": ShapeView("n", "g", kind, ("A label",), role=role)})
    return Layout(200, 100, (NodeBox("n", Box(20, 20, 120, 60)),)), scene


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


# --------------------------------------------------------------------------- hostile text


def hostile() -> tuple[Layout, Scene]:
    view = ShapeView(HOSTILE, HOSTILE + "g", HOSTILE + "t", (HOSTILE,), HOSTILE)
    other = ShapeView(HOSTILE + "2", "g2", "task", (HOSTILE,), HOSTILE)
    scene = Scene(HOSTILE, HOSTILE, {"a": view, "b": other},
                  {HOSTILE: LaneView(HOSTILE, (HOSTILE,))}, {"k": (HOSTILE,)},
                  {(HOSTILE, HOSTILE): HOSTILE}, ((HOSTILE, HOSTILE),))
    nodes = (NodeBox("a", Box(50, 10, 100, 60)), NodeBox("b", Box(200, 10, 100, 60)))
    layout = Layout(400, 200, nodes,
                    (EdgeRoute("a", "b", ((150, 40), (200, 40)), Box(160, 10, 30, 14), "k"),),
                    (LaneBand(HOSTILE, Box(0, 0, 400, 100), Box(0, 0, 30, 100)),),
                    (Cell(HOSTILE, HOSTILE, Box(0, 100, 50, 50)),))
    return layout, scene


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
