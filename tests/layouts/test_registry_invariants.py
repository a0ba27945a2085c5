"""What every layout key guarantees, checked over the whole registry on graphs built
directly (tests/layouts/graphs.py): a new key is covered as soon as it is registered
and given its test graph."""
from __future__ import annotations

import pytest

from layouts.base import LayoutOptions
from layouts.geometry import Layout
from layouts.graph import LayoutGraph, LayoutNode
from layouts.keys import LAYOUT_KEYS
from layouts.registry import STRATEGIES, UnknownLayoutKey, get_strategy
from tests.geometry_checks import (
    edges_through_shapes,
    endpoint_problems,
    lane_violations,
    non_orthogonal_segments,
    overlapping_pairs,
    within_canvas,
)
from tests.layouts.graphs import BUILDERS, SMALL_KINDS, SMALL_PROCESS, graph_for

#: Keys that draw the graph's edges as routes (the others draw cells or nesting instead).
ROUTING_KEYS = ("detailed", "vertical", "horizontal", "verticalSwimlane", "horizontalSwimlane", "entityRelationship")
#: Roles whose box is exactly the measured size (headers and containers may be stretched).
FIXED_SIZE_ROLES = ("shape", "satellite", "leaf")


def small_layout(key: str) -> tuple[LayoutGraph, Layout]:
    graph = graph_for(key, SMALL_PROCESS, SMALL_KINDS)
    return graph, get_strategy(key).layout(graph, LayoutOptions())


def test_the_registry_has_one_strategy_per_key_and_names_them_on_a_wrong_key() -> None:
    assert tuple(STRATEGIES) == LAYOUT_KEYS == tuple(BUILDERS)
    assert all(get_strategy(key).key == key for key in LAYOUT_KEYS)
    with pytest.raises(UnknownLayoutKey, match="unknown layout 'spiral'; one of: detailed, vertical"):
        get_strategy("spiral")


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_every_node_gets_one_box_of_at_least_its_size_inside_the_canvas(key: str) -> None:
    graph, layout = small_layout(key)
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in graph.nodes)
    for node in graph.nodes:
        box = next(n.box for n in layout.nodes if n.id == node.id)
        if node.role in FIXED_SIZE_ROLES:
            assert (box.w, box.h) == (node.width, node.height), node.id
        else:
            assert box.w >= node.width and box.h >= node.height, node.id
    assert within_canvas(layout)
    assert layout.width > 0 and layout.height > 0


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_no_two_boxes_overlap(key: str) -> None:
    # graphic nests children in their container's box: nesting is no overlap there
    assert overlapping_pairs(small_layout(key)[1], nesting=key == "graphic") == []


@pytest.mark.parametrize("key", ROUTING_KEYS)
def test_every_edge_is_one_orthogonal_route_between_its_ends_around_the_other_boxes(key: str) -> None:
    graph, layout = small_layout(key)
    assert sorted((e.source, e.target) for e in layout.edges) == sorted((e.source, e.target) for e in graph.edges)
    assert non_orthogonal_segments(layout) == []
    assert endpoint_problems(layout) == []
    assert edges_through_shapes(layout) == []


@pytest.mark.parametrize("key", ["verticalSwimlane", "horizontalSwimlane"])
def test_swimlane_keys_draw_every_lane_and_keep_each_node_in_its_own(key: str) -> None:
    graph, layout = small_layout(key)
    assert sorted(lane.id for lane in layout.lanes) == sorted(lane.id for lane in graph.lanes)
    assert lane_violations(layout, {n.id: str(n.lane) for n in graph.nodes}) == []


@pytest.mark.parametrize("key", ["processMatrix", "customerMatrix"])
def test_matrix_keys_put_one_cell_at_every_crossing(key: str) -> None:
    graph, layout = small_layout(key)
    rows = [n.id for n in graph.nodes if n.role == "row"]
    columns = [n.id for n in graph.nodes if n.role == "column"]
    assert [(c.row_id, c.column_id) for c in layout.cells] == [(r, c) for r in rows for c in columns]


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_the_same_graph_gives_the_same_layout(key: str) -> None:
    graph, layout = small_layout(key)
    assert get_strategy(key).layout(graph, LayoutOptions()) == layout
    assert small_layout(key)[1] == layout  # an equal graph built anew


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_the_empty_graph_and_a_single_node(key: str) -> None:
    strategy = get_strategy(key)
    empty = strategy.layout(LayoutGraph((), ()), LayoutOptions())
    assert (empty.nodes, empty.edges, empty.cells) == ((), (), ())
    single = graph_for(key, [[]])
    layout = strategy.layout(single, LayoutOptions())
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in single.nodes)
    assert within_canvas(layout) and overlapping_pairs(layout, nesting=key == "graphic") == []


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_wider_spacing_never_shrinks_the_drawing(key: str) -> None:
    graph, layout = small_layout(key)
    wide = get_strategy(key).layout(graph, LayoutOptions(node_spacing=60.0, layer_spacing=100.0, margin=40.0))
    assert wide.width >= layout.width and wide.height >= layout.height
    assert overlapping_pairs(wide, nesting=key == "graphic") == [] and within_canvas(wide)


def test_nodes_a_key_does_not_read_are_left_out_not_misplaced() -> None:
    stray = LayoutNode("stray", "task", 120.0, 60.0)  # neither a row nor a column
    graph = graph_for("processMatrix", SMALL_PROCESS)
    layout = get_strategy("processMatrix").layout(LayoutGraph((*graph.nodes, stray), graph.edges), LayoutOptions())
    assert "stray" not in {n.id for n in layout.nodes}
