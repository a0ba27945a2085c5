"""Swimlane order: which lane comes first across the flow.

Expects the lanes in a preferred order (first appearance in the diagram), each node's
lane index in that order, and the edges. Guarantees: a permutation of the lanes that
minimizes the total lane distance crossed by edges, ``sum |pos(lane a) - pos(lane b)|``
(shorter cross-lane edges, fewer edges crossing lanes they do not touch); among equal
ones the one closest to the preferred order. Exhaustive up to ``EXHAUSTIVE`` lanes, else
adjacent swaps from the preferred order until none helps, at most ``SWAP_PASSES``
passes; a swap's gain is computed from the two lanes' own links, so a pass is linear in
lanes and lane links however many lanes there are.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import permutations

EXHAUSTIVE = 7
SWAP_PASSES = 100


def order_lanes(lane_count: int, node_lane: Sequence[int], edges: Sequence[tuple[int, int]]) -> list[int]:
    """Lane indices in their new order."""
    weight: dict[tuple[int, int], int] = {}
    for source, target in edges:
        a, b = node_lane[source], node_lane[target]
        if a != b:
            weight[(a, b)] = weight.get((a, b), 0) + 1
            weight[(b, a)] = weight.get((b, a), 0) + 1
    preferred = list(range(lane_count))
    if lane_count <= EXHAUSTIVE:
        def cost(order: Iterable[int]) -> int:
            position = {lane: i for i, lane in enumerate(order)}
            return sum(w * abs(position[a] - position[b]) for (a, b), w in weight.items()) // 2

        return list(min(permutations(preferred), key=cost))
    linked: list[list[tuple[int, int]]] = [[] for _ in range(lane_count)]
    for (a, b), w in sorted(weight.items()):
        linked[a].append((b, w))
    order = preferred
    position = list(range(lane_count))
    for _ in range(SWAP_PASSES):
        improved = False
        for i in range(lane_count - 1):
            first, second = order[i], order[i + 1]
            # moving ``first`` one place on: its links to lanes before get longer, after shorter
            gain = sum(w if position[z] < i else -w for z, w in linked[first] if z != second)
            gain += sum(-w if position[z] < i else w for z, w in linked[second] if z != first)
            if gain < 0:
                order[i], order[i + 1] = second, first
                position[first], position[second] = i + 1, i
                improved = True
        if not improved:
            break
    return order
