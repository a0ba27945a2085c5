"""Bounded layout cost on dense graphs: structural bounds on each step's work (not
times), and every layout drawing a dense graph completely, also on the cheap paths the
size thresholds choose for large inputs (forced here on small graphs by lowering the
budgets the options carry).
The graphs are built directly (tests/layouts/graphs.py), without the renderer."""
from __future__ import annotations

from typing import Any

import pytest

from checks.generate import chain_with_long_links, complete_dag, generate_flow, random_dag
from layouts import packing
from layouts.base import LayoutOptions
from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.geometry import Layout
from layouts.graph import LayoutGraph
from layouts.registry import LAYOUT_KEYS, get_strategy
from layouts.steps import ordering
from layouts.steps.acyclic import feedback_edges
from layouts.steps.channels import ChannelSegment, assign_channels, bundled_slots
from layouts.steps.lanes import order_lanes
from layouts.steps.layering import minimal_length_ranks
from layouts.steps.ordering import order_layers
from layouts.steps.placement import place_across
from layouts.steps.proper import ProperGraph, dummy_budget, make_proper
from layouts.steps.spacing import Bands
from tests.geometry_checks import (
    edges_through_shapes,
    endpoint_problems,
    lane_violations,
    non_orthogonal_segments,
    overlapping_pairs,
    within_canvas,
)
from tests.layouts.graphs import dense_cyclic, graph_for

FLOW_KEYS = ("horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane")
#: Every size threshold lowered so a small graph takes the paths of a huge one.
CHEAP = Budgets(dummy_cap=120, layering_lp_edges=0, placement_lp_variables=0, channel_pairs=0, sweep_work=2000,
                chain_work=500, packing_widths=3)


def proper_graph(predecessors: list[list[int]], budgets: Budgets = DEFAULT_BUDGETS
                 ) -> tuple[ProperGraph, list[tuple[int, int]]]:
    edges = [(p, i) for i, preceding in enumerate(predecessors) for p in preceding]
    reversed_edges = feedback_edges(len(predecessors), edges, [0])
    dag = [(t, s) if i in reversed_edges else (s, t) for i, (s, t) in enumerate(edges)]
    ranks = minimal_length_ranks(len(predecessors), dag, budgets)
    return make_proper(ranks, edges, reversed_edges, budgets=budgets), edges


def assert_chains_are_proper(graph: ProperGraph, edges: list[tuple[int, int]]) -> None:
    for index, chain in enumerate(graph.chains):
        source, target = edges[index]
        ends = (target, source) if index in graph.reversed_edges else (source, target)
        assert (chain[0], chain[-1]) == ends
        if index in graph.bypass:
            assert len(chain) == 2
            continue
        assert [graph.layer_of[v] for v in chain] == list(range(graph.layer_of[chain[0]],
                                                                  graph.layer_of[chain[-1]] + 1))
        assert all(b in graph.down[a] and a in graph.up[b] for a, b in zip(chain, chain[1:]))


def test_complete_dag_of_100_needs_dummies_linear_in_its_links() -> None:
    graph, edges = proper_graph(complete_dag(100))
    # one chain per edge would need 161,700 dummies; shared fan-out chains need one per source and layer
    assert graph.vertex_count - graph.node_count <= 100 * 99 // 2
    assert not graph.bypass
    assert_chains_are_proper(graph, edges)
    assert all(len(set(adjacent)) == len(adjacent) for adjacent in graph.down)


def test_edges_of_a_fan_out_share_one_chain_and_fork_one_layer_before_their_targets() -> None:
    graph, edges = proper_graph(complete_dag(30))
    from_first = [graph.chains[index] for index, (source, _) in enumerate(edges) if source == 0]
    longest = max(from_first, key=len)
    for chain in from_first:
        assert chain[:-1] == longest[:len(chain) - 1]  # the same dummies up to the fork


def test_dummies_stay_within_the_budget_and_the_rest_bypass_the_layers() -> None:
    # the exact layering is slow on such deep graphs
    graph, edges = proper_graph(chain_with_long_links(2000, 8000, backward=0.2), Budgets(layering_lp_edges=0))
    assert graph.vertex_count - graph.node_count <= dummy_budget(2000, len(edges))
    assert graph.bypass
    assert_chains_are_proper(graph, edges)


