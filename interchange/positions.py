"""Where everything of a BPMN model goes: our engine's layout, in BPMN ids.

The same pipeline as ``renderer.api.render`` (fixture → builder → strategy), run once
per scope: every sub-process with content first, so it enters its parent's layout as a
box of the size of its own drawing and is expanded in place; then the process level,
with a band per lane (or per pool without lanes) when the model has lanes or several
pools, message flows, associations and data associations as edges of the same graph,
and text annotations as boxes beside what they annotate. The builder's edges keep the
builder's order, the SVG's; a black-box pool gets a band of its own beside the nodes it
exchanges messages with (``interchange.layout_graph``).

Guarantees: a box for every node, pool, lane and group, at least two waypoints for every flow
and association between nodes, boundary events centred on their host's lower border and
flows rerouted around the nodes they would pass through once the events sit there
(``interchange.routing``), message flows to a pool routed last, each where it crosses
the fewest flows, and between two pools that touch round their side
(``interchange.pool_routes``), then the flows the engine did not weigh
routed anew where that crosses fewer (``routing.fewer_crossings``); coordinates ≥
``MARGIN``. Deterministic.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace

from interchange.fixture import lane_keys, scope_fixture, scope_nodes, uses_lanes
from interchange.layout_graph import is_drawn, keyed_edges, with_pool_ports
from interchange.model import ANNOTATION, BpmnFlow, BpmnModel, BpmnNode
from interchange.parsing import BpmnError
from interchange.pool_routes import between_pools, to_pool
from interchange.routing import (
    clear_of_shapes,
    fewer_crossings,
    from_boundary_event,
    middle,
    self_loop,
    straight_between,
    towards,
)
from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Box, Layout, Point
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.layered import POINTED_KINDS
from layouts.registry import get_strategy
from renderer.contract import RenderInputError
from renderer.culture import DEFAULT_CULTURE, Cultures
from renderer.flow import flow_graph, swimlane_graph
from renderer.measure import measure_box
from renderer.model import parse_diagram
from renderer.text import FontMetrics, load_font

#: BPMN layout key → (strategy without bands, strategy with bands).
LAYOUTS = {
    "horizontal": ("horizontal", "horizontalSwimlane"),
    "horizontalSwimlane": ("horizontal", "horizontalSwimlane"),
    "vertical": ("vertical", "verticalSwimlane"),
    "verticalSwimlane": ("vertical", "verticalSwimlane"),
}
SUBPROCESS_HEADER = 24.0  # room for an expanded sub-process's name above its content
POOL_HEADER = 30.0  # the pool's name strip, as BPMN modellers draw it
EMPTY_BAND = 80.0  # thickness of a pool or lane with nothing in it
MARGIN = 20.0
BOUNDARY_STEP = 44.0
LABEL_WIDTH = 90.0
LABEL_LINE = 14.0
GROUP_PADDING = 12.0  # between a group's frame and its members
EMPTY_GROUP = Box(0.0, 0.0, 120.0, 80.0)  # the frame of a group whose members are unknown


@dataclass(frozen=True, slots=True)
class BpmnGeometry:
    """Bounds by BPMN id (nodes, pools, lanes), label bounds, flow waypoints; pools and
    lanes are ``horizontal`` bands (flow left to right) or columns."""

    horizontal: bool
    shapes: Mapping[str, Box]
    labels: Mapping[str, Box]
    edges: Mapping[str, tuple[Point, ...]]
    expanded: frozenset[str]


def bpmn_positions(model: BpmnModel, layout_key: str, font: FontMetrics | None = None,
                   options: LayoutOptions | None = None) -> BpmnGeometry:
    if layout_key not in LAYOUTS:
        raise BpmnError(f"unknown BPMN layout {layout_key!r}; one of: {', '.join(LAYOUTS)}")
    return _Positions(model, layout_key, font or load_font(), options or LayoutOptions()).run()


class _Positions:
    def __init__(self, model: BpmnModel, layout_key: str, font: FontMetrics, options: LayoutOptions) -> None:
        self.model = model
        self.flat_key, self.band_key = LAYOUTS[layout_key]
        self.horizontal = self.flat_key == "horizontal"
        self.font = font
        self.options = options
        self.cultures = Cultures(DEFAULT_CULTURE, DEFAULT_CULTURE)
        self.bands = lane_keys(model)
        self.inner: dict[str, Layout] = {}  # sub-process id → its content's layout

    def run(self) -> BpmnGeometry:
        top = self._layout(None)
        shapes: dict[str, Box] = {}
        labels: dict[str, Box] = {}
        edges: dict[str, tuple[Point, ...]] = {}
        self._place(top, 0.0, 0.0, shapes, labels, edges)
        self._attach_boundary_events(shapes, labels, edges)
        bands = {lane.id: lane.box for lane in top.lanes}
        self._pools_and_lanes(top, bands, shapes)
        self._routes_outside_layout(shapes, edges)
        clear_of_shapes(self.model, shapes, edges, self.options.edge_spacing)
        fewer_crossings(self.model, shapes, edges, self.options.edge_spacing)
        self._groups(shapes)
        self._flow_labels(edges, labels)
        return _shifted(BpmnGeometry(self.horizontal, shapes, labels, edges, frozenset(self.inner)))

    def _layout(self, scope: str | None) -> Layout:
        nodes = scope_nodes(self.model, scope)
        for node in nodes:
            if node.expandable and scope_nodes(self.model, node.id):
                self.inner[node.id] = self._layout(node.id)
        with_bands = scope is None and uses_lanes(self.model)
        bands = self.bands if with_bands else {}
        scope_fix = scope_fixture(self.model, nodes, bands)
        try:
            diagram = parse_diagram(scope_fix.fixture)
        except RenderInputError as error:
            raise BpmnError(f"cannot lay out {scope or 'the process level'}: {error}") from None
        builder = swimlane_graph if with_bands else flow_graph
        key = self.band_key if with_bands else self.flat_key
        graph, _ = builder(diagram, self.cultures, self.font, key)
        by_shape = {f"shape-{index}": bpmn_id for index, bpmn_id in enumerate(scope_fix.bpmn_ids)}
        layout_nodes = [self._sized(replace(node, id=by_shape[node.id])) for node in graph.nodes]
        drawn_bands = [lane.id for lane in graph.lanes]
        layout_nodes += [self._annotation(node, bands.get(node.id), drawn_bands)
                         for node in nodes if node.kind == ANNOTATION]
        ids = {node.id for node in layout_nodes}

        def drawn(node_id: str) -> str | None:
            return self._drawn(node_id, ids)

        builder_edges = [LayoutEdge(by_shape[edge.source], by_shape[edge.target]) for edge in graph.edges]
        graph = LayoutGraph(tuple(layout_nodes), tuple(keyed_edges(self.model, builder_edges, drawn)), graph.lanes)
        if with_bands:
            graph = with_pool_ports(self.model, graph, drawn, self.options.edge_spacing,
                                    EMPTY_BAND - 2 * self.options.edge_spacing)
        try:
            return get_strategy(key).layout(graph, self.options)
        except LayoutError as error:
            raise BpmnError(f"cannot lay out {scope or 'the process level'}: {error}") from None

    def _sized(self, node: LayoutNode) -> LayoutNode:
        inner = self.inner.get(node.id)
        if inner is None:
            return node
        return replace(node, width=max(node.width, inner.width), height=inner.height + SUBPROCESS_HEADER)

    def _annotation(self, node: BpmnNode, band: str | None, drawn_bands: list[str]) -> LayoutNode:
        """A text annotation's box, in its band when that band is drawn, else the first."""
        measured = measure_box(self.cultures.pick(node.names) or "", self.font)
        lane = (band if band in drawn_bands else drawn_bands[0]) if drawn_bands else None
        return LayoutNode(node.id, "textAnnotation", measured.width, measured.height, lane=lane)

    def _drawn(self, node_id: str, ids: set[str]) -> str | None:
        node = self.model.node(node_id)
        while node is not None and node.id not in ids:
            node = self.model.node(node.parent) if node.parent else None
        return node.id if node else None

    def _place(self, layout: Layout, dx: float, dy: float, shapes: dict[str, Box],
               labels: dict[str, Box], edges: dict[str, tuple[Point, ...]]) -> None:
        """Absolute positions of one scope's layout and, recursively, its sub-processes'."""
        for placed in layout.nodes:
            if not is_drawn(placed.id):
                continue
            box = _moved(placed.box, dx, dy)
            shapes[placed.id] = box
            if placed.label is not None:
                labels[placed.id] = _moved(placed.label, dx, dy)
            inner = self.inner.get(placed.id)
            if inner is not None:
                self._place(inner, box.x + (box.w - inner.width) / 2, box.y + SUBPROCESS_HEADER,
                            shapes, labels, edges)
        for route in layout.edges:
            if is_drawn(route.key):
                edges.setdefault(route.key, tuple((x + dx, y + dy) for x, y in route.points))

    def _attach_boundary_events(self, shapes: dict[str, Box], labels: dict[str, Box],
                                edges: dict[str, tuple[Point, ...]]) -> None:
        """Each boundary event onto its host's lower border, right to left; its outgoing
        routes start at the event's bottom and join the route it had."""
        placed_on: dict[str, int] = {}
        for node in self.model.nodes:
            host = shapes.get(str(node.attached_to)) if node.attached_to else None
            if host is None or node.id not in shapes:
                continue
            old = shapes[node.id]
            slot = placed_on.get(str(node.attached_to), 0)
            placed_on[str(node.attached_to)] = slot + 1
            cx = max(host.x + old.w / 2, host.right - old.w / 2 - 6 - slot * BOUNDARY_STEP)
            box = Box(cx - old.w / 2, host.bottom - old.h / 2, old.w, old.h)
            shapes[node.id] = box
            if node.id in labels:
                label = labels[node.id]
                labels[node.id] = Box(cx - label.w / 2, box.bottom + 2, label.w, label.h)
            for flow in self.model.flows:
                route = edges.get(flow.id)
                if route and flow.source == node.id:
                    edges[flow.id] = from_boundary_event(box, route, self.options.edge_spacing)

    def _pools_and_lanes(self, top: Layout, bands: dict[str, Box], shapes: dict[str, Box]) -> None:
        """Lanes as the bands the engine drew (a parent lane around its child lanes), each
        pool around its bands plus its name strip; empty pools and lanes as bands after
        everything else. Without bands, the one pool around the whole drawing."""
        if not uses_lanes(self.model):
            for pool in self.model.pools:
                shapes[pool.id] = self._with_header(Box(0.0, 0.0, top.width, top.height))
            return
        drawing = _union(list(bands.values())) if bands else Box(0.0, 0.0, top.width, top.height)
        end = drawing.bottom if self.horizontal else drawing.right
        for lane in reversed(self.model.lanes):  # children before parents
            children = [shapes[child.id] for child in self.model.lanes
                        if child.parent == lane.id and child.id in shapes]
            own = [bands[lane.id]] if lane.id in bands else []
            if own or children:
                shapes[lane.id] = _union(own + children)
        holders = [(pool.id, pool.process) for pool in self.model.pools]
        holders += [(process, process) for process in self.model.processes
                    if self.model.pool_of_process(process) is None]
        for holder_id, process in holders:
            parts = [shapes[lane.id] for lane in self.model.lanes
                     if lane.process == process and lane.parent is None and lane.id in shapes]
            parts += [bands[holder_id]] if holder_id in bands else []
            if not parts:
                parts, end = [self._band_after(drawing, end)], end + EMPTY_BAND
            if holder_id in {pool.id for pool in self.model.pools}:
                shapes[holder_id] = self._with_header(_union(parts))
        for lane in self.model.lanes:
            if lane.id not in shapes:
                shapes[lane.id], end = self._band_after(drawing, end), end + EMPTY_BAND

    def _band_after(self, drawing: Box, end: float) -> Box:
        if self.horizontal:
            return Box(drawing.x, end, drawing.w, EMPTY_BAND)
        return Box(end, drawing.y, EMPTY_BAND, drawing.h)

    def _with_header(self, box: Box) -> Box:
        if self.horizontal:
            return Box(box.x - POOL_HEADER, box.y, box.w + POOL_HEADER, box.h)
        return Box(box.x, box.y - POOL_HEADER, box.w, box.h + POOL_HEADER)

    def _routes_outside_layout(self, shapes: dict[str, Box], edges: dict[str, tuple[Point, ...]]) -> None:
        """Routes the layout graph cannot hold: a flow from a node to itself loops over
        its upper right corner; a message flow to a pool runs across to its border, around
        the shapes in between (``_to_pool``), one between two pools after those
        (``_between_pools``); an association with a flow runs to the middle of that flow.
        The routes from a node to a pool are drawn twice: the second time each knows all
        the others."""
        to_pools: list[tuple[str, str, str]] = []
        pool_to_pool: list[BpmnFlow] = []
        for flow in self.model.flows:
            if flow.id in edges:
                continue
            box_end = flow.source if flow.source in shapes else flow.target
            flow_end = flow.target if box_end == flow.source else flow.source
            if box_end in shapes and edges.get(flow_end):
                edges[flow.id] = towards(shapes[box_end], middle(edges[flow_end]), box_end == flow.source)
            if flow.source not in shapes or flow.target not in shapes:
                continue
            source, target = shapes[flow.source], shapes[flow.target]
            pools = [end for end in (flow.source, flow.target) if self.model.node(end) is None]
            if flow.source == flow.target:
                edges[flow.id] = self_loop(source, self.options.edge_spacing)
            elif flow.tag == "messageFlow" and len(pools) == 2:
                pool_to_pool.append(flow)
            elif flow.tag == "messageFlow" and pools:
                to_pools.append((flow.id, flow.source if pools[0] == flow.target else flow.target, pools[0]))
                edges[flow.id] = self._to_pool(*to_pools[-1], shapes, edges)
            else:
                edges[flow.id] = straight_between(source, target, self.horizontal)
        self._between_pools(pool_to_pool, shapes, edges)
        for flow_id, node_id, pool_id in to_pools:
            del edges[flow_id]
            edges[flow_id] = self._to_pool(flow_id, node_id, pool_id, shapes, edges)

    def _to_pool(self, flow_id: str, node_id: str, pool_id: str, shapes: Mapping[str, Box],
                 edges: Mapping[str, tuple[Point, ...]]) -> tuple[Point, ...]:
        """Around every flow node but the sub-processes the route starts in, crossing as
        few of the other routes as it can (``pool_routes.to_pool``); from the pool when
        the pool is the flow's source."""
        around = {node_id, *self._ancestors(node_id)}
        obstacles = [shapes[n.id] for n in self.model.nodes if n.id in shapes and n.id not in around]
        node = self.model.node(node_id)
        flat = node is not None and node.shape_type not in POINTED_KINDS
        route = to_pool(shapes[node_id], shapes[pool_id], obstacles, edges.values(), self.horizontal,
                        self.options.edge_spacing, flat)
        return route if any(flow.id == flow_id and flow.target == pool_id for flow in self.model.flows) \
            else route[::-1]

    def _between_pools(self, flows: list[BpmnFlow], shapes: Mapping[str, Box],
                       edges: dict[str, tuple[Point, ...]]) -> None:
        """The message flows from a pool to another, around every flow node, numbered in
        document order among the flows between the same two pools (``pool_routes.between_pools``)."""
        pairs = Counter(frozenset((flow.source, flow.target)) for flow in flows)
        numbered: Counter[frozenset[str]] = Counter()
        obstacles = [shapes[node.id] for node in self.model.nodes if node.id in shapes]
        for flow in flows:
            pair = frozenset((flow.source, flow.target))
            edges[flow.id] = between_pools(shapes[flow.source], shapes[flow.target], obstacles, edges.values(),
                                           self.horizontal, self.options.edge_spacing, numbered[pair], pairs[pair])
            numbered[pair] += 1

    def _groups(self, shapes: dict[str, Box]) -> None:
        """Each group around its members; groups without members drawn, empty, in a row
        after the drawing (across the flow)."""
        drawing = _union(list(shapes.values())) if shapes else EMPTY_GROUP
        after = 0.0
        for group in self.model.groups:
            members = [shapes[member] for member in group.members if member in shapes]
            if members:
                frame = _union(members)
                shapes[group.id] = Box(frame.x - GROUP_PADDING, frame.y - GROUP_PADDING,
                                       frame.w + 2 * GROUP_PADDING, frame.h + 2 * GROUP_PADDING)
            elif self.horizontal:
                shapes[group.id] = _moved(EMPTY_GROUP, drawing.x + after, drawing.bottom + MARGIN)
                after += EMPTY_GROUP.w + MARGIN
            else:
                shapes[group.id] = _moved(EMPTY_GROUP, drawing.right + MARGIN, drawing.y + after)
                after += EMPTY_GROUP.h + MARGIN

    def _ancestors(self, node_id: str) -> list[str]:
        """The sub-processes around a node, innermost first."""
        found: list[str] = []
        node = self.model.node(node_id)
        while node is not None and node.parent:
            found.append(node.parent)
            node = self.model.node(node.parent)
        return found

    def _flow_labels(self, edges: Mapping[str, tuple[Point, ...]], labels: dict[str, Box]) -> None:
        """A named flow's label beside the middle of its longest segment."""
        for flow in self.model.flows:
            route = edges.get(flow.id)
            if route and flow.names:
                x, y = middle(route)
                labels[flow.id] = Box(x + 4, y + 4, LABEL_WIDTH, LABEL_LINE)


