"""The proper layered graph: long edges split by dummy vertices, one layer apart.

Expects ranks for the nodes and the edges with their drawing direction decided
(``reversed_edges`` are drawn against the flow). Guarantees: vertices ``0..n-1`` are the
nodes; each edge has a chain of vertices, one per layer from its upper to its lower end,
so every adjacency links consecutive layers (a link of a shared chain is listed once).
A forward edge's chain runs from its source to its target; a reversed edge's chain runs
from its target (upper layer) to its source. With swimlanes, every vertex has a lane: a
dummy lies in the lane of the node its edge leaves, so an edge runs along its source's
lane and changes lane once, next to its target.

Dense graphs: a complete DAG of n nodes needs about n³/6 dummies, one per edge and
crossed layer, and every later step grows with them. When the dummies would outnumber
``Budgets.concentrate_ratio`` per node and edge, forward edges that share a source or a target
share one dummy chain (edge concentration): a fan-out's chain runs to its farthest
target and each edge forks off it one layer before its own target, a fan-in's chain
merges its sources one layer after each. Each edge joins the bigger of its two bundles.
Whatever is left over ``dummy_budget`` (or over ``Budgets.chain_links`` links in all chains) is
not threaded through the layers at all: the costliest chains, in a fixed order, become
bypass edges (``bypass``; chain = its two ends) that the router draws around the
drawing. So the proper graph stays linear in the input; diagrams of real models (below
both thresholds) get exactly one chain per edge.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from layouts.budgets import DEFAULT_BUDGETS, Budgets


@dataclass(slots=True)
class ProperGraph:
    node_count: int
    layer_of: list[int]
    chains: list[list[int]]
    reversed_edges: frozenset[int]
    down: list[list[int]]
    up: list[list[int]]
    lane: list[int]
    bypass: frozenset[int] = field(default=frozenset())  # edges routed around the layers

    @property
    def vertex_count(self) -> int:
        return len(self.layer_of)

    def is_dummy(self, vertex: int) -> bool:
        return vertex >= self.node_count

    def layer_count(self) -> int:
        return max(self.layer_of, default=-1) + 1


def dummy_budget(node_count: int, edge_count: int, budgets: Budgets = DEFAULT_BUDGETS) -> int:
    """Dummies allowed at most: ``dummy_ratio`` per node and edge plus ``dummy_floor``,
    never above ``dummy_cap``."""
    return min(budgets.dummy_cap, budgets.dummy_ratio * (node_count + edge_count) + budgets.dummy_floor)


@dataclass(slots=True)
class _Bundle:
    """Edges sharing one dummy chain: ``first``..``last`` are the layers it crosses, its
    dummies lie in the lane ``lane``."""

    first: int
    last: int
    lane: int
    members: list[int]
    dummies: list[int] = field(default_factory=list)

    @property
    def cost(self) -> int:
        return max(self.last - self.first + 1, 0)

    def load(self, spans: Sequence[int]) -> int:
        """Links of its members' chains."""
        return sum(spans[member] for member in self.members)


