"""Unit tests of the layered pipeline's phases, each on its own."""
from __future__ import annotations

from itertools import permutations

import pytest

from layouts.steps.acyclic import feedback_edges
from layouts.steps.channels import ChannelSegment, assign_slots
from layouts.steps.crossings import total_crossings
from layouts.steps.exact_order import exact_order
from layouts.steps.layering import minimal_length_ranks
from layouts.steps.main_path import main_path_edges
from layouts.steps.ordering import initial_order, order_layers
from layouts.steps.placement import place_across
from layouts.steps.proper import make_proper


def test_cycle_breaking_reverses_only_the_loop_back_edge() -> None:
    # start → a → b → gateway → end, gateway → a is the rework loop
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (3, 1)]
    assert feedback_edges(5, edges, preferred_roots=[0]) == frozenset({4})


def test_cycle_breaking_handles_a_cycle_without_a_start() -> None:
    edges = [(0, 1), (1, 2), (2, 0)]
    reversed_edges = feedback_edges(3, edges)
    assert len(reversed_edges) == 1
    dag = [(t, s) if i in reversed_edges else (s, t) for i, (s, t) in enumerate(edges)]
    ranks = minimal_length_ranks(3, dag)
    assert all(ranks[t] > ranks[s] for s, t in dag)


def test_layering_minimizes_total_edge_length() -> None:
    # a source feeding the join late must sit next to it, not at layer 0
    edges = [(0, 1), (1, 2), (2, 3), (4, 3)]
    ranks = minimal_length_ranks(5, edges)
    assert ranks[:4] == [0, 1, 2, 3]
    assert ranks[4] == 2


def test_layering_starts_each_component_at_zero() -> None:
    ranks = minimal_length_ranks(4, [(0, 1), (2, 3)])
    assert ranks == [0, 1, 0, 1]


def test_proper_graph_splits_long_edges_into_dummy_chains() -> None:
    graph = make_proper([0, 1, 3], [(0, 1), (1, 2), (0, 2)], frozenset())
    assert graph.vertex_count == 3 + 1 + 2
    assert [graph.layer_of[v] for v in graph.chains[2]] == [0, 1, 2, 3]
    assert all(graph.layer_of[b] == graph.layer_of[a] + 1 for a in range(graph.vertex_count) for b in graph.down[a])


def test_reversed_edge_chain_runs_from_its_target_down_to_its_source() -> None:
    graph = make_proper([0, 1, 2], [(0, 1), (1, 2), (2, 0)], frozenset({2}))
    chain = graph.chains[2]
    assert chain[0] == 0 and chain[-1] == 2


def test_ordering_removes_avoidable_crossings() -> None:
    # two parallel chains wired crosswise in the input order
    edges = [(0, 3), (1, 2), (2, 5), (3, 4)]
    graph = make_proper([0, 0, 1, 1, 2, 2], edges, frozenset())
    layers = order_layers(graph, roots=[0])
    assert total_crossings(graph, layers) == 0
    assert sorted(v for layer in layers for v in layer) == list(range(6))


def test_initial_order_keeps_every_vertex_once() -> None:
    graph = make_proper([0, 1, 1, 2], [(0, 1), (0, 2), (1, 3), (2, 3)], frozenset())
    layers = initial_order(graph, [0])
    assert [sorted(layer) for layer in layers] == [[0], [1, 2], [3]]


def test_exact_order_matches_brute_force_on_a_small_graph() -> None:
    # a 6-cycle plus a chord over two layers: some crossings are unavoidable
    edges = [(0, 3), (0, 4), (1, 3), (1, 5), (2, 4), (2, 5), (3, 6), (5, 7), (4, 7)]
    graph = make_proper([0, 0, 0, 1, 1, 1, 2, 2], edges, frozenset())
    layers = exact_order(graph, [[0, 1, 2], [3, 4, 5], [6, 7]])
    assert layers is not None
    least = min(total_crossings(graph, [list(a), list(b), list(c)])
                for a in permutations([0, 1, 2]) for b in permutations([3, 4, 5])
                for c in permutations([6, 7]))
    assert total_crossings(graph, layers) == least


def test_placement_aligns_a_chain_and_keeps_neighbours_apart() -> None:
    layers = [[0], [1, 2], [3]]
    positions = place_across(
        layers, 4, before=[10.0] * 4, after=[10.0] * 4, gap=lambda p, q: 5.0,
        links=[(0, 1, 1.0), (1, 3, 1.0), (0, 2, 1.0)]).positions
    assert positions[0] == positions[1] == positions[3]  # the main path is straight
    assert positions[2] - positions[1] >= 25.0


@pytest.mark.parametrize(("segments", "expected_order"), [
    # both go down from the same source: the longer one must take the outer (left) slot
    ([ChannelSegment(0, 0.0, 50.0), ChannelSegment(1, 0.0, 100.0)], [1, 0]),
    # both go up into the same target: the one from further away takes the outer (right) slot
    ([ChannelSegment(0, 100.0, 0.0), ChannelSegment(1, 50.0, 0.0)], [1, 0]),
])
def test_channel_slots_avoid_crossings(segments: list[ChannelSegment], expected_order: list[int]) -> None:
    slots, used = assign_slots(segments)
    assert used == 2
    assert sorted(range(len(segments)), key=lambda i: slots[i]) == expected_order


def test_channel_straight_segments_need_no_slot_and_disjoint_ones_share() -> None:
    slots, used = assign_slots([ChannelSegment(0, 5.0, 5.0), ChannelSegment(1, 0.0, 10.0),
                                ChannelSegment(2, 20.0, 30.0)])
    assert slots == [-1, 0, 0]
    assert used == 1


def test_main_path_is_the_longest_forward_chain_per_component() -> None:
    # start → a → gateway → b → c → join → end, gateway → join (short branch); plus a 2-node component
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (2, 5), (5, 6), (7, 8)]
    ranks = [0, 1, 2, 3, 4, 5, 6, 0, 1]
    assert main_path_edges(9, edges, ranks) == frozenset({0, 1, 2, 3, 4, 6, 7})
    assert main_path_edges(9, edges, ranks, skip={3}) == frozenset({0, 1, 5, 6, 7})


def test_main_path_follows_the_default_branch_unless_it_leaves_the_process_early() -> None:
    # the same process; the short branch gateway → join (edge 5) is the default flow,
    # two edges shorter than the other: it is the straight line
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (2, 5), (5, 6), (7, 8)]
    ranks = [0, 1, 2, 3, 4, 5, 6, 0, 1]
    assert main_path_edges(9, edges, ranks, preferred={5}) == frozenset({0, 1, 5, 6, 7})
    # a default that ends the process at once (gateway → own end 9) is an exception's exit
    early = [*edges, (2, 9)]
    assert main_path_edges(10, early, [*ranks, 3], preferred={8}) == frozenset({0, 1, 2, 3, 4, 6, 7})


def test_layering_puts_an_aligned_pair_in_one_layer_across_components() -> None:
    # two chains (two pools): 0 → 1 → 2 → 3 and 4 → 5; the pair (3, 5) is a message flow
    edges = [(0, 1), (1, 2), (2, 3), (4, 5)]
    assert minimal_length_ranks(6, edges) == [0, 1, 2, 3, 0, 1]
    ranks = minimal_length_ranks(6, edges, aligned=[(3, 5)])
    assert ranks == [0, 1, 2, 3, 2, 3]

