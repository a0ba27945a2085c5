"""Crossing reduction beyond sweeps: long edges re-threaded whole, loops' turns counted,
the exact program per block of layers."""
from __future__ import annotations

from itertools import permutations, product

from layouts.budgets import Budgets
from layouts.steps.chain_paths import reroute_chains
from layouts.steps.crossings import drawn_crossings, total_crossings
from layouts.steps.exact_order import exact_order
from layouts.steps.ordering import order_layers
from layouts.steps.proper import ProperGraph, make_proper


def test_a_long_edge_leaves_a_bundle_as_a_whole() -> None:
    # s (0) has a long edge to t (5) beside the sequence a → b → c → d; its dummies (6, 7)
    # below the sequence cross it at both ends, and moving either dummy alone does not help
    graph = make_proper([0, 0, 1, 2, 3, 3], [(0, 5), (1, 2), (2, 3), (3, 4)], frozenset())
    layers = [[0, 1], [2, 6], [3, 7], [5, 4]]
    assert total_crossings(graph, layers) == 2
    rerouted = reroute_chains(graph, layers)
    assert total_crossings(graph, rerouted) == 0
    assert rerouted[0] == [0, 1] and rerouted[3] == [5, 4]  # only the dummies moved
    assert [sorted(layer) for layer in rerouted] == [sorted(layer) for layer in layers]


def test_a_chain_without_crossings_stays_where_it_is() -> None:
    graph = make_proper([0, 0, 1, 2, 3, 3], [(0, 5), (1, 2), (2, 3), (3, 4)], frozenset())
    layers = [[0, 1], [6, 2], [7, 3], [5, 4]]
    assert reroute_chains(graph, layers) == layers


def _loop_between_two_successors() -> tuple[ProperGraph, list[list[int]]]:
    # v (0) forks to 1 and 2; 3 loops back to v: the loop's chain runs from v through a
    # dummy (4) in the successors' layer, and turns above or below v
    graph = make_proper([0, 1, 1, 2], [(0, 1), (0, 2), (1, 3), (3, 0)], frozenset({3}))
    return graph, [[0], [1, 4, 2], [3]]


def test_a_loop_turning_past_a_nodes_links_counts_as_a_crossing() -> None:
    graph, layers = _loop_between_two_successors()
    assert total_crossings(graph, layers) == 0  # the links alone: all leave v
    assert drawn_crossings(graph, layers) == 1  # the turn above or below v crosses one of them


def test_a_loop_is_re_threaded_to_turn_clear_of_its_nodes_links() -> None:
    graph, layers = _loop_between_two_successors()
    rerouted = reroute_chains(graph, layers)
    assert drawn_crossings(graph, rerouted) == 0
    assert rerouted[1].index(4) in (0, 2)  # the loop's dummy outside v's two successors
    assert drawn_crossings(graph, order_layers(graph, [0])) == 0


def test_the_exact_program_orders_blocks_between_single_vertex_layers() -> None:
    # two crosswise pairs, before and after the single vertex 4
    edges = [(0, 3), (1, 2), (2, 4), (3, 4), (4, 5), (4, 6), (5, 8), (6, 7)]
    graph = make_proper([0, 0, 1, 1, 2, 3, 3, 4, 4], edges, frozenset())
    layers = [[0, 1], [2, 3], [4], [5, 6], [7, 8]]
    assert total_crossings(graph, layers) == 2
    ordered = exact_order(graph, layers)
    assert ordered is not None
    assert total_crossings(graph, ordered) == 0
    assert ordered[2] == [4]


def test_the_exact_program_matches_brute_force_with_a_shared_neighbourhood() -> None:
    # three sources all joined to the same two targets (6 unavoidable crossings) plus a
    # private successor each: the minimum has to weigh both
    edges = [(0, 3), (0, 4), (1, 3), (1, 4), (2, 3), (2, 4), (0, 5), (1, 6), (2, 7)]
    graph = make_proper([0, 0, 0, 1, 1, 1, 1, 1], edges, frozenset())
    layers = [[0, 1, 2], [5, 3, 6, 4, 7]]
    least = min(total_crossings(graph, [list(a), list(b)])
                for a, b in product(permutations([0, 1, 2]), permutations([3, 4, 5, 6, 7])))
    ordered = exact_order(graph, layers)
    assert ordered is not None
    assert total_crossings(graph, ordered) == least


def test_a_block_over_the_variable_budget_is_left_alone() -> None:
    graph = make_proper([0, 0, 1, 1], [(0, 3), (1, 2)], frozenset())
    layers = [[0, 1], [2, 3]]
    assert exact_order(graph, layers, Budgets(exact_variables=0)) is None
