"""Exact crossing minimization for small layered graphs, as an integer program.

Expects a proper layered graph and an order of its layers (the heuristic's, the
program's starting point). Guarantees: the returned order has each block of layers with
crossings reordered to the fewest crossings any order of it can have, when the block's
program fits ``Budgets.exact_variables`` (what is left of them for the drawing) and
HiGHS proves the optimum within ``Budgets.exact_nodes`` branch-and-bound nodes; other
blocks keep their order.
Deterministic: no time limit, only size and node limits.

A layer with at most one vertex has no crossings on either side, so the layers between
two such layers form a block that can be ordered on its own: each block is one program.
Formulation: one binary per vertex pair of a layer ("u before v"), transitivity per
triple, and for each pair of vertices of one layer and pair of vertices of the next
that their links join crosswise, the product of the two order variables (Buchheim,
Wiegele and Zheng's quadratic linear ordering): crossings between the links of ``u, v``
and those of ``b, d`` are ``n1·[x_uv ≠ x_bd] + n2·[x_uv = x_bd]`` for the ``n1`` pairs
``(u, b), (v, d)`` and ``n2`` pairs ``(u, d), (v, b)``, linear in ``x_uv``, ``x_bd`` and their
product. The ``min(n1, n2)`` crossings a pair cannot avoid are a constant, which gives a
far tighter relaxation than one indicator per pair of links. Vertices of different
lanes keep their lane order.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.chain_paths import reroute_chains
from layouts.steps.crossings import Layers, bilayer_crossings, drawn_crossings, positions
from layouts.steps.linear import InfeasibleProgram, minimize
from layouts.steps.proper import ProperGraph


def order_exactly(graph: ProperGraph, layers: Layers, budgets: Budgets = DEFAULT_BUDGETS) -> Layers:
    """The pipeline's exact-order step: ``layers`` with the blocks that fit solved and their
    chains re-threaded again (the program does not see the loops' turns), when that gives
    the drawing fewer crossings; else ``layers``."""
    crossings = drawn_crossings(graph, layers)
    if crossings == 0:
        return layers
    proven = exact_order(graph, layers, budgets)
    if proven is None:
        return layers
    proven = reroute_chains(graph, proven, budgets)
    return proven if drawn_crossings(graph, proven) < crossings else layers


def exact_order(graph: ProperGraph, layers: Layers, budgets: Budgets = DEFAULT_BUDGETS) -> Layers | None:
    """The order with every block that fits solved, or None when none was. A block may
    have ``exact_link_pairs_per_variable`` pairs of links per variable left: building
    the program walks them."""
    ordered = [list(layer) for layer in layers]
    position = positions(graph, layers)
    budget = budgets.exact_variables
    solved_any = False
    for first, last in _blocks(layers):
        crossings = sum(bilayer_crossings(layers[k], graph.down, position, len(layers[k + 1]))
                        for k in range(first, last))
        if crossings == 0:
            continue
        vertex_pairs, link_pairs = _pairs(graph, layers[first:last + 1])
        if vertex_pairs > budget or link_pairs > budgets.exact_link_pairs_per_variable * budget:
            continue  # counted before anything is built: a large block costs no more than this
        program = _Program(graph, layers[first:last + 1], position)
        if program.variable_count > budget or crossings == program.unavoidable:
            continue  # too large, or already optimal
        budget -= program.variable_count
        solved = program.solve(budgets.exact_nodes)
        if solved is not None:
            ordered[first:last + 1] = solved
            solved_any = True
    return ordered if solved_any else None


def _pairs(graph: ProperGraph, layers: Layers) -> tuple[int, int]:
    """The block's vertex pairs within a layer and pairs of links between two layers (the
    products are at most these), in O(vertices)."""
    vertex_pairs = sum(len(layer) * (len(layer) - 1) // 2 for layer in layers)
    link_pairs = 0
    for layer in layers[:-1]:
        degrees = [len(graph.down[v]) for v in layer]
        link_pairs += (sum(degrees) ** 2 - sum(d * d for d in degrees)) // 2
    return vertex_pairs, link_pairs


def _blocks(layers: Layers) -> list[tuple[int, int]]:
    """(first, last) layers of each run of layers with two vertices or more."""
    blocks: list[tuple[int, int]] = []
    first: int | None = None
    for k, layer in enumerate([*layers, []]):
        if len(layer) >= 2 and first is None:
            first = k
        elif len(layer) < 2 and first is not None:
            blocks.append((first, k - 1))
            first = None
    return blocks


class _Program:
    """The integer program of one block of layers, started from their current order."""

    def __init__(self, graph: ProperGraph, layers: Layers, position: list[int]) -> None:
        self.layers = layers
        self.lane = graph.lane
        self.pair_index: dict[tuple[int, int], int] = {}
        for layer in layers:
            for u, v in combinations(sorted(layer), 2):
                self.pair_index[(u, v)] = len(self.pair_index)
        self.products: list[tuple[int, int, int]] = []  # (weight, pair above, pair below)
        self.linear = [0] * len(self.pair_index)
        self.unavoidable = 0  # crossings every order has: min(n1, n2) per pair of pairs
        for upper in layers[:-1]:
            self._add_layer_pair(graph, upper)
        self.position = position

    @property
    def variable_count(self) -> int:
        return len(self.pair_index) + len(self.products)

    def _add_layer_pair(self, graph: ProperGraph, upper: list[int]) -> None:
        joined: dict[tuple[tuple[int, int], tuple[int, int]], list[int]] = {}
        for u, v in combinations(sorted(upper), 2):
            for b in graph.down[u]:
                for d in graph.down[v]:
                    if b != d:  # (u, b) and (v, d) cross when u, v and b, d run opposite ways
                        counts = joined.setdefault(((u, v), (min(b, d), max(b, d))), [0, 0])
                        counts[b > d] += 1
        for (above, below), (same, swapped) in joined.items():
            self.unavoidable += min(same, swapped)
            weight = same - swapped  # crossings: swapped + weight·[x_above ≠ x_below]
            if weight:
                i, j = self.pair_index[above], self.pair_index[below]
                self.linear[i] += weight
                self.linear[j] += weight
                self.products.append((weight, i, j))

    def solve(self, node_limit: int) -> Layers | None:
        pairs = len(self.pair_index)
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        lower: list[float] = []
        upper: list[float] = []

        def add_row(terms: list[tuple[int, float]], low: float, high: float) -> None:
            for col, val in terms:
                rows.append(len(lower))
                cols.append(col)
                vals.append(val)
            lower.append(low)
            upper.append(high)

        for layer in self.layers:
            for u, v, w in combinations(sorted(layer), 3):
                uv, vw, uw = self.pair_index[(u, v)], self.pair_index[(v, w)], self.pair_index[(u, w)]
                add_row([(uv, 1.0), (vw, 1.0), (uw, -1.0)], 0.0, 1.0)  # u<v and v<w give u<w
        cost = np.zeros(self.variable_count)
        cost[:pairs] = self.linear
        for offset, (weight, i, j) in enumerate(self.products):
            product = pairs + offset
            cost[product] = -2 * weight
            if weight > 0:  # the product is pushed up: keep it under both factors
                add_row([(product, 1.0), (i, -1.0)], -np.inf, 0.0)
                add_row([(product, 1.0), (j, -1.0)], -np.inf, 0.0)
            else:  # pushed down: keep it over their sum less one
                add_row([(product, 1.0), (i, -1.0), (j, -1.0)], -1.0, np.inf)
        low_bound, high_bound = np.zeros(self.variable_count), np.ones(self.variable_count)
        start = np.zeros(self.variable_count)
        for (u, v), index in self.pair_index.items():
            start[index] = float(self.position[u] < self.position[v])
            if self.lane[u] != self.lane[v]:
                low_bound[index] = high_bound[index] = float(self.lane[u] < self.lane[v])
        for offset, (_, i, j) in enumerate(self.products):
            start[pairs + offset] = start[i] * start[j]
        try:
            solution = minimize(cost, rows, cols, vals, lower, upper, low_bound, high_bound,
                                integer=True, node_limit=node_limit, start=start)
        except InfeasibleProgram:  # no optimum proven within the node limit
            return None
        ordered: Layers = []
        for layer in self.layers:
            ahead = dict.fromkeys(layer, 0)
            for u, v in combinations(sorted(layer), 2):
                ahead[v if solution[self.pair_index[(u, v)]] > 0.5 else u] += 1
            ordered.append(sorted(layer, key=lambda v: (ahead[v], v)))
        return ordered