def test_chain_links_stay_within_their_cap_when_one_shape_feeds_a_long_chain() -> None:
    # every shape follows the one before and the first: one fan-out chain 1,499 layers
    # long, but 1.1 million links in its members' chains
    graph, edges = proper_graph([[]] + [sorted({shape - 1, 0}) for shape in range(1, 1500)])
    assert sum(len(chain) - 1 for edge, chain in enumerate(graph.chains) if edge not in graph.bypass) \
        <= Budgets().chain_links
    assert_chains_are_proper(graph, edges)


def test_sparse_graphs_keep_one_chain_per_edge() -> None:
    graph, edges = proper_graph([item["shapeInfo"]["predecessors"] for item in generate_flow(300)["values"]])
    plain = sum(abs(graph.layer_of[c[-1]] - graph.layer_of[c[0]]) - 1 for c in graph.chains)
    assert graph.vertex_count - graph.node_count == plain
    assert not graph.bypass


def laid_out(key: str, budgets: Budgets = DEFAULT_BUDGETS) -> tuple[LayoutGraph, Layout]:
    """The dense graph below as ``key`` reads it (in three lanes, with satellites, ...)."""
    graph = graph_for(key, dense_cyclic())
    return graph, get_strategy(key).layout(graph, LayoutOptions(budgets=budgets))


def assert_complete_and_clean(graph: LayoutGraph, layout: Layout, key: str) -> None:
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in graph.nodes)
    assert overlapping_pairs(layout) == [] or key == "graphic"  # graphic nests boxes by design
    assert within_canvas(layout)
    assert non_orthogonal_segments(layout) == []
    if key in FLOW_KEYS:
        assert len(layout.edges) == len(graph.edges)
        assert endpoint_problems(layout) == []
        assert edges_through_shapes(layout) == []
    if "Swimlane" in key:
        assert lane_violations(layout, {n.id: str(n.lane) for n in graph.nodes}) == []


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_every_layout_draws_a_dense_cyclic_graph_completely(key: str) -> None:
    graph, layout = laid_out(key)
    assert_complete_and_clean(graph, layout, key)


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_every_layout_draws_it_completely_on_the_cheap_paths(key: str) -> None:
    graph, layout = laid_out(key, CHEAP)
    assert_complete_and_clean(graph, layout, key)


def test_cheap_paths_are_deterministic() -> None:
    assert proper_graph(dense_cyclic(), CHEAP)[0].bypass
    assert laid_out("horizontalSwimlane", CHEAP)[1] == laid_out("horizontalSwimlane", CHEAP)[1]


def test_bundled_slots_share_a_track_per_fork_and_keep_overlapping_tracks_apart() -> None:
    fork = [ChannelSegment(0, 0.0, 100.0), ChannelSegment(1, 0.0, 200.0), ChannelSegment(2, 0.0, 300.0)]
    merge = [ChannelSegment(3, 50.0, 400.0), ChannelSegment(4, 350.0, 400.0)]
    apart = [ChannelSegment(5, 500.0, 600.0), ChannelSegment(6, 650.0, 700.0), ChannelSegment(7, 10.0, 10.0)]
    slots, used = bundled_slots(fork + merge + apart)
    assert slots[0] == slots[1] == slots[2] and slots[3] == slots[4]
    assert slots[0] != slots[3]  # the fork's span overlaps the merge's
    assert slots[7] == -1 and used == max(slots) + 1 == 2


def test_the_exact_slot_order_runs_only_within_its_pair_budget() -> None:
    small = [ChannelSegment(0, 0.0, 10.0), ChannelSegment(1, 5.0, 20.0)]
    fork = [ChannelSegment(k, 0.0, 10.0 * (k + 1)) for k in range(4)]
    exact, bundled = assign_channels([small, fork], Budgets(channel_pairs=10))
    assert exact[1] == 2  # 4 pairs fit
    assert bundled == ([0, 0, 0, 0], 1)  # 16 more do not: the fork shares one track


