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

Aligned pairs (``LayoutGraph.aligned``: the two ends of a BPMN message flow, in two
pools): the program also pays ``ALIGN_WEIGHT`` per layer between the two nodes of each
pair. At 1, a layer between partners costs as much as a layer more on one edge, so
partners share a layer wherever that lengthens the edges no more than it closes the gap
(where both cost the same, the solver's vertex decides, deterministically); a heavier
weight aligned a few more pairs of the corpus but stretched its largest collaboration
(application-processing) by a tenth of its area. Written as a node above both
(``top >= rank[a]``, ``top >= rank[b]``, cost ``2 top - rank[a] - rank[b]``), which keeps
the program's matrix one of differences, so its vertices stay integral; pairs also hold
their components together when the ranks are shifted to start at layer 0. Without pairs
(every diagram but a BPMN collaboration) the program is the one above; above the budget
below, pairs are not weighed.

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
ALIGN_WEIGHT = 1.0


def minimal_length_ranks(node_count: int, edges: Sequence[tuple[int, int]],
                         budgets: Budgets = DEFAULT_BUDGETS,
                         aligned: Sequence[tuple[int, int]] = ()) -> list[int]:
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
    if not aligned and all(longest[t] - longest[s] == 1 for s, t in edges):
        # every edge at its least span is the only optimum (up to a shift per component)
        return _normalize_components(node_count, edges, longest)
    solution = _minimal_program(node_count, edges, aligned)
    ranks = [int(round(value)) for value in solution[:node_count]]
    return _normalize_components(node_count, [*edges, *aligned], ranks)


def _minimal_program(node_count: int, edges: Sequence[tuple[int, int]],
                     aligned: Sequence[tuple[int, int]]) -> list[float]:
    """The optimum of the program: a rank per node, then a ``top`` per aligned pair."""
    tops = np.arange(node_count, node_count + len(aligned))
    # rank[s] - rank[t] <= -1 per edge; rank[a] - top <= 0 and rank[b] - top <= 0 per pair
    lows = np.array([s for s, _ in edges] + [end for pair in aligned for end in pair], dtype=np.int64)
    highs = np.concatenate((np.array([t for _, t in edges], dtype=np.int64), np.repeat(tops, 2)))
    # objective: sum over edges of rank[target] - rank[source], plus the pairs' gaps
    cost = np.bincount(highs[:len(edges)], minlength=node_count + len(aligned)) \
        - np.bincount(lows[:len(edges)], minlength=node_count + len(aligned))
    gaps = np.bincount(highs[len(edges):], minlength=node_count + len(aligned)) \
        - np.bincount(lows[len(edges):], minlength=node_count + len(aligned))
    rows = np.repeat(np.arange(len(lows)), 2)
    cols = np.column_stack((lows, highs)).ravel()
    vals = np.tile(np.array([1.0, -1.0]), len(lows))
    upper = np.concatenate((-np.ones(len(edges)), np.zeros(2 * len(aligned))))
    try:
        solution = minimize_linear(cost + ALIGN_WEIGHT * gaps, rows, cols, vals, upper, 0.0)
    except InfeasibleProgram as error:  # only on a cyclic input, which cycle breaking rules out
        raise ValueError(f"layering failed: {error}") from None
    return [float(value) for value in solution]


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
