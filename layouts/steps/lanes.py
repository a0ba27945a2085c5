"""Swimlane order: which lane comes first across the flow (docs/contract.md, "Layout keys").

Expects the lanes in a preferred order (first appearance in the diagram), each node's
lane index in that order (nodes in shape order) and the edges. Guarantees, in this order
of precedence: the lane of the start (the first node without a predecessor, else the
first node) comes first; the lanes the main path (``main_path_edges`` of the start's
component) passes keep the order in which the path reaches them; within that, the
permutation that minimizes the total lane distance crossed by edges,
``sum |pos(lane a) - pos(lane b)|`` (shorter cross-lane edges, fewer edges crossing
lanes they do not touch), places the other lanes; among equal ones the one closest to
the preferred order. Exhaustive up to ``Budgets.exhaustive_lanes`` lanes, else adjacent swaps
that keep the main path's order, at most ``Budgets.lane_swap_passes`` passes; a swap's gain is computed
from the two lanes' own links, so a pass is linear in lanes and lane links however many
lanes there are. A lane named ``last`` (the "Unassigned" lane, ``UNASSIGNED_LANE``)
comes last whatever the rest says, and the main path does not order it.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import permutations

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.acyclic import feedback_edges
from layouts.steps.components import weak_components
from layouts.steps.layering import minimal_length_ranks
from layouts.steps.main_path import main_path_edges

#: The id of the lane of tasks without an org unit; the caller passes its index as ``last``.
UNASSIGNED_LANE = "unassigned"


def order_lanes(lane_count: int, node_lane: Sequence[int], edges: Sequence[tuple[int, int]],
                last: int | None = None, budgets: Budgets = DEFAULT_BUDGETS) -> list[int]:
    """Lane indices in their new order."""
    weight: dict[tuple[int, int], int] = {}
    for source, target in edges:
        a, b = node_lane[source], node_lane[target]
        if a != b:
            weight[(a, b)] = weight.get((a, b), 0) + 1
            weight[(b, a)] = weight.get((b, a), 0) + 1
    reached = [lane for lane in reached_lanes(node_lane, edges, budgets) if lane != last]
    fixed = set(reached)
    preferred = reached + [lane for lane in range(lane_count) if lane not in fixed and lane != last]
    tail = [] if last is None else [last]
    if lane_count <= budgets.exhaustive_lanes:
        def cost(order: Iterable[int]) -> int:
            position = {lane: i for i, lane in enumerate(order)}
            return sum(w * abs(position[a] - position[b]) for (a, b), w in weight.items()) // 2

        allowed = ([*order, *tail] for order in permutations(preferred)
                   if [lane for lane in order if lane in fixed] == reached
                   and (not reached or order[0] == reached[0]))
        return min(allowed, key=cost)
    linked: list[list[tuple[int, int]]] = [[] for _ in range(lane_count)]
    for (a, b), w in sorted(weight.items()):
        linked[a].append((b, w))
    order = preferred + tail
    position = [0] * lane_count
    for i, lane in enumerate(order):
        position[lane] = i
    for _ in range(budgets.lane_swap_passes):
        improved = False
        for i in range(1 if reached else 0, len(preferred) - 1):
            first, second = order[i], order[i + 1]
            if first in fixed and second in fixed:
                continue
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


def reached_lanes(node_lane: Sequence[int], edges: Sequence[tuple[int, int]],
                  budgets: Budgets = DEFAULT_BUDGETS) -> list[int]:
    """The start's lane, then the lanes of the start component's main path in the order
    the path reaches them, each once."""
    node_count = len(node_lane)
    if node_count == 0:
        return []
    has_predecessor = [False] * node_count
    for _, target in edges:
        has_predecessor[target] = True
    start = next((v for v in range(node_count) if not has_predecessor[v]), 0)
    reversed_edges = feedback_edges(node_count, edges, (start,))
    dag = [(t, s) if i in reversed_edges else (s, t) for i, (s, t) in enumerate(edges)]
    path = main_path_edges(node_count, dag, minimal_length_ranks(node_count, dag, budgets), skip=reversed_edges)
    following = {dag[i][0]: dag[i][1] for i in path}
    component = weak_components(node_count, dag)
    beginning = next((v for v in sorted(following)
                      if component[v] == component[start] and v not in following.values()), None)
    lanes = [node_lane[start]]
    node = beginning
    while node is not None:
        if node_lane[node] not in lanes:
            lanes.append(node_lane[node])
        node = following.get(node)
    return lanes

