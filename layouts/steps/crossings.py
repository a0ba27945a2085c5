"""Counting crossings of a layered drawing, for the ordering steps.

``total_crossings`` counts the crossings among the links between consecutive layers
(a vertex's own links never cross each other); ``drawn_crossings`` adds those of the
loops' turns, which the drawing has too: a loop (a reversed edge) leaves and enters its
nodes from above or below them (the layered pipeline's turn vertices), on the side where
it crosses fewer of the node's links on that side of its layer. Between two layers the
count is the number of inversions among the lower ends taken in upper order, with a
sorted list and bisection (C code) for the usual layer and a Fenwick tree past
``SORTED_LIST_ENDS`` ends (Barth, Jünger, Mutzel). ``CrossingCounter`` counts many
orders of one graph, as the sweeps do, by comparing all pairs of links at once.
"""
from __future__ import annotations

import itertools
from bisect import bisect_right, insort
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from layouts.steps.proper import ProperGraph

Layers = list[list[int]]
IntArray = NDArray[np.int64]

SORTED_LIST_ENDS = 4_000
#: Below these many links the sorted lists count faster than numpy's set-up and calls;
#: past these many pairs of links per link (wide pairs of layers), the pairs cost more.
PAIRED_MIN_LINKS = 32
PAIRS_PER_LINK = 32


def positions(graph: ProperGraph, layers: Layers) -> list[int]:
    position = [0] * graph.vertex_count
    for layer in layers:
        for index, vertex in enumerate(layer):
            position[vertex] = index
    return position


def drawn_crossings(graph: ProperGraph, layers: Layers, position: Sequence[int] | None = None) -> int:
    """``total_crossings`` and the crossings of the loops' turns; ``position`` as there."""
    if position is None:
        position = positions(graph, layers)
    return total_crossings(graph, layers, position) + _turn_crossings(_turn_ends(graph), position)


def _turn_ends(graph: ProperGraph) -> list[tuple[list[int], int]]:
    """Per end of a loop, its node's links on the loop's side and the loop's next vertex."""
    ends: list[tuple[list[int], int]] = []
    for edge in graph.reversed_edges - graph.bypass:
        chain = graph.chains[edge]
        ends += [(graph.down[chain[0]], chain[1]), (graph.up[chain[-1]], chain[-2])]
    return ends


def _turn_crossings(turn_ends: list[tuple[list[int], int]], position: Sequence[int]) -> int:
    """The crossings of the loops' turns with their nodes' links, each turn on the side
    where it crosses fewer."""
    turns = 0
    for node_links, neighbour in turn_ends:
        toward = position[neighbour]
        above = sum(1 for w in node_links if position[w] < toward)
        below = sum(1 for w in node_links if position[w] > toward)
        turns += min(above, below)
    return turns


class CrossingCounter:
    """``total_crossings`` and ``drawn_crossings`` of many orders of one graph. With
    enough links and no pair of layers with very many, the pairs of links between the
    same two layers are listed once and each count compares them all at once (numpy):
    two links cross when their upper ends and their lower ends lie in opposite orders."""

    def __init__(self, graph: ProperGraph) -> None:
        self.graph = graph
        self.turn_ends = _turn_ends(graph)
        self.pair_ends: list[IntArray] = []  # upper and lower ends of each pair's first and second link
        link_count = sum(len(adjacent) for adjacent in graph.down)
        if link_count < PAIRED_MIN_LINKS:
            return
        upper = np.repeat(np.arange(graph.vertex_count), [len(adjacent) for adjacent in graph.down])
        lower = np.fromiter(itertools.chain.from_iterable(graph.down), dtype=np.int64, count=link_count)
        layer = np.asarray(graph.layer_of)[upper]
        by_layer = np.argsort(layer, kind="stable")
        upper, lower, layer = upper[by_layer], lower[by_layer], layer[by_layer]
        # each link pairs with the links after it between the same two layers
        later = np.searchsorted(layer, layer, side="right") - np.arange(link_count) - 1
        if int(later.sum()) > PAIRS_PER_LINK * link_count:
            return
        first = np.repeat(np.arange(link_count), later)
        run_start = np.repeat(np.cumsum(later) - later, later)
        second = first + 1 + np.arange(len(first)) - run_start
        self.pair_ends = [upper[first], upper[second], lower[first], lower[second]]

    def links(self, layers: Layers, position: list[int]) -> int:
        """``total_crossings`` (``position`` of every vertex)."""
        if not self.pair_ends:
            return total_crossings(self.graph, layers, position)
        at = np.array(position, dtype=np.int64)
        upper_first, upper_second, lower_first, lower_second = (at[ends] for ends in self.pair_ends)
        return int(np.count_nonzero((upper_first - upper_second) * (lower_first - lower_second) < 0))

    def drawn(self, layers: Layers, position: list[int]) -> int:
        """``drawn_crossings`` (``position`` of every vertex)."""
        return self.links(layers, position) + _turn_crossings(self.turn_ends, position)


def total_crossings(graph: ProperGraph, layers: Layers, position: Sequence[int] | None = None) -> int:
    """The crossings among the links; ``position``, each vertex's index in its layer,
    when the caller has it."""
    if position is None:
        position = positions(graph, layers)
    return sum(
        bilayer_crossings(layers[k], graph.down, position, len(layers[k + 1]))
        for k in range(len(layers) - 1)
    )


def bilayer_crossings(upper: list[int], down: list[list[int]], position: Sequence[int], lower_size: int) -> int:
    """Crossings between two layers (``position`` of the lower layer's vertices)."""
    inserted: list[int] = []
    crossings = 0
    for vertex in upper:
        if len(inserted) > SORTED_LIST_ENDS:  # rare: start again with the tree
            return _fenwick_inversions(
                [end for v in upper for end in sorted([position[w] for w in down[v]])], lower_size)
        adjacent = down[vertex]
        if len(adjacent) == 1:  # most vertices: a dummy or a node in a sequence
            target = position[adjacent[0]]
            crossings += len(inserted) - bisect_right(inserted, target)  # inserted ends right of it
            insort(inserted, target)
        else:
            ends = [position[w] for w in adjacent]
            for target in ends:
                crossings += len(inserted) - bisect_right(inserted, target)
            for target in ends:
                insort(inserted, target)
    return crossings


def _fenwick_inversions(ends: list[int], lower_size: int) -> int:
    tree = [0] * (lower_size + 1)
    crossings = 0
    for inserted, target in enumerate(ends):
        i, at_most = target + 1, 0
        while i > 0:
            at_most += tree[i]
            i -= i & -i
        crossings += inserted - at_most
        i = target + 1
        while i <= lower_size:
            tree[i] += 1
            i += i & -i
    return crossings
