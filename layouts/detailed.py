"""``detailed``: the vertical flow with each task's related elements beside it.

Expects the flow nodes and edges as the flow layouts take them, plus nodes of role
``satellite`` whose ``parent`` is the flow node they belong to (their host, which has no
outside label of its own), and one edge per satellite joining it to its host (host →
satellite, or satellite → host for an input flowing into the task).

Steps: each host gets an outside-label region as large as its satellites stacked in a
column plus a connector gap; the layered pipeline (vertical) places the flow and keeps
that region free; the satellites are stacked in the region, centred on their host; each
gets a short orthogonal connector from the host's side through the gap.

Guarantees: every flow edge is routed by the layered pipeline as in ``vertical`` (the
regions only make room); satellites overlap no node and no other satellite; a connector
runs only through the gap between its host and its satellites, straight where the
satellite faces its port, else with two bends, and connectors of one host never cross;
hosts keep no label box (their name is inside the symbol). Deterministic.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import VERTICAL, Box, Direction, EdgeRoute, Layout, NodeBox, Point
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.layered import layered_layout


@dataclass(frozen=True, slots=True)
class DetailedLayout:
    key: str = "detailed"
    direction: Direction = VERTICAL  # the flow of tasks runs down; a sketch is read along it
    connector_gap: float = 26.0
    satellite_spacing: float = 6.0
    straight_inset: float = 4.0
    port_spacing: float = 6.0
    arrow_spacing: float = 12.0

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        satellites = _satellites_by_host(graph)
        inputs = {edge.source for edge in graph.edges}  # a satellite that is a source flows into its host
        flow_nodes = tuple(self._with_region(node, satellites.get(node.id, ())) for node in graph.nodes
                           if node.role != "satellite")
        satellite_ids = {node.id for hosted in satellites.values() for node in hosted}
        flow_edges = tuple(e for e in graph.edges if e.source not in satellite_ids and e.target not in satellite_ids)
        flow = layered_layout(LayoutGraph(flow_nodes, flow_edges, graph.lanes), options, self.direction)
        nodes: list[NodeBox] = []
        spokes: dict[str, tuple[Point, ...]] = {}  # satellite id → its connector, host to satellite
        for node in flow.nodes:
            hosted = satellites.get(node.id, ())
            if not hosted:
                nodes.append(node)
                continue
            assert node.label is not None
            nodes.append(NodeBox(node.id, node.box))
            boxes = self._stack(node.box, node.label, hosted)
            nodes += [NodeBox(satellite.id, box) for satellite, box in zip(hosted, boxes)]
            inward = [satellite.id in inputs for satellite in hosted]
            spokes.update(zip((satellite.id for satellite in hosted), self._spokes(node.box, boxes, inward)))
        host_of = {satellite.id: host for host, hosted in satellites.items() for satellite in hosted}
        connectors = [_connector(edge, host_of, spokes) for edge in graph.edges
                      if edge.source in satellite_ids or edge.target in satellite_ids]
        return Layout(flow.width, flow.height, tuple(nodes), flow.edges + tuple(connectors), flow.lanes)

    def _with_region(self, node: LayoutNode, hosted: Sequence[LayoutNode]) -> LayoutNode:
        """``node`` with an outside-label region that holds its satellite column."""
        if not hosted:
            return node
        if node.label_width > 0 and node.label_height > 0:
            raise LayoutError(f"node {node.id!r} has an outside label and satellites; only one fits beside it")
        width = self.connector_gap + max(s.width for s in hosted)
        height = sum(s.height for s in hosted) + self.satellite_spacing * (len(hosted) - 1)
        return replace(node, label_width=width, label_height=height)

    def _stack(self, host: Box, region: Box, hosted: Sequence[LayoutNode]) -> list[Box]:
        """Satellite boxes in a column inside ``region``, against its far side from the
        host (so the connector gap lies between host and column)."""
        right_of_host = region.x >= host.right - 1e-6
        boxes: list[Box] = []
        y = region.y
        for satellite in hosted:
            x = region.x + self.connector_gap if right_of_host else region.right - self.connector_gap - satellite.width
            boxes.append(Box(round(x, 2), round(y, 2), satellite.width, satellite.height))
            y += satellite.height + self.satellite_spacing
        return boxes

    def _spokes(self, host: Box, boxes: Sequence[Box], inward: Sequence[bool]) -> list[tuple[Point, ...]]:
        """The connectors from ``host`` to its stacked satellites ``boxes``, in order.

        Ports on the host side follow the satellites' order, at least ``port_spacing``
        apart, and ``arrow_spacing`` (more than an arrowhead is wide) between two
        ``inward`` connectors, whose arrowheads end on the host's side, so they never
        stack; where the side is too short for that the spacings shrink alike, spreading
        the ports over the whole side. Each port is as near its satellite's centre as
        the side allows; a satellite that
        faces its port is joined straight across, the others bend once on a vertical
        trunk in the gap. Trunks of satellites above their port get farther from the
        host downwards, those below it upwards: with monotone ports that nesting keeps
        every pair of connectors of one host from crossing."""
        low, high = host.y + self.straight_inset, host.bottom - self.straight_inset
        wanted = [0.0] + [self.arrow_spacing if inward[k - 1] and inward[k] else self.port_spacing
                          for k in range(1, len(boxes))]
        shrink = min(1.0, (high - low) / sum(wanted)) if sum(wanted) > 0 else 1.0
        spacing = [gap * shrink for gap in wanted]
        ports = [min(max(box.cy, low), high) for box in boxes]
        for k in range(1, len(ports)):
            ports[k] = max(ports[k], ports[k - 1] + spacing[k])
        for k in range(len(ports) - 1, -1, -1):
            ports[k] = min(ports[k], high if k == len(ports) - 1 else ports[k + 1] - spacing[k + 1])
        right = boxes[0].x >= host.right
        side = host.right if right else host.x
        facing = [box.y + self.straight_inset <= port <= box.bottom - self.straight_inset
                  for box, port in zip(boxes, ports)]
        above = [k for k, box in enumerate(boxes) if not facing[k] and box.cy < ports[k]]
        below = [k for k, box in enumerate(boxes) if not facing[k] and box.cy > ports[k]]
        depth = {k: i for i, k in enumerate(above)} | {k: i for i, k in enumerate(reversed(below))}
        gap = (boxes[0].x - side) if right else (side - boxes[0].right)
        step = gap / (max(len(above), len(below), 1) + 1)
        spokes: list[tuple[Point, ...]] = []
        for k, (box, port) in enumerate(zip(boxes, ports)):
            end = box.x if right else box.right
            if facing[k]:
                points: tuple[Point, ...] = ((side, port), (end, port))
            else:
                trunk = side + (depth[k] + 1) * step * (1 if right else -1)
                points = ((side, port), (trunk, port), (trunk, box.cy), (end, box.cy))
            spokes.append(tuple((round(x, 2), round(y, 2)) for x, y in points))
        return spokes


def _connector(edge: LayoutEdge, host_of: dict[str, str], spokes: dict[str, tuple[Point, ...]]) -> EdgeRoute:
    """The route of a satellite edge: its spoke, reversed when it runs satellite → host."""
    inward = edge.source in spokes
    satellite_id, host_id = (edge.source, edge.target) if inward else (edge.target, edge.source)
    if host_of.get(satellite_id) != host_id:
        raise LayoutError(f"edge {edge.source!r} -> {edge.target!r} does not join a satellite to its host")
    points = spokes[satellite_id]
    return EdgeRoute(edge.source, edge.target, tuple(reversed(points)) if inward else points, key=edge.key)


def _satellites_by_host(graph: LayoutGraph) -> dict[str, tuple[LayoutNode, ...]]:
    """Satellites per host id, in graph order; a satellite whose parent is not a flow
    node is an error the builder made."""
    flow_ids = {node.id for node in graph.nodes if node.role != "satellite"}
    hosted: dict[str, list[LayoutNode]] = {}
    for node in graph.nodes:
        if node.role == "satellite":
            if node.parent not in flow_ids:
                raise LayoutError(f"satellite {node.id!r} has no host in the flow")
            assert node.parent is not None
            hosted.setdefault(node.parent, []).append(node)
    return {host: tuple(nodes) for host, nodes in hosted.items()}


DETAILED = DetailedLayout()
