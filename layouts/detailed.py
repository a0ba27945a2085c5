"""``detailed``: the vertical flow with each task's related elements beside it.

Expects the flow nodes and edges as the flow layouts take them, plus nodes of role
``satellite`` whose ``parent`` is the flow node they belong to (their host, which has no
outside label of its own), and one edge per satellite joining it to its host (host →
satellite, or satellite → host for an input flowing into the task).

Steps: each host gets an outside-label region as large as its satellites stacked in a
column plus a connector gap; the layered pipeline (vertical) places the flow and keeps
that region free; the satellites are stacked in the region, centred on their host; each
gets a short orthogonal connector from the host's side through the gap.

Guarantees: the flow drawn as ``vertical`` draws it (same routes); satellites overlap no
node and no other satellite; a connector runs only through the gap between its host
and its satellites (straight when the satellite faces the host's side, else with two
bends);
hosts keep no label box (their name is inside the symbol). Deterministic.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Box, EdgeRoute, Layout, NodeBox, Point
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.layered import VERTICAL, layered_layout


@dataclass(frozen=True, slots=True)
class DetailedLayout:
    key: str = "detailed"
    connector_gap: float = 26.0
    satellite_spacing: float = 6.0
    port_inset: float = 8.0
    straight_inset: float = 3.0

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        satellites = _satellites_by_host(graph)
        flow_nodes = tuple(self._with_region(node, satellites.get(node.id, ())) for node in graph.nodes
                           if node.role != "satellite")
        satellite_ids = {node.id for hosted in satellites.values() for node in hosted}
        flow_edges = tuple(e for e in graph.edges if e.source not in satellite_ids and e.target not in satellite_ids)
        flow = layered_layout(LayoutGraph(flow_nodes, flow_edges, graph.lanes), options, VERTICAL)
        placed: dict[str, Box] = {}
        nodes: list[NodeBox] = []
        for node in flow.nodes:
            hosted = satellites.get(node.id, ())
            if not hosted:
                nodes.append(node)
                continue
            assert node.label is not None
            nodes.append(NodeBox(node.id, node.box))
            for satellite, box in zip(hosted, self._stack(node.box, node.label, hosted)):
                placed[satellite.id] = box
                nodes.append(NodeBox(satellite.id, box))
        host_box = {node.id: node.box for node in flow.nodes}
        host_of = {satellite.id: host for host, hosted in satellites.items() for satellite in hosted}
        connectors = [self._connector(edge, host_of, host_box, placed) for edge in graph.edges
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

    def _connector(self, edge: LayoutEdge, host_of: dict[str, str], hosts: dict[str, Box],
                   satellites: dict[str, Box]) -> EdgeRoute:
        """From the host side facing the satellite to the satellite's near side;
        reversed when the edge runs satellite → host."""
        inward = edge.source in satellites
        satellite_id, host_id = (edge.source, edge.target) if inward else (edge.target, edge.source)
        if host_of.get(satellite_id) != host_id:
            raise LayoutError(f"edge {edge.source!r} -> {edge.target!r} does not join a satellite to its host")
        satellite = satellites[satellite_id]
        host = hosts[host_id]
        # straight across wherever host side and satellite face each other, else from a
        # port on the host side with two bends in the gap
        low = max(host.y + self.straight_inset, satellite.y + self.straight_inset)
        high = min(host.bottom - self.straight_inset, satellite.bottom - self.straight_inset)
        if low <= high:
            port_y = y = min(max(satellite.cy, low), high)
        else:
            port_y = min(max(satellite.cy, host.y + self.port_inset), host.bottom - self.port_inset)
            y = satellite.cy
        if satellite.x >= host.right:
            start_x, end_x = host.right, satellite.x
        else:
            start_x, end_x = host.x, satellite.right
        trunk = round((start_x + end_x) / 2, 2)
        points: list[Point] = [(start_x, port_y)]
        if abs(port_y - y) > 1e-6:
            points += [(trunk, port_y), (trunk, y)]
        points.append((end_x, y))
        if inward:
            points.reverse()
        return EdgeRoute(edge.source, edge.target, tuple((round(px, 2), round(py, 2)) for px, py in points),
                         key=edge.key)


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