def make_proper(
    ranks: Sequence[int], edges: Sequence[tuple[int, int]], reversed_edges: frozenset[int],
    node_lanes: Sequence[int] | None = None, budgets: Budgets = DEFAULT_BUDGETS,
) -> ProperGraph:
    layer_of = list(ranks)
    lane = list(node_lanes) if node_lanes is not None else [0] * len(ranks)
    ends = [(target, source) if index in reversed_edges else (source, target)
            for index, (source, target) in enumerate(edges)]
    bundle_of = _bundles(layer_of, lane, edges, ends, reversed_edges, budgets)
    distinct = list({id(bundle): bundle for bundle in bundle_of.values()}.values())
    spans = [layer_of[lower] - layer_of[upper] for upper, lower in ends]
    bypass = _bypass(distinct, spans, dummy_budget(len(ranks), len(edges), budgets), budgets.chain_links)
    down: list[list[int]] = [[] for _ in ranks]
    up: list[list[int]] = [[] for _ in ranks]
    linked: set[tuple[int, int]] = set()
    chains: list[list[int]] = []
    for index, (upper, lower) in enumerate(ends):
        bundle = bundle_of[index]
        if index in bypass:
            chains.append([upper, lower])
            continue
        if len(bundle.dummies) < bundle.cost:
            for layer in range(bundle.first, bundle.last + 1):
                bundle.dummies.append(len(layer_of))
                layer_of.append(layer)
                lane.append(bundle.lane)
                down.append([])
                up.append([])
        crossed = bundle.dummies[layer_of[upper] + 1 - bundle.first:layer_of[lower] - bundle.first]
        chain = [upper, *crossed, lower]
        shared = len(bundle.members) > 1
        for a, b in zip(chain, chain[1:]):
            if not shared or (a, b) not in linked:
                linked.add((a, b))
                down[a].append(b)
                up[b].append(a)
        chains.append(chain)
    return ProperGraph(len(ranks), layer_of, chains, reversed_edges, down, up, lane,
                       frozenset(index for index in range(len(edges)) if index in bypass))


def _bundles(layer_of: list[int], lane: list[int], edges: Sequence[tuple[int, int]],
             ends: list[tuple[int, int]], reversed_edges: frozenset[int], budgets: Budgets) -> dict[int, _Bundle]:
    """The chain each edge follows: its own, or with concentration a shared one (once plain
    chains would need more than ``concentrate_ratio`` dummies per node and edge plus
    ``concentrate_floor``; the corpus's densest diagram needs 1.6)."""
    spans = [layer_of[lower] - layer_of[upper] for upper, lower in ends]
    plain = sum(max(span - 1, 0) for span in spans)
    concentrate = plain > budgets.concentrate_ratio * (len(layer_of) + len(edges)) + budgets.concentrate_floor
    fan_out: dict[int, list[int]] = {}
    fan_in: dict[int, list[int]] = {}
    shareable: set[int] = set()
    if concentrate:
        for index, (source, target) in enumerate(edges):
            if index not in reversed_edges and spans[index] > 1:
                shareable.add(index)
                fan_out.setdefault(source, []).append(index)
                fan_in.setdefault(target, []).append(index)
    bundle_of: dict[int, _Bundle] = {}
    for index, (source, target) in enumerate(edges):
        if index in bundle_of:
            continue
        outgoing, incoming = fan_out.get(source, []), fan_in.get(target, [])
        upper, lower = ends[index]
        if index not in shareable or max(len(outgoing), len(incoming)) < 2:
            bundle_of[index] = _Bundle(layer_of[upper] + 1, layer_of[lower] - 1, lane[source], [index])
            continue
        by_source = len(outgoing) >= len(incoming)
        members = [m for m in (outgoing if by_source else incoming) if m not in bundle_of]
        if by_source:
            last = max(layer_of[edges[m][1]] for m in members) - 1
            bundle = _Bundle(layer_of[source] + 1, last, lane[source], members)
        else:
            first = min(layer_of[edges[m][0]] for m in members) + 1
            bundle = _Bundle(first, layer_of[target] - 1, lane[target], members)
        for member in members:
            bundle_of[member] = bundle
    return bundle_of


def _bypass(bundles: Sequence[_Bundle], spans: Sequence[int], budget: int, chain_links: int) -> set[int]:
    """Edges of the costliest bundles (most dummies, then most chain links), until the
    others' dummies fit ``budget`` and their chain links ``chain_links`` (every edge's
    chain, shared or not, is walked by routing and placement: a complete DAG of 100
    needs 166,650)."""
    dummies = sum(bundle.cost for bundle in bundles)
    loads = {id(bundle): bundle.load(spans) for bundle in bundles}
    links = sum(loads.values())
    bypass: set[int] = set()
    for bundle in sorted(bundles, key=lambda b: (-b.cost, -loads[id(b)], b.members[0])):
        if (dummies <= budget and links <= chain_links) or bundle.cost == 0:
            break
        dummies -= bundle.cost
        links -= loads[id(bundle)]
        bypass.update(bundle.members)
    return bypass
