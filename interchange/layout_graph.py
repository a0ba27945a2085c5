"""The edges our engine lays out for one scope of a BPMN model, besides the builder's nodes.

``keyed_edges``: the builder's edges (``renderer.flow.flow_edges``, what the SVG of the
same model is laid out from) first and in the builder's order, since the crossing
reduction breaks its ties by edge order; each keyed by its sequence flow's BPMN id (a
builder's edge with no sequence flow, the link of a boundary event to its host, is left
out: ``positions`` lays no boundary event out, only its host). Then the flows the builder
does not know (data associations, a second sequence flow between the same two nodes),
in document order. Message flows are left out: as edges they would pull the nodes they
join towards each other, off their own pool's main path; they are routed once
everything is placed. So is whatever links a text annotation, which ``positions`` places
last (``drawn`` gives None for it).

``with_pool_ports``: a message flow between a flow node and a black-box pool (a pool
with nothing in it) enters the graph as a link from the node to a port, a small node of
its own in the pool's band: the engine then orders that band among the others so as to
keep those links short, as it does for flows between lanes, and the pool lies beside the
nodes it talks with. Ports and their links are not drawn (``is_drawn``): the route to the
pool is drawn once everything else is (``interchange.pool_routes``).

Keys and ids made here hold a colon, which no BPMN id (an XML NCName) does.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from interchange.model import BpmnModel
from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode

PORT = "port:"
PORT_KIND = "messagePort"

#: a node id → the id of the node drawn for it in the scope (itself, or the sub-process
#: around it), None when nothing of the scope stands for it
Drawn = Callable[[str], str | None]


def keyed_edges(model: BpmnModel, builder_edges: Iterable[LayoutEdge], drawn: Drawn) -> list[LayoutEdge]:
    """The scope's edges, in BPMN ids, from the builder's (in BPMN ids, unkeyed)."""
    ends = {flow.id: pair for flow in model.flows
            if (pair := _pair(drawn(flow.source), drawn(flow.target))) is not None}
    sequence: dict[tuple[str, str], list[str]] = {}
    for flow in model.flows:
        if flow.tag == "sequenceFlow" and flow.id in ends:
            sequence.setdefault(ends[flow.id], []).append(flow.id)
    defaults = {flow.id for flow in model.flows if flow.default}
    keyed = [replace(edge, key=flow_id, default_branch=flow_id in defaults) for edge in builder_edges
             if (flows := sequence.get((edge.source, edge.target))) and (flow_id := flows.pop(0))]
    used = {edge.key for edge in keyed}
    rest = [LayoutEdge(*ends[flow.id], key=flow.id) for flow in model.flows
            if flow.id in ends and flow.id not in used and flow.tag != "messageFlow"]
    return keyed + rest


def with_pool_ports(model: BpmnModel, graph: LayoutGraph, drawn: Drawn, port_size: float,
                    band_header: float) -> LayoutGraph:
    """The graph with a port in a band of its own for each message flow between a drawn
    node and a black-box pool; ``band_header`` is the header size the engine keeps the
    band at least as thick as."""
    pools = black_box_pools(model)
    nodes, edges, lanes = list(graph.nodes), list(graph.edges), list(graph.lanes)
    banded = {lane.id for lane in lanes}
    for flow in model.flows:
        if flow.tag != "messageFlow":
            continue
        for pool, end in ((flow.target, flow.source), (flow.source, flow.target)):
            node = drawn(end) if pool in pools else None
            if node is not None:
                port = f"{PORT}{flow.id}"
                nodes.append(LayoutNode(port, PORT_KIND, port_size, port_size, lane=pool))
                edges.append(LayoutEdge(node, port, key=port))
                if pool not in banded:
                    lanes.append(LaneSpec(pool, band_header, 0.0))
                    banded.add(pool)
                break
    return LayoutGraph(tuple(nodes), tuple(edges), tuple(lanes), graph.aligned)


def black_box_pools(model: BpmnModel) -> set[str]:
    """The pools with no flow node and no lane in them."""
    holding = {node.process for node in model.nodes if node.process} | {lane.process for lane in model.lanes}
    return {pool.id for pool in model.pools if not pool.process or pool.process not in holding}


def is_drawn(layout_id: str) -> bool:
    """Whether a node or route of the engine's layout is drawn: not a port nor its link."""
    return not layout_id.startswith(PORT)


def _pair(source: str | None, target: str | None) -> tuple[str, str] | None:
    return (source, target) if source is not None and target is not None and source != target else None
