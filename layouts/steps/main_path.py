"""The main path: the longest chain of forward edges in each component.

Expects node indices ``0..n-1``, the edges with their drawing direction decided (reversed
edges left out) and ranks that order them (``rank[target] > rank[source]``). Guarantees:
for every weakly connected component, the edges of one path, returned as edge indices:
the longest path, where each ``preferred`` edge (a branch the modeller marked as the
default) counts ``DEFAULT_BONUS`` edges more, among equals the one through more
preferred edges, then through the earliest edges; in a DAG it ends at a sink, the
process's end. So a default branch is the straight line when its way to the end is
about as long as the longest, but a default that leaves the process early (an
exception's exit to its own end) does not pull the line off the process's length. Placement weights
these edges up so the happy path of a process runs on one straight line and branches
give way to it, as modellers draw by hand.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

from layouts.steps.components import weak_components

#: How many edges a default branch on the path is worth in its length.
DEFAULT_BONUS = 2


def main_path_edges(
    node_count: int, edges: Sequence[tuple[int, int]], ranks: Sequence[int], skip: Collection[int] = (),
    preferred: Collection[int] = ()
) -> frozenset[int]:
    length = [(0, 0)] * node_count  # (weighted length, preferred edges) of the best path ending here
    via: list[int | None] = [None] * node_count
    incoming: list[list[int]] = [[] for _ in range(node_count)]
    for index, (_, target) in enumerate(edges):
        if index not in skip:
            incoming[target].append(index)
    for node in sorted(range(node_count), key=lambda v: (ranks[v], v)):
        for index in incoming[node]:
            source = edges[index][0]
            is_default = index in preferred
            reached = (length[source][0] + 1 + DEFAULT_BONUS * is_default, length[source][1] + is_default)
            if reached > length[node]:
                length[node], via[node] = reached, index
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

