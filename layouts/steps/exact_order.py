"""Exact crossing minimization for small layered graphs, as an integer program.

Expects a proper layered graph and a layer assignment of its vertices. Guarantees: when
the program is small enough (``max_variables``) and HiGHS proves optimality within
``node_limit`` branch-and-bound nodes, the returned order has the fewest crossings any
order of these layers can have; otherwise None. Deterministic: no time limit, only a node
limit. Formulation after Jünger and Mutzel: one binary per vertex pair of a layer
("u before v"), transitivity per triple, and one crossing indicator per pair of edges
between the same two layers. Vertices of different lanes keep their lane order.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from layouts.steps.linear import InfeasibleProgram, minimize
from layouts.steps.proper import ProperGraph


def exact_order(
    graph: ProperGraph, layers: list[list[int]], max_variables: int = 800, node_limit: int = 200
) -> list[list[int]] | None:
    # sizes first, so a large graph costs no more than this count
    pairs = sum(len(layer) * (len(layer) - 1) // 2 for layer in layers)
    triples = sum(len(layer) * (len(layer) - 1) * (len(layer) - 2) // 6 for layer in layers)
    if pairs + triples > max_variables:
        return None
    pair_index: dict[tuple[int, int], int] = {}
    for layer in layers:
        for u, v in combinations(sorted(layer), 2):
            pair_index[(u, v)] = len(pair_index)
    edge_pairs: list[tuple[int, int, int, int]] = []
    for layer in layers:
        edges = [(a, b) for a in layer for b in graph.down[a]]
        for (a, b), (c, d) in combinations(edges, 2):
            if a != c and b != d:
                edge_pairs.append((a, b, c, d))
                if pairs + triples + len(edge_pairs) > max_variables:
                    return None
    if not edge_pairs:
        return None
    variable_count = len(pair_index) + len(edge_pairs)

    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    lower: list[float] = []
    upper: list[float] = []

    def before(u: int, v: int) -> tuple[int, float, float]:
        """(variable, sign, constant) so that "u before v" = constant + sign * x."""
        if u < v:
            return pair_index[(u, v)], 1.0, 0.0
        return pair_index[(v, u)], -1.0, 1.0

    def add_row(terms: list[tuple[int, float]], low: float, high: float) -> None:
        row = len(lower)
        for col, val in terms:
            rows.append(row)
            cols.append(col)
            vals.append(val)
        lower.append(low)
        upper.append(high)

    for layer in layers:
        for u, v, w in combinations(sorted(layer), 3):
            # 0 <= x_uv + x_vw - x_uw <= 1
            add_row([(pair_index[(u, v)], 1.0), (pair_index[(v, w)], 1.0), (pair_index[(u, w)], -1.0)], 0.0, 1.0)
    for offset, (a, b, c, d) in enumerate(edge_pairs):
        crossing = len(pair_index) + offset
        ac, s_ac, k_ac = before(a, c)
        bd, s_bd, k_bd = before(b, d)
        # crossing >= |before(a, c) - before(b, d)|
        add_row([(crossing, 1.0), (ac, -s_ac), (bd, s_bd)], k_ac - k_bd, np.inf)
        add_row([(crossing, 1.0), (ac, s_ac), (bd, -s_bd)], k_bd - k_ac, np.inf)
    cost = np.zeros(variable_count)
    cost[len(pair_index):] = 1.0
    low_bound, high_bound = np.zeros(variable_count), np.ones(variable_count)
    for (u, v), index in pair_index.items():
        if graph.lane[u] != graph.lane[v]:
            low_bound[index] = high_bound[index] = float(graph.lane[u] < graph.lane[v])
    try:
        solution = minimize(cost, rows, cols, vals, lower, upper, low_bound, high_bound,
                            integer=True, node_limit=node_limit)
    except InfeasibleProgram:  # no optimum proven within the node limit
        return None
    ordered: list[list[int]] = []
    for layer in layers:
        ahead = {v: 0 for v in layer}
        for u, v in combinations(sorted(layer), 2):
            if solution[pair_index[(u, v)]] > 0.5:
                ahead[v] += 1
            else:
                ahead[u] += 1
        ordered.append(sorted(layer, key=lambda v: (ahead[v], v)))
    return ordered
