"""Quality counts of a BPMN file's diagram interchange (DI): what the tests hold our
``elrepo layout`` output to and what ``benchmarks.bpmn_quality`` tabulates beside
bpmn-auto-layout's. Read from the DI alone (``interchange.di_metrics.read_planes``), plane
by plane: overlaps among flow-node shapes, sequence and message flows whose waypoints pass
through a shape other than their ends, that have no length or do not start and end on
their ends' borders (a pointed symbol's outline counts), nodes outside their lane's band,
crossings between flows, and what a layout drew of the model's nodes, pools, lanes and
message flows.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

from interchange.di_metrics import MEASURED_FLOWS, DiPlane, crossing_pairs, read_planes, route_length, segment_enters
from interchange.model import ANNOTATION, BpmnFlow, BpmnModel, BpmnNode
from interchange.parsing import parse_bpmn_xml
from interchange.reader import read_model
from layouts.geometry import Box, Point
from renderer.kinds import KINDS

#: two shapes must overlap by more than this on both axes to count
OVERLAP_TOLERANCE = 0.5
#: a flow whose waypoints are less than this long end to end is drawn as a dot
ZERO_LENGTH = 1.0
#: how far from its end's border a flow's first or last waypoint may lie
BORDER_TOLERANCE = 1.0
#: how far a node may stick out of its lane's band
LANE_TOLERANCE = 0.5


@dataclass(frozen=True, slots=True)
class DiQuality:
    """Counts over one file's DI (all its planes); ``*_drawn`` against ``*_total`` shows what a
    layout dropped. ``zero_length_flows`` and ``flows_off_their_ends`` count sequence and
    message flows: shorter than ``ZERO_LENGTH``, or starting or ending off their end's border."""

    overlaps: int = 0
    sequence_flows_through_shapes: int = 0
    message_flows_through_shapes: int = 0
    lane_violations: int = 0
    zero_length_flows: int = 0
    flows_off_their_ends: int = 0
    crossings: int = 0
    nodes_drawn: int = 0
    nodes_total: int = 0
    pools_drawn: int = 0
    pools_total: int = 0
    lanes_drawn: int = 0
    lanes_total: int = 0
    message_flows_drawn: int = 0
    message_flows_total: int = 0

    def __add__(self, other: DiQuality) -> DiQuality:
        return DiQuality(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


def measure_di(data: bytes) -> DiQuality:
    """The quality counts of a BPMN file's DI; a node, pool, lane or flow without DI is not drawn."""
    tree = parse_bpmn_xml(data)
    model = read_model(tree)
    planes = read_planes(tree)
    drawn_shapes = {shape_id for plane in planes for shape_id in plane.shapes}
    drawn_edges = {edge_id for plane in planes for edge_id in plane.edges}
    message_flows = [flow for flow in model.flows if flow.tag == "messageFlow"]
    nodes = [node for node in model.nodes if node.kind != ANNOTATION]
    totals = DiQuality(
        nodes_drawn=sum(node.id in drawn_shapes for node in nodes), nodes_total=len(nodes),
        pools_drawn=sum(pool.id in drawn_shapes for pool in model.pools), pools_total=len(model.pools),
        lanes_drawn=sum(lane.id in drawn_shapes for lane in model.lanes), lanes_total=len(model.lanes),
        message_flows_drawn=sum(flow.id in drawn_edges for flow in message_flows),
        message_flows_total=len(message_flows))
    for plane in planes:
        totals += _plane_quality(model, plane)
    return totals


def measured_flows(model: BpmnModel, plane: DiPlane) -> list[BpmnFlow]:
    """The sequence and message flows drawn in the plane, in document order."""
    return [flow for flow in model.flows if flow.tag in MEASURED_FLOWS and plane.edges.get(flow.id)]


def _plane_quality(model: BpmnModel, plane: DiPlane) -> DiQuality:
    nodes = [node for node in model.nodes if node.kind != ANNOTATION and node.id in plane.shapes]

    def around(node_id: str) -> set[str]:
        """The node, the sub-processes it lies in and, for a boundary event, its host."""
        found: set[str] = set()
        node = model.node(node_id)
        while node is not None and node.id not in found:
            found.add(node.id)
            if node.attached_to:
                found.add(node.attached_to)
            node = model.node(node.parent or node.attached_to or "")
        return found

    overlaps = sum(1 for index, a in enumerate(nodes) for b in nodes[index + 1:]
                   if b.id not in around(a.id) and a.id not in around(b.id)
                   and _overlap(plane.shapes[a.id], plane.shapes[b.id]))
    through = dict.fromkeys(MEASURED_FLOWS, 0)
    flows = measured_flows(model, plane)
    for flow in flows:
        ends = around(flow.source) | around(flow.target)
        if any(_passes_through(plane.edges[flow.id], plane.shapes[node.id]) for node in nodes if node.id not in ends):
            through[flow.tag] += 1
    lanes_outside = sum(1 for node in nodes
                        if node.lane and not node.attached_to and node.lane in plane.shapes
                        and not _inside(plane.shapes[node.id], plane.shapes[node.lane]))
    off_ends = sum(1 for flow in flows
                   if any(end in plane.shapes and not _on_end(point, plane.shapes[end], model.node(end))
                          for end, point in ((flow.source, plane.edges[flow.id][0]),
                                             (flow.target, plane.edges[flow.id][-1]))))
    return DiQuality(overlaps=overlaps, sequence_flows_through_shapes=through["sequenceFlow"],
                     message_flows_through_shapes=through["messageFlow"], lane_violations=lanes_outside,
                     zero_length_flows=sum(route_length(plane.edges[flow.id]) < ZERO_LENGTH for flow in flows),
                     flows_off_their_ends=off_ends,
                     crossings=len(crossing_pairs([plane.edges[flow.id] for flow in flows])))


def _on_end(point: Point, box: Box, node: BpmnNode | None) -> bool:
    """On the end's border: its box's outline or, for a pointed symbol (``Kind.pointed``),
    the symbol's own, a circle's (``Kind.round``) or a diamond's, where the flow layouts
    end an edge that meets the symbol off the middle of a side (a join's ports)."""
    if _on_border(point, box):
        return True
    kind = KINDS.get(node.shape_type) if node is not None else None
    if kind is None or not kind.pointed:
        return False
    half_w, half_h = box.w / 2, box.h / 2
    across, along = abs(point[0] - box.cx) / half_w, abs(point[1] - box.cy) / half_h
    reach = math.hypot(across, along) if kind.round else across + along
    return abs(reach - 1) * min(half_w, half_h) <= BORDER_TOLERANCE


def _on_border(point: Point, box: Box) -> bool:
    """Within ``BORDER_TOLERANCE`` of the box's outline."""
    x, y = point
    near = (box.x - BORDER_TOLERANCE <= x <= box.right + BORDER_TOLERANCE
            and box.y - BORDER_TOLERANCE <= y <= box.bottom + BORDER_TOLERANCE)
    return near and not (box.x + BORDER_TOLERANCE < x < box.right - BORDER_TOLERANCE
                         and box.y + BORDER_TOLERANCE < y < box.bottom - BORDER_TOLERANCE)


def _overlap(a: Box, b: Box) -> bool:
    return (min(a.right, b.right) - max(a.x, b.x) > OVERLAP_TOLERANCE
            and min(a.bottom, b.bottom) - max(a.y, b.y) > OVERLAP_TOLERANCE)


def _inside(inner: Box, outer: Box) -> bool:
    return (outer.x - LANE_TOLERANCE <= inner.x and inner.right <= outer.right + LANE_TOLERANCE
            and outer.y - LANE_TOLERANCE <= inner.y and inner.bottom <= outer.bottom + LANE_TOLERANCE)


def _passes_through(route: Sequence[Point], box: Box) -> bool:
    return any(segment_enters(p, q, box) for p, q in zip(route, route[1:]))
