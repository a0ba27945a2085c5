"""The main path: the longest chain of forward edges in each component.

Expects node indices ``0..n-1``, the edges with their drawing direction decided (reversed
edges left out) and ranks that order them (``rank[target] > rank[source]``). Guarantees:
for every weakly connected component, the edges of one longest path (most edges; among
equals the one through the earliest edges), returned as edge indices. Placement weights
these edges up so the happy path of a process runs on one straight line and branches
give way to it, as modellers draw by hand.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

from layouts.steps.components import weak_components


def main_path_edges(
    node_count: int, edges: Sequence[tuple[int, int]], ranks: Sequence[int], skip: Collection[int] = ()
) -> frozenset[int]:
    length = [0] * node_count
    via: list[int | None] = [None] * node_count
    incoming: list[list[int]] = [[] for _ in range(node_count)]
    for index, (_, target) in enumerate(edges):
        if index not in skip:
            incoming[target].append(index)
    for node in sorted(range(node_count), key=lambda v: (ranks[v], v)):
        for index in incoming[node]:
            source = edges[index][0]
            if length[source] + 1 > length[node]:
                length[node], via[node] = length[source] + 1, index
    component = weak_components(node_count, edges)
    best_end: dict[int, int] = {}
    for node in range(node_count):
        root = component[node]
        if root not in best_end or length[node] > length[best_end[root]]:
            best_end[root] = node
    chosen: set[int] = set()
    for end in best_end.values():
        step = via[end]
        while step is not None:
            chosen.add(step)
            step = via[edges[step][0]]
    return frozenset(chosen)

