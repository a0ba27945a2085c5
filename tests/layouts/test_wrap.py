"""Wrapping a long flow into strips (issue 21, item 2): the drawing meets the aspect, and
nothing a reader follows gets worse: no crossing, overlap or edge through a shape added,
every edge still joins its own shapes, the order along the flow kept within a strip."""
from __future__ import annotations

from dataclasses import replace

import pytest

from layouts.base import LayoutOptions
from layouts.geometry import Layout
from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode
from layouts.readability import bends, crossings
from layouts.registry import get_strategy
from tests.geometry_checks import edges_through_shapes, endpoint_problems, overlapping_pairs

UNWRAPPED = LayoutOptions(wrap_min_nodes=10**9)


def _long_flow(size: int) -> LayoutGraph:
    """A chain with a skip over two shapes every 7 and a loop back every 11: edges pass the
    cuts both ways, several at once."""
    nodes = tuple(LayoutNode(f"n{index}", "task", 100.0, 50.0) for index in range(size))
    edges = [LayoutEdge(f"n{index}", f"n{index + 1}") for index in range(size - 1)]
    edges += [LayoutEdge(f"n{index}", f"n{index + 3}") for index in range(0, size - 3, 7)]
    edges += [LayoutEdge(f"n{index + 2}", f"n{index}") for index in range(5, size - 2, 11)]
    return LayoutGraph(nodes, tuple(edges))


def _draw(key: str, graph: LayoutGraph, options: LayoutOptions | None = None) -> Layout:
    return get_strategy(key).layout(graph, options or LayoutOptions())


@pytest.mark.parametrize("key", ["horizontal", "vertical"])
def test_a_long_flow_folds_into_strips_within_the_aspect(key: str) -> None:
    graph = _long_flow(200)
    ribbon, folded = _draw(key, graph, UNWRAPPED), _draw(key, graph)
    length, width = (folded.width, folded.height) if key == "horizontal" else (folded.height, folded.width)
    assert ribbon.width / ribbon.height > 20 or ribbon.height / ribbon.width > 20
    assert length <= 4 * width
    assert crossings(folded) == crossings(ribbon)
    assert overlapping_pairs(folded) == [] and edges_through_shapes(folded) == [] and endpoint_problems(folded) == []
    # an edge passing a cut gains the four bends of its way round, no more
    added = [bends(after) - bends(before) for before, after in zip(ribbon.edges, folded.edges)]
    assert set(added) <= {0, 4, 8} and added.count(4) > 0


def test_each_strip_keeps_the_order_along_the_flow() -> None:
    folded = _draw("horizontal", _long_flow(200))
    boxes = [node.box for node in folded.nodes]
    rows = sorted({round(box.cy) for box in boxes})
    assert len(rows) > 1
    for first, second in zip(boxes, boxes[1:]):
        if round(first.cy) == round(second.cy):
            assert first.x < second.x  # within a strip the chain still runs left to right


def test_small_drawings_and_lanes_stay_one_strip() -> None:
    small = _long_flow(60)
    assert _draw("horizontal", small) == _draw("horizontal", small, UNWRAPPED)
    chain = _long_flow(200)
    laned = LayoutGraph(tuple(replace(node, lane=f"lane-{index % 2}") for index, node in enumerate(chain.nodes)),
                        chain.edges, (LaneSpec("lane-0", 60.0, 20.0), LaneSpec("lane-1", 60.0, 20.0)))
    assert _draw("horizontalSwimlane", laned) == _draw("horizontalSwimlane", laned, UNWRAPPED)


def test_wrapping_is_deterministic() -> None:
    graph = _long_flow(180)
    assert _draw("vertical", graph) == _draw("vertical", graph)
