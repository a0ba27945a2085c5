"""Counting crossings of a layered drawing, for the ordering steps.

``total_crossings`` counts the crossings among the links between consecutive layers
(a vertex's own links never cross each other); ``drawn_crossings`` adds those of the
loops' turns, which the drawing has too: a loop (a reversed edge) leaves and enters its
nodes from above or below them (the layered pipeline's turn vertices), on the side where
it crosses fewer of the node's links on that side of its layer. Between two layers the
count is the number of inversions among the lower ends taken in upper order, with a
sorted list and bisection (C code) for the usual layer and a Fenwick tree past
``SORTED_LIST_ENDS`` ends (Barth, Jünger, Mutzel).
"""
from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence

from layouts.steps.proper import ProperGraph

Layers = list[list[int]]

SORTED_LIST_ENDS = 4_000


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
    turns = 0
    for edge in graph.reversed_edges - graph.bypass:
        chain = graph.chains[edge]
        for node, neighbour, adjacency in ((chain[0], chain[1], graph.down), (chain[-1], chain[-2], graph.up)):
            toward = position[neighbour]
            above = sum(1 for w in adjacency[node] if position[w] < toward)
            below = sum(1 for w in adjacency[node] if position[w] > toward)
            turns += min(above, below)
    return total_crossings(graph, layers, position) + turns


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
