"""Swimlane order: which lane comes first across the flow.

Expects the lanes in a preferred order (first appearance in the diagram), each node's
lane index in that order, and the edges. Guarantees: a permutation of the lanes that
minimizes the total lane distance crossed by edges, ``sum |pos(lane a) - pos(lane b)|``
(shorter cross-lane edges, fewer edges crossing lanes they do not touch); among equal
ones the one closest to the preferred order. Exhaustive up to ``EXHAUSTIVE`` lanes, else
adjacent swaps from the preferred order until none helps.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import permutations

EXHAUSTIVE = 7


def order_lanes(lane_count: int, node_lane: Sequence[int], edges: Sequence[tuple[int, int]]) -> list[int]:
    """Lane indices in their new order."""
    weight = [[0] * lane_count for _ in range(lane_count)]
    for source, target in edges:
        a, b = node_lane[source], node_lane[target]
        if a != b:
            weight[a][b] += 1
            weight[b][a] += 1

    def cost(order: Iterable[int]) -> int:
        position = {lane: i for i, lane in enumerate(order)}
        return sum(weight[a][b] * abs(position[a] - position[b])
                   for a in range(lane_count) for b in range(a + 1, lane_count))

    preferred = list(range(lane_count))
    if lane_count <= EXHAUSTIVE:
        return list(min(permutations(preferred), key=cost))
    order = preferred
    improved = True
    while improved:
        improved = False
        for i in range(lane_count - 1):
            candidate = order[:i] + [order[i + 1], order[i]] + order[i + 2:]
            if cost(candidate) < cost(order):
                order, improved = candidate, True
    return order