def test_ordering_keeps_every_vertex_once_when_its_budgets_run_out() -> None:
    graph, _ = proper_graph(complete_dag(30))
    layers = order_layers(graph, [0], budgets=Budgets(sweep_work=10, chain_work=10))
    assert sorted(v for layer in layers for v in layer) == list(range(graph.vertex_count))
    assert all(graph.layer_of[v] == k for k, layer in enumerate(layers) for v in layer)


def test_work_counts_down_and_refuses_what_does_not_fit() -> None:
    work = ordering.Work(10)
    assert work.spend(4) and work.spend(6)
    assert not work.spend(1) and work.left == 0


def test_heuristic_layering_is_valid_and_exact_on_a_chain() -> None:
    heuristic = Budgets(layering_lp_edges=0)
    edges = [(p, i) for i, preceding in enumerate(random_dag(300, 0.05)) for p in preceding]
    ranks = minimal_length_ranks(300, edges, heuristic)
    assert all(ranks[t] - ranks[s] >= 1 for s, t in edges) and min(ranks) == 0
    # a source feeding a late join is pulled next to it, as the exact layering does
    assert minimal_length_ranks(5, [(0, 1), (1, 2), (2, 3), (4, 3)], heuristic) == [0, 1, 2, 3, 2]


def test_relaxed_placement_keeps_order_gaps_and_lanes() -> None:
    layers = [[0, 1, 2], [3, 4, 5, 6], [7, 8]]
    lane = [0, 0, 1, 0, 1, 1, 1, 0, 1]
    before = after = [10.0] * 9
    links = [(0, 3, 1.0), (1, 4, 1.0), (2, 5, 1.0), (2, 6, 1.0), (3, 7, 1.0), (6, 8, 1.0), (0, 8, 1.0)]
    result = place_across(layers, 9, before, after, lambda p, q: 5.0, links,
                          bands=Bands(lane, [2.0] * 9, [30.0, 100.0]),
                          budgets=Budgets(placement_lp_variables=0, sparse_placement_lp_variables=0))
    pos = result.positions
    for layer in layers:
        assert all(pos[q] - pos[p] >= 25.0 - 1e-6 for p, q in zip(layer, layer[1:]))
    top, middle, bottom = result.boundaries
    assert middle - top >= 30.0 and bottom - middle >= 100.0
    for v in range(9):
        low, high = result.boundaries[lane[v]], result.boundaries[lane[v] + 1]
        assert low + 2.0 <= pos[v] - 10.0 + 1e-6 and pos[v] + 10.0 + 2.0 <= high + 1e-6


def test_many_lanes_are_ordered_by_local_swaps_in_linear_passes() -> None:
    lane_count = 1500
    node_lane = [(7 * k) % lane_count for k in range(lane_count)]
    edges = [(k, k + 1) for k in range(lane_count - 1)]
    order = order_lanes(lane_count, node_lane, edges)
    assert sorted(order) == list(range(lane_count))
    position = {lane: i for i, lane in enumerate(order)}

    def cost(pos: dict[int, int]) -> int:
        return sum(abs(pos[node_lane[s]] - pos[node_lane[t]]) for s, t in edges)

    assert cost(position) < cost({lane: lane for lane in range(lane_count)})


def test_packing_tries_a_bounded_number_of_row_widths(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    wrap = packing._wrap

    def counting(sizes: Any, gap: float, limit: float) -> packing.Packing:
        calls.append(limit)
        return wrap(sizes, gap, limit)

    monkeypatch.setattr(packing, "_wrap", counting)
    result = packing.pack_rows([(100.0 + k % 7, 40.0) for k in range(1500)], 10.0, 4 / 3)
    assert len(calls) <= Budgets().packing_widths + 1
    assert len(result.positions) == 1500


def test_a_huge_matrix_lays_out_only_its_linked_cells() -> None:
    graph, full = laid_out("processMatrix")
    assert len(full.cells) == 22 * 3  # every crossing
    _, sparse = laid_out("processMatrix", Budgets(matrix_cells=10))
    assert [(c.row_id, c.column_id) for c in sparse.cells] == [(e.source, e.target) for e in graph.edges]
    assert len(sparse.cells) == 22 and {c.box for c in sparse.cells} <= {c.box for c in full.cells}
