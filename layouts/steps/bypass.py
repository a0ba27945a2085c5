"""Routes of bypass edges: the costliest long edges of a dense graph, left out of the
layers by ``proper.make_proper``, each run out of its source through the next channel,
along a track beyond the drawing and into its target through the channel before it.

Expects the proper graph and the order coordinates of its vertices. Guarantees: tracks
lie beyond every vertex (and lane) on the low side of the order axis; forward bypass
edges of one fork (or merge) share a track and the segment out of (into) their common
end; groups whose channel spans do not overlap share a track, so tracks stay few.
"""
from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.steps.proper import ProperGraph


def drawn_ends(proper: ProperGraph, edge: int) -> tuple[int, int]:
    """(source, target) of ``edge`` as drawn: a reversed edge's chain runs target first."""
    chain = proper.chains[edge]
    return (chain[-1], chain[0]) if edge in proper.reversed_edges else (chain[0], chain[-1])


@dataclass(frozen=True, slots=True)
class BypassRoute:
    """How a bypass edge runs: out of its source through channel ``out_channel``, along
    the track at order coordinate ``track``, into its target through ``in_channel``;
    ``out_key``/``in_key`` name its two channel segments (shared within a fork or merge)."""

    out_channel: int
    in_channel: int
    track: float
    out_key: tuple[int, int]
    in_key: tuple[int, int]


def bypass_routes(proper: ProperGraph, order_pos: Sequence[float], before: Sequence[float],
                  lane_top: float | None, node_spacing: float,
                  edge_spacing: float) -> dict[int, BypassRoute]:
    """Tracks for the bypass edges, lines beyond everything else (lanes included) along
    the flow. Forward bypass edges sharing a source share a track and the segment out of
    it (a bus that drops off at each target), or, where more of them share their target,
    the track and the segment into it; groups whose channel spans do not overlap share
    a track (interval colouring), so the tracks stay few."""
    if not proper.bypass:
        return {}
    o = order_pos
    top = min(o[v] - before[v] for v in range(proper.vertex_count))
    if lane_top is not None:
        top = min(top, lane_top)
    ends = {edge: drawn_ends(proper, edge) for edge in sorted(proper.bypass)}
    forward = [edge for edge in ends if edge not in proper.reversed_edges]
    leaving = Counter(ends[edge][0] for edge in forward)
    entering = Counter(ends[edge][1] for edge in forward)
    groups: dict[tuple[int, int], list[int]] = {}  # (kind, node or edge) → edges; kind 0 fork, 1 merge, 2 alone
    channels: dict[int, tuple[int, int]] = {}
    for edge, (source, target) in ends.items():
        if edge in proper.reversed_edges:  # back through the channels before source and after target
            channels[edge] = (proper.layer_of[source] - 1, proper.layer_of[target])
            key = (2, edge)
        else:
            channels[edge] = (proper.layer_of[source], proper.layer_of[target] - 1)
            key = (0, source) if leaving[source] >= entering[target] else (1, target)
        groups.setdefault(key, []).append(edge)
    spans = sorted((min(min(channels[e]) for e in members), max(max(channels[e]) for e in members), key)
                   for key, members in groups.items())
    routes: dict[int, BypassRoute] = {}
    busy: list[tuple[int, int]] = []  # (last channel, track)
    free: list[int] = []
    used = 0
    for first, last, key in spans:
        while busy and busy[0][0] < first:
            heapq.heappush(free, heapq.heappop(busy)[1])
        track = heapq.heappop(free) if free else used
        used = max(used, track + 1)
        heapq.heappush(busy, (last, track))
        members = groups[key]
        for edge in members:
            out_key = (members[0], -1) if key[0] == 0 else (edge, -1)
            in_key = (members[0], -2) if key[0] == 1 else (edge, -2)
            routes[edge] = BypassRoute(*channels[edge], top - node_spacing - track * edge_spacing,
                                   out_key, in_key)
    return routes
