"""Property tests: the flow layouts keep their invariants on arbitrary graphs."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layouts.base import LayoutOptions
from layouts.graph import LayoutEdge, LayoutGraph
from layouts.registry import get_strategy
from tests.geometry_checks import (
    edges_through_shapes,
    endpoint_problems,
    label_collisions,
    non_orthogonal_segments,
    overlapping_pairs,
    within_canvas,
)
from tests.layouts.graphs import flow_node

KINDS = {"task": (120.0, 60.0), "evStart": (36.0, 36.0), "evEnd": (36.0, 36.0), "ruleXor": (50.0, 50.0),
         "subProcess": (160.0, 75.0)}


@st.composite
def flow_graphs(draw: st.DrawFn) -> LayoutGraph:
    count = draw(st.integers(min_value=1, max_value=28))
    nodes = []
    for i in range(count):
        kind = draw(st.sampled_from(sorted(KINDS)))
        width, height = KINDS[kind]
        labelled = kind in ("evStart", "evEnd", "ruleXor") and draw(st.booleans())
        nodes.append(flow_node(f"n{i}", kind, width, height,
                               label_width=60.0 if labelled else 0.0, label_height=30.0 if labelled else 0.0))
    pairs = draw(st.lists(st.tuples(st.integers(0, count - 1), st.integers(0, count - 1)),
                          max_size=count * 2, unique=True))
    edges = tuple(LayoutEdge(f"n{s}", f"n{t}") for s, t in pairs if s != t)
    return LayoutGraph(tuple(nodes), edges)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=flow_graphs(), key=st.sampled_from(["horizontal", "vertical"]))
def test_flow_layout_invariants(graph: LayoutGraph, key: str) -> None:
    strategy = get_strategy(key)
    layout = strategy.layout(graph, LayoutOptions())
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in graph.nodes)
    assert [(e.source, e.target) for e in layout.edges] == [(e.source, e.target) for e in graph.edges]
    assert overlapping_pairs(layout) == []
    assert edges_through_shapes(layout) == []
    assert label_collisions(layout) == []
    assert non_orthogonal_segments(layout) == []
    assert endpoint_problems(layout) == []
    assert within_canvas(layout)
    sizes = {n.id: (n.width, n.height) for n in graph.nodes}
    assert all((n.box.w, n.box.h) == sizes[n.id] for n in layout.nodes)
    assert strategy.layout(graph, LayoutOptions()) == layout

