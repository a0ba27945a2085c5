"""The element-drawing layouts (detailed, graphic, matrices, entityRelationship): what
each guarantees beyond the registry-wide invariants, on graphs built directly, plus the
awkward inputs. The same checks on the renderer's graphs of real diagrams are in
tests/renderer/test_layout_cases.py."""
from __future__ import annotations

import pytest

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Layout
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.packing import pack_rows
from layouts.registry import get_strategy
from tests.geometry_checks import (
    edges_through_shapes,
    entity_label_problems,
    matrix_tiling_problems,
    nesting_problems,
    satellite_problems,
)
from tests.layouts.graphs import SMALL_KINDS, SMALL_PROCESS, dense_cyclic, graph_for, shape_id

PROCESSES = {"small": (SMALL_PROCESS, SMALL_KINDS), "dense": (dense_cyclic(), None)}


def laid_out(key: str, process: str) -> tuple[LayoutGraph, Layout]:
    predecessors, kinds = PROCESSES[process]
    graph = graph_for(key, predecessors, kinds)
    return graph, get_strategy(key).layout(graph, LayoutOptions())


# --------------------------------------------------------------------------- detailed
@pytest.mark.parametrize("process", sorted(PROCESSES))
def test_detailed_routes_the_flow_as_vertical_and_puts_satellites_beside_their_task(process: str) -> None:
    graph, layout = laid_out("detailed", process)
    _, flow = laid_out("vertical", process)
    assert [(e.source, e.target) for e in layout.edges][:len(flow.edges)] == [(e.source, e.target) for e in flow.edges]
    assert satellite_problems(graph, layout) == []


def test_a_satellite_host_with_its_own_outside_label_is_refused() -> None:
    graph = LayoutGraph((LayoutNode("g", "ruleXor", 50, 50, 60, 30),
                         LayoutNode("s", "orgUnit", 100, 25, role="satellite", parent="g")),
                        (LayoutEdge("g", "s"),))
    with pytest.raises(LayoutError, match="'g' has an outside label and satellites"):
        get_strategy("detailed").layout(graph, LayoutOptions())


def test_a_satellite_without_a_host_is_refused() -> None:
    graph = LayoutGraph((LayoutNode("s", "orgUnit", 100, 25, role="satellite", parent="ghost"),), ())
    with pytest.raises(LayoutError, match="satellite 's' has no host in the flow"):
        get_strategy("detailed").layout(graph, LayoutOptions())


# --------------------------------------------------------------------------- graphic
@pytest.mark.parametrize("process", sorted(PROCESSES))
def test_graphic_nests_children_below_their_parents_header(process: str) -> None:
    graph, layout = laid_out("graphic", process)
    assert nesting_problems(graph, layout) == []
    assert layout.nodes[0].id == "root"  # frames drawn before what they hold
    assert 0.75 < layout.width / layout.height < 2.0


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
@pytest.mark.parametrize("process", sorted(PROCESSES))
def test_matrix_cells_tile_the_grid_under_their_headers(key: str, process: str) -> None:
    graph, layout = laid_out(key, process)
    assert matrix_tiling_problems(graph, layout) == []
    rows = [n.box for n in layout.nodes if n.id.startswith("shape-")]
    assert len({(box.x, box.w) for box in rows}) == 1  # row headers as wide as the widest


def test_a_matrix_without_columns_is_its_row_headers() -> None:
    rows = tuple(LayoutNode(shape_id(i), "task", 160.0, 40.0, role="row") for i in range(3))
    layout = get_strategy("customerMatrix").layout(LayoutGraph(rows, ()), LayoutOptions())
    assert layout.cells == () and [n.id for n in layout.nodes] == [row.id for row in rows]


# --------------------------------------------------------------------------- entity-relationship
@pytest.mark.parametrize("process", sorted(PROCESSES))
def test_entity_labels_sit_on_their_routes_and_cover_no_shape(process: str) -> None:
    _, layout = laid_out("entityRelationship", process)
    assert entity_label_problems(layout) == []


def test_entities_stand_in_two_columns_beside_the_subject_in_their_order() -> None:
    graph, layout = laid_out("entityRelationship", "small")
    boxes = {n.id: n.box for n in layout.nodes}
    subject = boxes["subject"]
    others = [n.id for n in graph.nodes if n.id != "subject"]
    left = [i for i in others if boxes[i].right < subject.x]
    right = [i for i in others if boxes[i].x > subject.right]
    assert left + right == others and left and right  # every entity beside the subject, reading order kept
    for column in (left, right):
        assert all(boxes[a].bottom < boxes[b].y for a, b in zip(column, column[1:]))


def test_every_relation_has_its_own_port_and_label() -> None:
    graph, layout = laid_out("entityRelationship", "small")
    ends = [route.points[-1] for route in layout.edges]
    assert len(set(ends)) == len(ends)  # an entity with two relations takes them at two ports
    assert all(route.label is not None for route in layout.edges)
    assert entity_label_problems(layout) == [] and edges_through_shapes(layout) == []


def test_a_relation_that_does_not_leave_the_subject_is_refused() -> None:
    nodes = (LayoutNode("s", "mainProcess", 170, 54, role="subject"), LayoutNode("a", "orgUnit", 140, 54),
             LayoutNode("b", "orgUnit", 140, 54))
    with pytest.raises(LayoutError, match="'a' -> 'b' does not leave the subject 's'"):
        get_strategy("entityRelationship").layout(LayoutGraph(nodes, (LayoutEdge("a", "b", 70, 18),)),
                                                 LayoutOptions())
