"""Layering: a layer (rank) per node that minimizes the total edge length.

Expects a DAG on node indices ``0..n-1``. Guarantees: every edge spans at least one layer
(``rank[target] - rank[source] >= 1``), the sum of spans is minimal (the problem network
simplex solves in dot), and every weakly connected component starts at layer 0.

The problem is a linear program whose constraint matrix is totally unimodular, so the
simplex vertex HiGHS returns is integral; HiGHS (through SciPy) solves 5,000-node
graphs in a fraction of a second, which a network simplex in pure Python does not.

When longest-path layering already gives every edge a span of one (about half of the
process models), that is the only optimum up to a shift per component, and the program
is skipped.

Bounded cost: on deep graphs with many edges HiGHS needs seconds (a 5,000-node chain
with 15,000 long edges: 6 s), so above ``Budgets.layering_lp_edges`` edges the ranks come from
``_promoted_ranks`` instead: longest-path layering, then a fixed number of passes that
move each node to the end of its free range that shortens its edges (towards its
successors when it has more of them than predecessors, else towards its predecessors).
Same guarantees except minimality: linear per pass, and exact on trees and chains.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.components import weak_components
from layouts.steps.linear import InfeasibleProgram, minimize_linear

PROMOTION_PASSES = 4


def minimal_length_ranks(node_count: int, edges: Sequence[tuple[int, int]],
                         budgets: Budgets = DEFAULT_BUDGETS) -> list[int]:
    if node_count == 0:
        return []
    if not edges:
        return [0] * node_count
    successors: list[list[int]] = [[] for _ in range(node_count)]
    predecessors: list[list[int]] = [[] for _ in range(node_count)]
    for source, target in edges:
        successors[source].append(target)
        predecessors[target].append(source)
    if len(edges) > budgets.layering_lp_edges:
        return _normalize_components(node_count, edges, _promoted_ranks(node_count, successors, predecessors))
    longest, _ = _longest_path_ranks(node_count, successors, predecessors)
    if all(longest[t] - longest[s] == 1 for s, t in edges):
        # every edge at its least span is the only optimum (up to a shift per component)
        return _normalize_components(node_count, edges, longest)
    sources = np.fromiter((s for s, _ in edges), dtype=np.int64, count=len(edges))
    targets = np.fromiter((t for _, t in edges), dtype=np.int64, count=len(edges))
    # objective: sum over edges of rank[target] - rank[source]
    cost = np.bincount(targets, minlength=node_count) - np.bincount(sources, minlength=node_count)
    rows = np.repeat(np.arange(len(edges)), 2)
    cols = np.column_stack((sources, targets)).ravel()
    vals = np.tile(np.array([1.0, -1.0]), len(edges))  # rank[s] - rank[t] <= -1
    try:
        solution = minimize_linear(cost.astype(float), rows, cols, vals, -np.ones(len(edges)), 0.0)
    except InfeasibleProgram as error:  # only on a cyclic input, which cycle breaking rules out
        raise ValueError(f"layering failed: {error}") from None
    ranks = [int(round(value)) for value in solution]
    return _normalize_components(node_count, edges, ranks)


def _normalize_components(
    node_count: int, edges: Sequence[tuple[int, int]], ranks: list[int]
) -> list[int]:
    component = weak_components(node_count, edges)
    lowest: dict[int, int] = {}
    for v in range(node_count):
        lowest[component[v]] = min(lowest.get(component[v], ranks[v]), ranks[v])
    return [ranks[v] - lowest[component[v]] for v in range(node_count)]


def _longest_path_ranks(
    node_count: int, successors: list[list[int]], predecessors: list[list[int]]
) -> tuple[list[int], list[int]]:
    """Each node one layer after its latest predecessor, and the topological order."""
    waiting = [len(p) for p in predecessors]
    ready = deque(v for v in range(node_count) if not waiting[v])
    order: list[int] = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for target in successors[node]:
            waiting[target] -= 1
            if not waiting[target]:
                ready.append(target)
    if len(order) != node_count:  # only on a cyclic input, which cycle breaking rules out
        raise ValueError("layering failed: the graph has a cycle")
    ranks = [0] * node_count
    for node in order:
        ranks[node] = max((ranks[p] + 1 for p in predecessors[node]), default=0)
    return ranks, order


def _promoted_ranks(
    node_count: int, successors: list[list[int]], predecessors: list[list[int]]
) -> list[int]:
    ranks, order = _longest_path_ranks(node_count, successors, predecessors)
    for _ in range(PROMOTION_PASSES):
        for node in reversed(order):
            if successors[node] and len(successors[node]) > len(predecessors[node]):
                ranks[node] = min(ranks[t] for t in successors[node]) - 1
        for node in order:
            if predecessors[node] and len(predecessors[node]) > len(successors[node]):
                ranks[node] = max(ranks[p] for p in predecessors[node]) + 1
    lowest = min(ranks)
    return [rank - lowest for rank in ranks]
