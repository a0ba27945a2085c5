"""The element-drawing layouts (detailed, graphic, matrices, entityRelationship) on the
demo tenant and the corpus fixtures: what each guarantees, checked on the ``Layout``
its strategy returns for the graph its builder makes; plus the awkward inputs."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Box, Layout
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.packing import pack_rows
from layouts.registry import get_strategy
from renderer.api import BUILDERS
from renderer.model import parse_diagram
from renderer.scene import Scene
from renderer.text import load_font
from tests.conftest import FIXTURES, load_fixture
from tests.demo_fixtures import demo_fixtures
from tests.geometry_checks import (
    edges_through_shapes, endpoint_problems, non_orthogonal_segments, overlapping_pairs, within_canvas,
)

LAYOUTS = ("detailed", "graphic", "processMatrix", "customerMatrix", "entityRelationship")
CORPUS = sorted((FIXTURES / "corpus").glob("*.json"))
DEMO = demo_fixtures()
CASES: dict[str, Any] = {**{f"demo/{k}": v for k, v in DEMO.items()},
                         **{f"corpus/{p.stem}": load_fixture(p) for p in CORPUS}}


def laid_out(fixture: Any, key: str) -> tuple[LayoutGraph, Scene, Layout]:
    graph, scene = BUILDERS[key](parse_diagram(fixture), "1033", load_font(), key)
    strategy = get_strategy(key)
    return graph, scene, strategy.layout(graph, LayoutOptions())


def inside(inner: Box, outer: Box, tolerance: float = 0.01) -> bool:
    return (inner.x >= outer.x - tolerance and inner.y >= outer.y - tolerance
            and inner.right <= outer.right + tolerance and inner.bottom <= outer.bottom + tolerance)


def intersects(a: Box, b: Box, tolerance: float = 0.5) -> bool:
    return min(a.right, b.right) - max(a.x, b.x) > tolerance and min(a.bottom, b.bottom) - max(a.y, b.y) > tolerance


def ancestors(graph: LayoutGraph, node_id: str) -> Iterator[str]:
    parent = graph.node(node_id).parent
    while parent is not None:
        yield parent
        parent = graph.node(parent).parent


# --------------------------------------------------------------------------- all keys
@pytest.mark.parametrize("key", LAYOUTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_layout_keeps_its_invariants(case: str, key: str) -> None:
    graph, scene, layout = laid_out(CASES[case], key)
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in graph.nodes)
    assert set(scene.shapes) == {n.id for n in layout.nodes}
    assert edges_through_shapes(layout) == []
    assert non_orthogonal_segments(layout) == []
    assert endpoint_problems(layout) == []
    assert within_canvas(layout)
    if key == "graphic":  # nested boxes: a pair may only overlap as ancestor and descendant
        for a, b in overlapping_pairs(layout):
            assert a in ancestors(graph, b) or b in ancestors(graph, a), (a, b)
    else:
        assert overlapping_pairs(layout) == []
    assert get_strategy(key).layout(graph, LayoutOptions()) == layout


# --------------------------------------------------------------------------- detailed
@pytest.mark.parametrize("case", sorted(CASES))
def test_detailed_keeps_the_whole_flow_and_puts_satellites_beside_their_task(case: str) -> None:
    graph, _, layout = laid_out(CASES[case], "detailed")
    flow, _ = BUILDERS["vertical"](parse_diagram(CASES[case]), "1033", load_font(), "vertical")
    assert [(e.source, e.target) for e in layout.edges][:len(flow.edges)] == [(e.source, e.target) for e in flow.edges]
    boxes = {n.id: n for n in layout.nodes}
    for node in graph.nodes:
        if node.role != "satellite":
            continue
        assert node.parent is not None
        host, satellite = boxes[node.parent].box, boxes[node.id].box
        assert boxes[node.parent].label is None
        assert satellite.y < host.bottom + 4 * satellite.h and satellite.bottom > host.y - 4 * satellite.h
        assert satellite.x >= host.right or satellite.right <= host.x


def test_demo_tasks_get_their_inputs_outputs_org_units_systems_and_documents() -> None:
    graph, scene, _ = laid_out(DEMO["order-to-cash"], "detailed")
    task = next(s for s in parse_diagram(DEMO["order-to-cash"]).shapes
                if s.element.text("name", "1033") == "Post incoming payment")
    satellites = [scene.shapes[n.id] for n in graph.nodes if n.parent == task.shape_id]
    assert [v.type for v in satellites] == ["inOut", "inOut", "orgUnit", "system"]
    assert [v.lines for v in satellites][:2] == [("Payment advice",), ("Invoice",)]
    inputs = [e for e in graph.edges if e.target == task.shape_id and e.key.startswith("sat:")]
    assert len(inputs) == 2  # inputs flow into the task, the rest point away from it


def test_a_satellite_host_with_its_own_outside_label_is_refused() -> None:
    graph = LayoutGraph((LayoutNode("g", "ruleXor", 50, 50, 60, 30),
                         LayoutNode("s", "orgUnit", 100, 25, role="satellite", parent="g")),
                        (LayoutEdge("g", "s"),))
    with pytest.raises(LayoutError):
        get_strategy("detailed").layout(graph, LayoutOptions())


# --------------------------------------------------------------------------- graphic
def test_graphic_nests_the_process_house_below_each_header() -> None:
    graph, scene, layout = laid_out(DEMO["house"], "graphic")
    boxes = {n.id: n.frame or n.box for n in layout.nodes}
    headers = {n.id: n.box for n in layout.nodes}
    roles = {n.id: n.role for n in graph.nodes}
    assert list(roles.values()).count("container") == 8  # house, 3 categories, 4 main processes with children
    for node in graph.nodes:
        if node.parent is not None:
            parent = graph.node(node.parent)
            header = Box(boxes[parent.id].x, boxes[parent.id].y, boxes[parent.id].w, parent.height)
            assert headers[parent.id] == header  # a container's overlay is its header strip
            assert inside(boxes[node.id], boxes[parent.id])
            assert not intersects(boxes[node.id], header)
    assert 0.75 < layout.width / layout.height < 2.0
    assert [layout.nodes[0].id] == [parse_diagram(DEMO["house"]).id]  # frames drawn before what they hold


def test_graphic_of_an_element_without_children_is_one_box() -> None:
    graph, scene, layout = laid_out(load_fixture(FIXTURES / "corpus" / "gateway.loop-back.json"), "graphic")
    assert [n.role for n in graph.nodes] == ["leaf"] and len(layout.nodes) == 1


def test_graphic_survives_parent_cycles_and_unknown_parents() -> None:
    nodes = (LayoutNode("a", "x", 100, 30, role="container", parent="b"),
             LayoutNode("b", "x", 100, 30, role="container", parent="a"),
             LayoutNode("c", "x", 80, 40, role="leaf", parent="a"),
             LayoutNode("d", "x", 80, 40, role="leaf", parent="missing"))
    layout = get_strategy("graphic").layout(LayoutGraph(nodes, ()), LayoutOptions())
    assert sorted(n.id for n in layout.nodes) == ["a", "b", "c", "d"]


def test_packing_approaches_the_aspect_and_keeps_order() -> None:
    packing = pack_rows([(100.0, 50.0)] * 12, 10.0, 4 / 3)
    assert [i for row in packing.rows for i in row] == list(range(12))
    assert 1.0 < packing.width / packing.height < 2.0
    assert pack_rows([], 10.0, 1.0).width == 0.0


# --------------------------------------------------------------------------- matrices
@pytest.mark.parametrize("key", ["processMatrix", "customerMatrix"])
@pytest.mark.parametrize("case", ["demo/order-to-cash", "demo/house", "corpus/lane.cross-lane-sequence-flow"])
def test_matrix_cells_tile_the_grid_under_their_headers(case: str, key: str) -> None:
    graph, scene, layout = laid_out(CASES[case], key)
    boxes = {n.id: n.box for n in layout.nodes}
    rows = [n.id for n in graph.nodes if n.role == "row"]
    columns = [n.id for n in graph.nodes if n.role == "column"]
    assert [(c.row_id, c.column_id) for c in layout.cells] == [(r, c) for r in rows for c in columns]
    for cell in layout.cells:
        assert (cell.box.y, cell.box.h) == (boxes[cell.row_id].y, boxes[cell.row_id].h)
        assert (cell.box.x, cell.box.w) == (boxes[cell.column_id].x, boxes[cell.column_id].w)
    assert set(scene.cell_marks) <= {(c.row_id, c.column_id) for c in layout.cells}
    marks = set("".join(scene.cell_marks.values()).replace("/", "")) if key == "processMatrix" else \
        {m for v in scene.cell_marks.values() for m in v.split("/")}
    assert marks <= {mark for mark, _ in scene.legend} | set("".join(m for m, _ in scene.legend))


def test_process_matrix_of_the_house_marks_every_context() -> None:
    _, scene, _ = laid_out(DEMO["house"], "processMatrix")
    diagram = parse_diagram(DEMO["house"])
    by_name = {e.text("name", "1033"): e.id for e in diagram.elements.values()}
    assert scene.cell_marks[(by_name["Order to cash"], by_name["Sales"])] == "ER"
    assert scene.cell_marks[(by_name["Credit check"], by_name["Management board"])] == "I"
    assert scene.legend == (("E", "executedBy"), ("R", "responsible"), ("C", "contributes"), ("I", "informed"))


def test_customer_matrix_marks_inputs_and_outputs() -> None:
    _, scene, _ = laid_out(DEMO["house"], "customerMatrix")
    diagram = parse_diagram(DEMO["house"])
    by_name = {e.text("name", "1033"): e.id for e in diagram.elements.values()}
    assert scene.cell_marks[(by_name["Plan to produce"], by_name["Custom gearbox"])] == "In/Out"
    assert scene.cell_marks[(by_name["On-site maintenance"], by_name["Repair service"])] == "Out"


def test_a_matrix_with_hundreds_of_rows_stays_readable() -> None:
    long_name = "Check and approve the incoming supplier invoice against order and goods receipt " * 2
    units = [{"id": f"u{i}", "type": "orgUnit", "facetName": "organization",
              "attributes": {"name": {"1033": f"Department number {i} of the extended organization"}}}
             for i in range(12)]
    values = [{"shapeInfo": {"index": i, "predecessors": [i - 1] if i else []},
               "element": {"type": "task", "attributes": {"name": {"1033": f"{i} {long_name}"}},
                           "related": {"executedBy": [{"id": f"u{i % 12}"}]}}} for i in range(400)]
    fixture = {"diagram": {"id": "big", "type": "mainProcess"}, "elements": units, "values": values}
    graph, scene, layout = laid_out(fixture, "processMatrix")
    font = load_font()
    assert overlapping_pairs(layout) == []
    assert len(layout.cells) == 400 * 12 and len({n.box.h for n in layout.nodes if n.id not in
                                                  {u["id"] for u in units}}) == 1
    for node in layout.nodes:
        view = scene.shapes[node.id]
        assert 1 <= len(view.lines) <= 4
        assert all(font.text_width(line, scene.font_size) <= node.box.w - 8 for line in view.lines)
        assert len(view.lines) * font.line_height(scene.font_size) <= node.box.h


def test_a_matrix_without_columns_is_its_row_headers() -> None:
    graph, scene, layout = laid_out(load_fixture(FIXTURES / "corpus" / "gateway.nested.json"), "customerMatrix")
    assert layout.cells == () and {n.role for n in graph.nodes} == {"row"} and layout.nodes
    assert get_strategy("processMatrix").layout(LayoutGraph((), ()), LayoutOptions()).nodes == ()


# --------------------------------------------------------------------------- entity-relationship
@pytest.mark.parametrize("case", sorted(CASES))
def test_entity_labels_sit_on_their_routes_and_cover_no_shape(case: str) -> None:
    graph, scene, layout = laid_out(CASES[case], "entityRelationship")
    labels = [route.label for route in layout.edges if route.label is not None]
    for route in layout.edges:
        label = route.label or next(r.label for r in layout.edges if r.key == route.key and r.target == route.target
                                    and r.label is not None)
        assert any(min(p[0], q[0]) - 0.1 <= label.cx <= max(p[0], q[0]) + 0.1
                   and min(p[1], q[1]) - 0.1 <= label.cy <= max(p[1], q[1]) + 0.1
                   for p, q in zip(route.points, route.points[1:])), route.key
    for label in labels:
        assert inside(label, Box(0, 0, layout.width, layout.height))
        assert not any(intersects(label, node.box) for node in layout.nodes)
    for i, a in enumerate(labels):
        assert not any(intersects(a, b) for b in labels[i + 1:])
    assert {route.key for route in layout.edges} <= set(scene.edge_labels)


def test_entities_list_name_type_and_version() -> None:
    fixture = {"diagram": {"id": "d", "type": "mainProcess"},
               "elements": [{"id": "o", "type": "orgUnit", "attributes": {
                   "name": {"1033": "Sales"}, "version": {"127": 3}, "state1": {"127": "released"}}}],
               "values": [{"shapeInfo": {"index": 0, "predecessors": []},
                           "element": {"type": "task", "attributes": {"name": {"1033": "Quote"}},
                                       "related": {"executedBy": [{"id": "o"}]}}},
                          {"shapeInfo": {"index": 1, "predecessors": [0]},
                           "element": {"type": "evEnd", "attributes": {"name": {"1033": "Done"}}}}]}
    graph, scene, layout = laid_out(fixture, "entityRelationship")
    assert scene.shapes["o"].lines == ("Sales", "\u00aborgUnit\u00bb", "v3 \u00b7 released")
    assert [(e.source, e.target) for e in layout.edges] == [("shape-0", "o")]
    loose = next(n for n in layout.nodes if n.id == "shape-1")
    assert loose.box.y > max(n.box.bottom for n in layout.nodes if n.id != "shape-1")


def test_fanned_in_relations_share_one_label() -> None:
    nodes = tuple(LayoutNode(i, "task", 120, 40) for i in ("a", "b", "c", "t"))
    edges = tuple(LayoutEdge(s, "t", 70, 18, key="rel:executedBy:t") for s in ("a", "b", "c"))
    layout = get_strategy("entityRelationship").layout(LayoutGraph(nodes, edges), LayoutOptions())
    assert [route.label is not None for route in layout.edges] == [True, False, False]
    assert overlapping_pairs(layout) == [] and edges_through_shapes(layout) == []