def _moved(box: Box, dx: float, dy: float) -> Box:
    return Box(box.x + dx, box.y + dy, box.w, box.h)


def _union(boxes: list[Box]) -> Box:
    x, y = min(b.x for b in boxes), min(b.y for b in boxes)
    return Box(x, y, max(b.right for b in boxes) - x, max(b.bottom for b in boxes) - y)


def _shifted(geometry: BpmnGeometry) -> BpmnGeometry:
    """Everything moved so the least coordinate is ``MARGIN`` (pool strips reach out of
    the engine's drawing), rounded to hundredths."""
    boxes = [*geometry.shapes.values(), *geometry.labels.values()]
    points = [point for route in geometry.edges.values() for point in route]
    dx = MARGIN - min([b.x for b in boxes] + [p[0] for p in points] + [MARGIN])
    dy = MARGIN - min([b.y for b in boxes] + [p[1] for p in points] + [MARGIN])

    def box(b: Box) -> Box:
        return Box(round(b.x + dx, 2), round(b.y + dy, 2), round(b.w, 2), round(b.h, 2))

    return BpmnGeometry(
        geometry.horizontal,
        {key: box(b) for key, b in geometry.shapes.items()},
        {key: box(b) for key, b in geometry.labels.items()},
        {key: tuple((round(x + dx, 2), round(y + dy, 2)) for x, y in route) for key, route in geometry.edges.items()},
        geometry.expanded)

