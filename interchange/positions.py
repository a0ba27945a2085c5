"""Where everything of a BPMN model goes: our engine's layout, in BPMN ids.

The same pipeline as ``renderer.api.render`` (fixture → builder → strategy), run once
per scope: every sub-process with content first, so it enters its parent's layout as a
box of the size of its own drawing and is expanded in place; then the process level,
with a band per lane (or per pool without lanes) when the model has lanes or several
pools, and data associations as edges of the same graph. The builder's edges keep the
builder's order, the SVG's; a black-box pool gets a band of its own beside the nodes it
exchanges messages with (``interchange.layout_graph``). What would pull nodes off their
pool's main path stays out of the engine's graph and is placed once the rest is:
message flows, text annotations and their associations, boundary events (laid out as
their host; their flows are kept off the main path).

Guarantees: a box for every node, pool, lane and group, at least two waypoints for every flow
and association between nodes; boundary events centred on a border of their host across
the flow, the one facing what they lead to, with their flows out of the event's outer side,
and flows rerouted around the nodes they would pass through once the events sit there
(``interchange.routing``); black-box pools above, between or below the others where
their message flows run shortest and straightest, thin (``interchange.black_boxes``);
message flows to a pool routed last, each where it crosses the fewest flows, straight
across a flow or two rather than a Z, and between two pools that touch round their side
(``interchange.pool_routes``); then the flows the engine did not weigh routed anew where
that crosses fewer (``routing.fewer_crossings``), and routes that bend twice or more drawn
straight or as an L where that is clear (``interchange.fewer_bends``). Text annotations are
sized to their text wrapped at ``ANNOTATION_WIDTH`` and lie at the first free place beside
what they annotate; flow labels are sized to their text and lie at the first free place
beside their route, after the labels of nodes a route passes through have moved aside
(``interchange.free_space``: on no node, label, route or annotation). Coordinates ≥
``MARGIN``. Deterministic.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial

from interchange.black_boxes import Partner, restacked
from interchange.detour import Direction
from interchange.di_metrics import ANNOTATION_PADDING, FONT_SIZE, overlaps, wrapped_lines
from interchange.fewer_bends import fewer_bends
from interchange.fixture import lane_keys, scope_fixture, scope_nodes, uses_lanes
from interchange.free_space import LIGHT, SOLID, Occupied, first_free
from interchange.layout_graph import black_box_pools, is_drawn, keyed_edges, with_pool_ports
from interchange.model import ANNOTATION, BpmnFlow, BpmnModel, BpmnNode
from interchange.parsing import BpmnError
from interchange.pool_routes import between_pools, to_pool
from interchange.routing import (
    across_bands,
    annotates,
    clear_of_shapes,
    fewer_crossings,
    from_boundary_event,
    middle,
    nearest_line,
    self_loop,
    straight_between,
    towards,
)
from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Box, Layout, Point
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.keys import BPMN_LAYOUTS
from layouts.registry import get_strategy
from renderer.contract import RenderInputError
from renderer.culture import DEFAULT_CULTURE, Cultures
from renderer.flow import flow_graph, swimlane_graph
from renderer.kinds import KINDS
from renderer.measure import BOX_PADDING
from renderer.model import parse_diagram
from renderer.text import FontMetrics, load_font

SUBPROCESS_HEADER = 24.0  # room for an expanded sub-process's name above its content
POOL_HEADER = 30.0  # the pool's name strip, as BPMN modellers draw it
POOL_GAP = 30.0  # between two pools that a message flow joins, across the flow
EMPTY_BAND = 80.0  # thickness of a pool or lane with nothing in it
MARGIN = 20.0
BOUNDARY_STEP = 44.0
MARKER_SIZE = 14.0  # an activity's markers (loop, multi-instance, [+], ...) at its lower border
MARKER_GAP = 4.0  # between two markers, and between them and the border
EVENT_SUBPROCESS = "eventSubProcess"
COLLAPSIBLE = frozenset(("subProcess", "transaction", "adHocSubProcess"))
LABEL_WIDTH = 90.0  # a flow label's text wraps at this width, in at most LABEL_LINES lines
LABEL_LINES = 3
LABEL_OFFSET = 4.0  # between a flow and its label
LABEL_FURTHER = (16.0, 32.0)  # further off the line, where nothing near it is free
LABEL_GAP = 2.0  # kept between a flow label and anything else
ANNOTATION_WIDTH = 250.0  # a text annotation's text wraps at this width, a readable line
ANNOTATION_LEAST = (60.0, 30.0)
ANNOTATION_ROWS = 8  # rows of places for annotations beyond the drawing
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


#: More shapes than any process has: BPMN layouts are never wrapped.
NEVER_WRAP = 1 << 62


def bpmn_positions(model: BpmnModel, layout_key: str, font: FontMetrics | None = None,
                   options: LayoutOptions | None = None) -> BpmnGeometry:
    if layout_key not in BPMN_LAYOUTS:
        raise BpmnError(f"unknown BPMN layout {layout_key!r}; one of: {', '.join(BPMN_LAYOUTS)}")
    # a BPMN process stays one strip: its main path runs on one line, as its modellers
    # draw it (wrapping, layouts/steps/wrap.py, would break that line at every cut)
    unwrapped = replace(options or LayoutOptions(), wrap_min_nodes=NEVER_WRAP)
    return _Positions(model, layout_key, font or load_font(), unwrapped).run()


def _pointed(shape_type: str) -> bool:
    """Whether a node of our element type ``shape_type`` ('' for an annotation) has a
    symbol without a flat side (``Kind.pointed``)."""
    kind = KINDS.get(shape_type)
    return kind is not None and kind.pointed


class _Positions:
    def __init__(self, model: BpmnModel, layout_key: str, font: FontMetrics, options: LayoutOptions) -> None:
        self.model = model
        self.flat_key, self.band_key = BPMN_LAYOUTS[layout_key]
        self.horizontal = self.flat_key == "horizontal"
        self.font = font
        self.options = options
        self.cultures = Cultures(DEFAULT_CULTURE, DEFAULT_CULTURE)
        self.bands = lane_keys(model)
        self.inner: dict[str, Layout] = {}  # sub-process id → its content's layout
        self.flows_by_id = {flow.id: flow for flow in model.flows}
        self.boundary: dict[str, LayoutNode] = {}  # boundary event id → its size, as the builder measured it
        self.outer_side: dict[str, Direction] = {}  # boundary event id → the way out of its outer side

    def run(self) -> BpmnGeometry:
        top = self._layout(None)
        shapes: dict[str, Box] = {}
        labels: dict[str, Box] = {}
        edges: dict[str, tuple[Point, ...]] = {}
        self._place(top, 0.0, 0.0, shapes, labels, edges)
        self._attach_boundary_events(shapes, labels, edges)
        bands = {lane.id: lane.box for lane in top.lanes}
        self._pools_and_lanes(top, bands, shapes)
        self._black_boxes(shapes, labels, edges)
        self._pools_apart(shapes, labels, edges)
        self._annotations(shapes, labels, edges)
        self._routes_outside_layout(shapes, edges)
        clear_of_shapes(self.model, shapes, edges, self.options.edge_spacing)
        pointed = {node.id for node in self.model.nodes if _pointed(node.shape_type)}
        fewer_bends(self.model, shapes, edges, self.outer_side, pointed)  # first: a boundary event's L crosses less
        fewer_crossings(self.model, shapes, edges, self.options.edge_spacing)
        fewer_bends(self.model, shapes, edges, self.outer_side, pointed)
        self._groups(shapes)
        self._flow_labels(shapes, edges, labels)
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
        events = {node.id: str(node.attached_to) for node in nodes if node.attached_to}
        layout_nodes = [self._sized(replace(node, id=by_shape[node.id])) for node in graph.nodes]
        self.boundary.update((node.id, node) for node in layout_nodes if node.id in events)
        layout_nodes = [node for node in layout_nodes if node.id not in events]
        ids = {node.id for node in layout_nodes}

        def drawn(node_id: str) -> str | None:
            return self._drawn(node_id, ids)

        # a boundary event is no node of the layout: its flows leave from its host, after
        # the host's own, and off the main path
        edges = [LayoutEdge(by_shape[edge.source], by_shape[edge.target]) for edge in graph.edges
                 if by_shape[edge.target] not in events]
        builder_edges = ([edge for edge in edges if edge.source not in events]
                         + [replace(edge, source=events[edge.source], off_main_path=True)
                            for edge in edges if edge.source in events])
        graph = LayoutGraph(tuple(layout_nodes),
                            tuple(map(self._with_label_room, keyed_edges(self.model, builder_edges, drawn))),
                            graph.lanes, self._message_partners(drawn) if with_bands else ())
        if with_bands:
            graph = with_pool_ports(self.model, graph, drawn, self.options.edge_spacing,
                                    EMPTY_BAND - 2 * self.options.edge_spacing)
        try:
            return get_strategy(key).layout(graph, self.options)
        except LayoutError as error:
            raise BpmnError(f"cannot lay out {scope or 'the process level'}: {error}") from None

    def _message_partners(self, drawn: Callable[[str], str | None]) -> tuple[tuple[str, str], ...]:
        """The drawn ends of each message flow between two nodes (a node inside a
        sub-process: the sub-process): the engine puts them in one layer where that costs
        little, so that the flow runs straight across the pools."""
        pairs = [(drawn(flow.source), drawn(flow.target)) for flow in self.model.flows if flow.tag == "messageFlow"]
        return tuple((a, b) for a, b in pairs if a is not None and b is not None and a != b)

    def _sized(self, node: LayoutNode) -> LayoutNode:
        inner = self.inner.get(node.id)
        if inner is None:
            return node
        return replace(node, width=max(node.width, inner.width), height=inner.height + SUBPROCESS_HEADER)

    def _drawn(self, node_id: str, ids: set[str]) -> str | None:
        node = self.model.node(node_id)
        if node is not None and node.kind == ANNOTATION:
            return None  # placed once everything else is (``_annotations``)
        if node is not None and node.attached_to:
            node = self.model.node(node.attached_to)  # placed on its host (``_attach_boundary_events``)
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
        """Each boundary event onto a border of its host across the flow (the lower or
        upper one in a horizontal layout, the right or left one in a vertical), the one
        facing what its flows reach on the whole (lower, right when nothing), along it from
        the end of the host that the flow leaves; its label outside it. Its flows (laid
        out from the host) start at the event's outer side and join the route the engine
        drew. Of the events on one border, the one whose flows reach nearest across the
        flow lies furthest along it, so that their routes nest."""
        on_border: dict[tuple[str, int], list[tuple[float, int, BpmnNode]]] = {}
        for order, node in enumerate(self.model.nodes):
            host = shapes.get(str(node.attached_to)) if node.attached_to else None
            if host is None or node.id not in self.boundary:
                continue
            reached = [shapes[flow.target] for flow in self.model.flows
                       if flow.source == node.id and flow.target in shapes]
            across = [(box.cy - host.cy) if self.horizontal else (box.cx - host.cx) for box in reached]
            side = -1 if across and sum(across) < 0 else 1
            reach = sum(abs(value) for value in across) / max(len(across), 1)
            on_border.setdefault((str(node.attached_to), side), []).append((reach, order, node))
        for (host_id, side), events in on_border.items():
            host, host_node = shapes[host_id], self.model.node(host_id)
            band = marker_band(host_node, host, host_id in self.inner) if host_node and side == 1 else None
            along = host.right if self.horizontal else host.bottom  # the host's far end
            for _, _, node in sorted(events, key=lambda event: event[:2]):
                along = self._on_border(node, host, side, along, band, len(events) == 1, shapes, labels,
                                        edges) - BOUNDARY_STEP

    def _on_border(self, node: BpmnNode, host: Box, side: int, before: float, band: Box | None, alone: bool,
                   shapes: dict[str, Box], labels: dict[str, Box], edges: dict[str, tuple[Point, ...]]) -> float:
        """One boundary event on its host's border (``side`` 1: lower or right, -1: upper
        or left), its centre at most as far along as ``before`` less its half and a gap,
        clear of the host's markers (``band``, on the lower border) and at most as far back
        as the host's corner, its name centred outside it when ``alone`` on that border,
        else beside its flows (see below); gives how far along the border it reaches."""
        size = self.boundary[node.id]
        if self.horizontal:
            cx = before - size.width / 2 - 6
            if band is not None and cx - size.width / 2 < band.right + 2 and cx + size.width / 2 > band.x - 2:
                cx = band.x - 2 - size.width / 2  # the [+] or loop marker stays visible
            cx = max(host.x, cx)
            cy = host.bottom if side == 1 else host.y
        else:
            cx = host.right if side == 1 else host.x
            cy = max(host.y, before - size.height / 2 - 6)
        box = Box(cx - size.width / 2, cy - size.height / 2, size.width, size.height)
        shapes[node.id] = box
        outwards = (0, side) if self.horizontal else (side, 0)
        self.outer_side[node.id] = outwards
        if size.label_width and size.label_height:
            # of several events on a border, each name beside the flows leaving its event's
            # middle: the far end's runs on towards that end, the others' back from theirs,
            # so two neighbours' names stand side by side, not over each other
            x = (cx - size.label_width / 2 if alone else cx + LABEL_OFFSET if before == host.right
                 else cx - LABEL_OFFSET - size.label_width)
            labels[node.id] = (Box(x,
                                   box.bottom + 2 if side == 1 else box.y - 2 - size.label_height,
                                   size.label_width, size.label_height) if self.horizontal else
                               Box(box.right + 2 if side == 1 else box.x - 2 - size.label_width,
                                   box.bottom + 2, size.label_width, size.label_height))
        for flow in self.model.flows:
            route = edges.get(flow.id)
            if route and flow.source == node.id:
                edges[flow.id] = from_boundary_event(box, route, self.options.edge_spacing, outwards)
        return cx + size.width / 2 + 6 if self.horizontal else cy + size.height / 2 + 6

    def _annotations(self, shapes: dict[str, Box], labels: Mapping[str, Box],
                     edges: Mapping[str, tuple[Point, ...]]) -> None:
        """Each text annotation, sized to its text (``annotation_size``), at the first free
        place beside what it annotates: across the flow from it (above, then below; left,
        then right of a vertical flow), nearer places first; where none is free, beyond
        the drawing on the side across the flow. Free: on no node, label, route or other
        annotation, and across no pool, lane or expanded sub-process border."""
        occupied = Occupied()
        frames = {pool.id for pool in self.model.pools} | {lane.id for lane in self.model.lanes} | set(self.inner)
        for key, box in shapes.items():
            (occupied.add_frame if key in frames else occupied.add_box)(box)
        for box in [*labels.values(), *self._black_box_names(shapes)]:
            occupied.add_box(box)
        for route in edges.values():
            occupied.add_route(route)
        drawing = _union(list(shapes.values())) if shapes else Box(0.0, 0.0, 0.0, 0.0)
        gap = 2 * self.options.edge_spacing
        for node in self.model.nodes:
            if node.kind != ANNOTATION:
                continue
            width, height = annotation_size(self.cultures.pick(node.names) or "", self.font)
            anchor = self._annotated(node.id, shapes, edges) or Box(drawing.x, drawing.y, 0.0, 0.0)
            candidates = [*_beside(anchor, width, height, gap, self.horizontal),
                          *_beyond(drawing, anchor, width, height, gap, self.horizontal)]
            placed = first_free(candidates, occupied, self.options.edge_spacing / 2,
                                partial(nearest_line, anchor))
            assert placed is not None  # there are always candidates
            shapes[node.id] = placed
            occupied.add_box(placed)

    def _annotated(self, annotation: str, shapes: Mapping[str, Box],
                   edges: Mapping[str, tuple[Point, ...]]) -> Box | None:
        """The box of what an annotation's first association joins it to (a point box in
        the middle of a flow); None when it has none drawn."""
        for flow in self.model.flows:
            other = flow.target if flow.source == annotation else flow.source if flow.target == annotation else None
            if other is None:
                continue
            if other in shapes:
                return shapes[other]
            if edges.get(other):
                x, y = middle(edges[other])
                return Box(x, y, 0.0, 0.0)
        return None

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

    def _black_boxes(self, shapes: dict[str, Box], labels: dict[str, Box],
                     edges: dict[str, tuple[Point, ...]]) -> None:
        """Each black-box pool ``BLACK_BOX`` thick, above, between or below the other
        pools where its message flows run shortest and straightest
        (``interchange.black_boxes``): everything moves with the pool it lies in."""
        black = self._black_box_order(shapes)
        pools = {pool.id: shapes[pool.id] for pool in self.model.pools if pool.id in shapes}
        if not black or any(self.model.pool_of_process(process) is None for process in self.model.processes
                            if any(node.process == process for node in self.model.nodes)):
            return
        nodes = {node.id: shapes[node.id] for node in self.model.nodes if node.id in shapes}
        partners: dict[str, list[Partner]] = {pool: [] for pool in black}
        for flow in self.model.flows:
            if flow.tag != "messageFlow":
                continue
            for pool, other in ((flow.source, flow.target), (flow.target, flow.source)):
                if pool not in partners:
                    continue
                if other in pools:
                    partners[pool].append(Partner(pool=other))
                elif other in nodes:
                    around = {other, *self._ancestors(other)}
                    partners[pool].append(Partner(nodes[other], tuple(box for key, box in nodes.items()
                                                                      if key not in around)))
        least: dict[str, float] = {}
        for flow in self.model.flows:
            size = self._label_size(flow) if flow.tag == "messageFlow" else None
            for pool in (flow.source, flow.target):
                if size is not None and pool in partners:  # room for the label inside the pool
                    across = size[1] if self.horizontal else size[0]
                    least[pool] = max(least.get(pool, 0.0), across + 2 * (LABEL_OFFSET + LABEL_GAP))
        for pool in black:  # room for its name, written across a column
            width, height = self._name_size(pool)
            least[pool] = max(least.get(pool, 0.0), height if self.horizontal else width)
        stack = restacked(pools, black, partners, self.horizontal, least)
        if stack is None:
            return
        # on the border of two pools (a boundary event, a route along it) a thing moves
        # with the pool of its process
        pool_of = {pool.process: pool.id for pool in self.model.pools if pool.process}
        owner = {pool: pool for pool in pools}
        owner |= {lane.id: pool_of[lane.process] for lane in self.model.lanes if lane.process in pool_of}
        owner |= {node.id: pool_of[node.process] for node in self.model.nodes if node.process in pool_of}
        owner |= {flow.id: owner[flow.source] for flow in self.model.flows if flow.source in owner}
        for boxes in (shapes, labels):
            for key, box in boxes.items():
                boxes[key] = stack.box(box, self.horizontal, owner.get(key))
        for key, route in edges.items():
            edges[key] = tuple(stack.point(point, self.horizontal, owner.get(key)) for point in route)

    def _name_size(self, pool_id: str) -> tuple[float, float]:
        """The width and height a black-box pool's name takes, padded as the notation
        writes it (in the middle of the pool)."""
        pool = next(pool for pool in self.model.pools if pool.id == pool_id)
        text = self.cultures.pick(pool.names) or ""
        return (math.ceil(self.font.text_width(text, FONT_SIZE)) + 2 * BOX_PADDING,
                math.ceil(self.font.line_height(FONT_SIZE)) + 2 * BOX_PADDING)

    def _black_box_names(self, shapes: Mapping[str, Box]) -> list[Box]:
        """Where each black-box pool's name is written: in its middle, as wide as its
        text (``_name_size``) and no wider than the pool."""
        found: list[Box] = []
        for pool in self._black_box_order(shapes):
            box = shapes[pool]
            width, height = (min(size, room) for size, room in zip(self._name_size(pool), (box.w, box.h)))
            found.append(Box(box.cx - width / 2, box.cy - height / 2, width, height))
        return found

    def _black_box_order(self, shapes: Mapping[str, Box]) -> list[str]:
        """The black-box pools drawn, in document order (deterministic, unlike a set's)."""
        black = black_box_pools(self.model)
        return [pool.id for pool in self.model.pools if pool.id in black and pool.id in shapes]

    def _pools_apart(self, shapes: dict[str, Box], labels: dict[str, Box],
                     edges: dict[str, tuple[Point, ...]]) -> None:
        """Two touching pools that a message flow joins (pool to pool) ``POOL_GAP`` apart
        across the flow, as modellers draw them, so that the flow runs straight across the
        gap rather than round their side: whatever lies at or beyond such a pool's start
        moves by a gap per such start before it (a monotone shift across the flow, so
        routes keep their shape). Other pools stay touching: a gap there would only
        lengthen the message flows that cross it."""
        across = 1 if self.horizontal else 0

        def start(pool: str) -> float:
            return (shapes[pool].x, shapes[pool].y)[across]

        def end(pool: str) -> float:
            return (shapes[pool].right, shapes[pool].bottom)[across]

        starts = sorted({max(start(a), start(b)) for flow in self.model.flows
                         if flow.tag == "messageFlow" and (a := flow.source) in shapes and (b := flow.target) in shapes
                         and self.model.node(a) is None and self.model.node(b) is None
                         and (end(a) == start(b) or end(b) == start(a))})
        if not starts:
            return

        def point(at: Point) -> Point:
            shift = POOL_GAP * bisect_right(starts, at[across])
            return (at[0], at[1] + shift) if self.horizontal else (at[0] + shift, at[1])

        for boxes in (shapes, labels):
            for key, box in boxes.items():
                x, y = point((box.x, box.y))
                boxes[key] = Box(x, y, box.w, box.h)
        for key, route in edges.items():
            edges[key] = tuple(map(point, route))

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
            elif flow.tag == "messageFlow":
                around = {*self._ancestors(flow.source), *self._ancestors(flow.target), flow.source, flow.target}
                obstacles = [shapes[node.id] for node in self.model.nodes if node.id in shapes and node.id not in around
                             and node.kind != ANNOTATION]
                edges[flow.id] = across_bands(source, target, self.horizontal, obstacles, self.options.edge_spacing,
                                              edges.values())
            elif annotates(self.model, flow):
                edges[flow.id] = nearest_line(source, target)
            else:
                edges[flow.id] = straight_between(source, target, self.horizontal)
        self._between_pools(pool_to_pool, shapes, edges)
        for flow_id, node_id, pool_id in to_pools:
            del edges[flow_id]
            edges[flow_id] = self._to_pool(flow_id, node_id, pool_id, shapes, edges)

    def _to_pool(self, flow_id: str, node_id: str, pool_id: str, shapes: Mapping[str, Box],
                 edges: Mapping[str, tuple[Point, ...]]) -> tuple[Point, ...]:
        """Around every flow node but the sub-processes the route starts in, at the least
        cost against the other routes (``pool_routes.to_pool``); from the pool when the
        pool is the flow's source."""
        around = {node_id, *self._ancestors(node_id)}
        obstacles = [shapes[n.id] for n in self.model.nodes if n.id in shapes and n.id not in around]
        node = self.model.node(node_id)
        flat = node is not None and not _pointed(node.shape_type)
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

    def _label_size(self, flow: BpmnFlow) -> tuple[float, float] | None:
        """A named flow's label: its name wrapped at ``LABEL_WIDTH``, as wide as its
        widest line and as high as its lines; None for a flow without a name."""
        text = self.cultures.pick(flow.names) if flow.names else None
        if not text:
            return None
        lines = self.font.wrap(text, LABEL_WIDTH, FONT_SIZE, LABEL_LINES)
        return (math.ceil(max(self.font.text_width(line, FONT_SIZE) for line in lines) + 2),
                math.ceil(len(lines) * self.font.line_height(FONT_SIZE)))

    def _with_label_room(self, edge: LayoutEdge) -> LayoutEdge:
        """A named sequence flow's edge asks the engine for room for its label
        (``LayoutEdge.label_width``): the gap its flow leaves its source through."""
        flow = self.flows_by_id.get(edge.key)
        size = self._label_size(flow) if flow is not None and flow.tag == "sequenceFlow" else None
        return edge if size is None else replace(edge, label_width=size[0], label_height=size[1])

    def _flow_labels(self, shapes: Mapping[str, Box], edges: Mapping[str, tuple[Point, ...]],
                     labels: dict[str, Box]) -> None:
        """The label of a node that a route passes through or that lies over another's moved
        to the first free place around the node (``_around_shape``); then each named flow's label, sized to its text, at
        the first free place beside its route (``_along``): on no node, label, route or annotation and across no pool,
        lane, group or expanded sub-process border; where none is free, the place with
        the fewest of those. In document order, each label in the way of the next."""
        occupied = Occupied()
        frames = ({pool.id for pool in self.model.pools} | {lane.id for lane in self.model.lanes}
                  | {group.id for group in self.model.groups} | set(self.inner))
        for key, box in shapes.items():
            (occupied.add_frame if key in frames else occupied.add_box)(box)
        for box in self._black_box_names(shapes):
            occupied.add_box(box)
        for flow in self.model.flows:
            if edges.get(flow.id):
                occupied.add_route(edges[flow.id], LIGHT if annotates(self.model, flow) else SOLID)
        routes = Occupied()
        for route in edges.values():
            routes.add_route(route)
        kept = Occupied()  # the labels that stay where the engine put them
        moved: list[str] = []
        for key, label in labels.items():
            if routes.conflicts(label, 0.0) or kept.conflicts(label, 0.0):
                moved.append(key)  # crossed by a route, or over a label before it (two boundary events')
            else:
                kept.add_box(label)
                occupied.add_box(label)
        for key in moved:
            node = self.model.node(key)
            host = shapes.get(str(node.attached_to)) if node is not None and node.attached_to else None
            places = [place for place in _around_shape(shapes[key], labels[key])
                      if host is None or not overlaps(place, host)]  # a boundary event's name stays outside its host
            labels[key] = first_free(places, occupied, LABEL_GAP) or labels[key]
            occupied.add_box(labels[key])
        for flow in self.model.flows:
            flow_route = edges.get(flow.id)
            size = self._label_size(flow)
            if not flow_route or size is None:
                continue
            places = _along(flow_route, *size)
            if flow.tag == "messageFlow" and self.model.node(flow.target) is None:
                places += _past_end(flow_route, *size)
            if flow.tag == "messageFlow" and self.model.node(flow.source) is None:
                places += _past_end(flow_route[::-1], *size)
            beside = first_free(places, occupied, LABEL_GAP)
            if beside is not None:
                labels[flow.id] = beside
                occupied.add_box(beside)


def activity_markers(node: BpmnNode, expanded: bool) -> list[str]:
    """The markers along an activity's lower border, left to right: its own (loop,
    multi-instance, compensation), then a collapsed sub-process's [+] and ad hoc's ~."""
    markers = [marker for marker in node.markers if marker != EVENT_SUBPROCESS]
    if node.tag in COLLAPSIBLE and not expanded:
        markers.append("collapsed")
    if node.tag == "adHocSubProcess":
        markers.append("adHoc")
    return markers


def marker_band(node: BpmnNode, box: Box, expanded: bool) -> Box | None:
    """Where an activity drawn in ``box`` shows its markers (centred above its lower
    border), None without any: no name and no boundary event goes there."""
    count = len(activity_markers(node, expanded))
    if not count:
        return None
    width = count * (MARKER_SIZE + MARKER_GAP) - MARKER_GAP
    return Box(box.cx - width / 2, box.bottom - MARKER_SIZE - MARKER_GAP, width, MARKER_SIZE)


def annotation_size(text: str, font: FontMetrics) -> tuple[float, float]:
    """A text annotation's width and height: its text wrapped to at most
    ``ANNOTATION_WIDTH`` (its own line breaks kept), the widest line and the lines'
    height within ``ANNOTATION_PADDING``; at least ``ANNOTATION_LEAST``."""
    lines = wrapped_lines(text, ANNOTATION_WIDTH - 2 * ANNOTATION_PADDING, font)
    widest = max((font.text_width(line, FONT_SIZE) for line in lines), default=0.0)
    width = math.ceil(widest + 2 * ANNOTATION_PADDING + 1)
    height = math.ceil(len(lines) * font.line_height(FONT_SIZE) + 2 * ANNOTATION_PADDING + 1)
    return max(width, ANNOTATION_LEAST[0]), max(height, ANNOTATION_LEAST[1])


def _beside(anchor: Box, width: float, height: float, gap: float, horizontal: bool) -> list[Box]:
    """Places for a box beside ``anchor``, across the flow: nearer first, then further."""
    found: list[Box] = []
    for distance in (gap, 2 * gap, 4 * gap, 8 * gap):
        if horizontal:
            for y in (anchor.y - distance - height, anchor.bottom + distance):
                found += [Box(x, y, width, height) for x in (anchor.cx, anchor.cx - width / 2, anchor.right - width)]
        else:
            for x in (anchor.x - distance - width, anchor.right + distance):
                found += [Box(x, y, width, height) for y in (anchor.cy, anchor.cy - height / 2, anchor.bottom - height)]
    return found


def _beyond(drawing: Box, anchor: Box, width: float, height: float, gap: float, horizontal: bool) -> list[Box]:
    """Places beyond the drawing's sides across the flow (above and below it, or left
    and right of it), the side nearer ``anchor`` first, in rows (columns) away from it,
    each from across ``anchor`` outwards."""
    found: list[Box] = []
    if horizontal:
        sides = [(drawing.y - height, -1), (drawing.bottom, 1)]
        sides.sort(key=lambda side: abs(side[0] - anchor.cy))
    else:
        sides = [(drawing.x - width, -1), (drawing.right, 1)]
        sides.sort(key=lambda side: abs(side[0] - anchor.cx))
    for row in range(ANNOTATION_ROWS):
        for edge, outwards in sides:
            level = edge + outwards * (gap + row * ((height if horizontal else width) + gap))
            for shift in (0, 1, -1, 2, -2, 3, -3):
                if horizontal:
                    found.append(Box(anchor.cx - width / 2 + shift * (width + gap), level, width, height))
                else:
                    found.append(Box(level, anchor.cy - height / 2 + shift * (height + gap), width, height))
    return found


def _along(route: tuple[Point, ...], width: float, height: float) -> list[Box]:
    """Places for a flow's label beside its route: segment by segment from its source,
    beside the segment's middle, start, end and quarters, above then below a level
    segment, right then left of an upright one; first ``LABEL_OFFSET`` off the line,
    then further (``LABEL_FURTHER``)."""
    found: list[Box] = []
    for offset in (LABEL_OFFSET, *LABEL_FURTHER):
        for (x1, y1), (x2, y2) in zip(route, route[1:]):
            if y1 == y2 or x1 == x2:
                level = y1 == y2
                low, high = sorted((x1, x2) if level else (y1, y2))
                size = width if level else height
                for start in _label_starts(low, high, size):
                    found += ([Box(start, y1 - offset - height, width, height), Box(start, y1 + offset, width, height)]
                              if level else
                              [Box(x1 + offset, start, width, height), Box(x1 - offset - width, start, width, height)])
            else:
                x, y = (x1 + x2) / 2, (y1 + y2) / 2
                found.append(Box(x + offset, y + offset, width, height))
    return found


def _past_end(route: tuple[Point, ...], width: float, height: float) -> list[Box]:
    """Places for a flow's label past the end of its route, beside the line's way on:
    inside the pool a short message flow enters, where nothing beside the route is free;
    then a row further in, where a neighbour's label took the first."""
    (x1, y1), (x2, y2) = route[-2], route[-1]
    level = y1 == y2
    size = width if level else height
    onwards = (x2 > x1) if level else (y2 > y1)
    found: list[Box] = []
    for row in range(2):
        step = LABEL_OFFSET + row * (size + LABEL_GAP)
        start = ((x2 if level else y2) + step) if onwards else ((x2 if level else y2) - step - size)
        found += ([Box(start, y2 - LABEL_OFFSET - height, width, height), Box(start, y2 + LABEL_OFFSET, width, height)]
                  if level else
                  [Box(x2 + LABEL_OFFSET, start, width, height), Box(x2 - LABEL_OFFSET - width, start, width, height)])
    return found


def _around_shape(shape: Box, label: Box) -> list[Box]:
    """Places for a node's outside label: below it (where the engine put it), above it,
    right and left of it, then at its corners; then the same further out."""
    found: list[Box] = []
    for gap in (LABEL_GAP, LABEL_FURTHER[0]):
        x = shape.cx - label.w / 2
        found += [Box(x, shape.bottom + gap, label.w, label.h), Box(x, shape.y - gap - label.h, label.w, label.h),
                  Box(shape.right + gap, shape.bottom - label.h / 2, label.w, label.h),
                  Box(shape.x - gap - label.w, shape.bottom - label.h / 2, label.w, label.h),
                  Box(shape.right + gap, shape.y - label.h / 2, label.w, label.h),
                  Box(shape.x - gap - label.w, shape.y - label.h / 2, label.w, label.h),
                  Box(shape.right + gap, shape.y - gap - label.h, label.w, label.h),
                  Box(shape.x - gap - label.w, shape.y - gap - label.h, label.w, label.h),
                  Box(shape.right + gap, shape.bottom + gap, label.w, label.h),
                  Box(shape.x - gap - label.w, shape.bottom + gap, label.w, label.h)]
    return found


def _label_starts(low: float, high: float, size: float) -> tuple[float, ...]:
    """Where a label of ``size`` may start along a segment from ``low`` to ``high``."""
    return ((low + high - size) / 2, low + LABEL_OFFSET, high - LABEL_OFFSET - size,
            (3 * low + high) / 4 - size / 2, (low + 3 * high) / 4 - size / 2)


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

