"""The proper layered graph: long edges split by dummy vertices, one layer apart.

Expects ranks for the nodes and the edges with their drawing direction decided
(``reversed_edges`` are drawn against the flow). Guarantees: vertices ``0..n-1`` are the
nodes; each edge has a chain of vertices, one per layer from its upper to its lower end,
so every adjacency links consecutive layers. A forward edge's chain runs from its source
to its target; a reversed edge's chain runs from its target (upper layer) to its source.
With swimlanes, every vertex has a lane: a dummy lies in the lane of the node its edge
leaves, so an edge runs along its source's lane and changes lane once, next to its target.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(slots=True)
class ProperGraph:
    node_count: int
    layer_of: list[int]
    chains: list[list[int]]
    reversed_edges: frozenset[int]
    down: list[list[int]]
    up: list[list[int]]
    lane: list[int]

    @property
    def vertex_count(self) -> int:
        return len(self.layer_of)

    def is_dummy(self, vertex: int) -> bool:
        return vertex >= self.node_count

    def layer_count(self) -> int:
        return max(self.layer_of, default=-1) + 1


def make_proper(
    ranks: Sequence[int], edges: Sequence[tuple[int, int]], reversed_edges: frozenset[int],
    node_lanes: Sequence[int] | None = None,
) -> ProperGraph:
    layer_of = list(ranks)
    lane = list(node_lanes) if node_lanes is not None else [0] * len(ranks)
    down: list[list[int]] = [[] for _ in ranks]
    up: list[list[int]] = [[] for _ in ranks]
    chains: list[list[int]] = []
    for index, (source, target) in enumerate(edges):
        upper, lower = (target, source) if index in reversed_edges else (source, target)
        chain = [upper]
        for layer in range(layer_of[upper] + 1, layer_of[lower]):
            dummy = len(layer_of)
            layer_of.append(layer)
            lane.append(lane[source])
            down.append([])
            up.append([])
            chain.append(dummy)
        chain.append(lower)
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
        chains.append(chain)
    return ProperGraph(len(ranks), layer_of, chains, reversed_edges, down, up, lane)
