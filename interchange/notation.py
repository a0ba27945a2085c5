"""A BPMN model drawn in BPMN 2.0's own notation, as bpmn-js draws it, at the positions
``interchange.positions`` gave it (docs/interchange.md, "Notation in the SVG").

Expects a model from ``read_model`` and its ``BpmnGeometry``. Guarantees an SVG of the
SVG contract (docs/contract.md): the root names the diagram and layout, every node with
a ``ShapeRef`` has one overlay rect in a last ``<g class="overlays">``, every flow between
two of them is a ``path.connector`` (any other a ``path.flow``) with absolute ``M H V L``
commands; pools with their name strips and
nested lanes; events, gateways, activities, data and annotations with BPMN's markers;
flow names beside their flows. User text is escaped by ``renderer.markup``; the same
input gives the same bytes. Symbol shapes are BPMN's, drawn here from point lists in a
unit square around each marker's centre (``_Icon``).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from interchange.fixture import lane_keys
from interchange.model import ANNOTATION, DATA, BpmnFlow, BpmnModel, BpmnNode
from interchange.positions import (
    EVENT_SUBPROCESS,
    MARKER_GAP,
    MARKER_SIZE,
    POOL_HEADER,
    SUBPROCESS_HEADER,
    BpmnGeometry,
    activity_markers,
    marker_band,
)
from interchange.reader import PROCESS_DATA
from layouts.geometry import Box, Point
from renderer.culture import Cultures
from renderer.draw import TextStyle, centred_text, group_element, point_list, rect_element, text_block
from renderer.markup import Element, clean_text, fmt
from renderer.measure import BOX_PADDING, FONT_SIZE, measure_shape
from renderer.svg import finished_document, path_data, svg_root
from renderer.text import FontMetrics

__all__ = ["ShapeRef", "notation_svg"]

STROKE = "#22242a"
FILL = "#ffffff"
MARGIN = 20.0
TASK_RADIUS = 10.0
LANE_STRIP = 30.0  # a lane's name strip, at most; narrower where its pool holds little room
TASK_ICON = 8.0  # half the size of a task kind's icon in its upper left corner
FLOW_LABEL_LINES = 3
LABEL_GAP = 4.0  # between the middle of a flow and the corner of its name
LABEL_SEGMENTS = 3  # the segments of a flow, longest first, its name may go beside
DOTTED = "1,3"
DASHED = "6,4"
DASH_DOT = "10,4,2,4"
ACTIVITY_TAGS = frozenset(("task", "userTask", "serviceTask", "sendTask", "receiveTask", "manualTask",
                           "businessRuleTask", "scriptTask", "subProcess", "transaction", "adHocSubProcess",
                           "callActivity"))
THROWING = frozenset(("endEvent", "intermediateThrowEvent", "implicitThrowEvent"))
SWIMLANE_KEYS = frozenset(("horizontalSwimlane", "verticalSwimlane"))


@dataclass(frozen=True, slots=True)
class ShapeRef:
    """What the overlay of a drawn BPMN element names: our element id and shape id."""

    guid: str
    shape_id: str


# --------------------------------------------------------------------------- icons
#: A marker as polygons (closed, ``fill`` given per use) and polylines (open), in a
#: square from -1 to 1 around its centre, y downwards.
_Poly = tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class _Icon:
    closed: tuple[_Poly, ...] = ()
    lines: tuple[_Poly, ...] = ()
    circles: tuple[tuple[float, float, float], ...] = ()  # (cx, cy, r)
    line_width: float = 1.0


def _gear(teeth: int = 8) -> _Poly:
    points = []
    for step in range(teeth * 4):
        radius = 1.0 if step % 4 in (1, 2) else 0.7
        angle = math.pi * 2 * step / (teeth * 4)
        points.append((round(radius * math.cos(angle), 3), round(radius * math.sin(angle), 3)))
    return tuple(points)


_ENVELOPE = (((-1.0, -0.7), (1.0, -0.7), (1.0, 0.7), (-1.0, 0.7)),)
_FLAP = (((-1.0, -0.7), (0.0, 0.05), (1.0, -0.7)),)
_PENTAGON = ((0.0, -0.95), (0.9, -0.29), (0.56, 0.77), (-0.56, 0.77), (-0.9, -0.29))
_REWIND = (((-0.95, 0.0), (-0.05, -0.6), (-0.05, 0.6)), ((0.0, 0.0), (0.9, -0.6), (0.9, 0.6)))
EVENT_ICONS: dict[str, _Icon] = {
    "message": _Icon(_ENVELOPE, _FLAP),
    "timer": _Icon(lines=(((0.0, 0.0), (0.0, -0.62)), ((0.0, 0.0), (0.45, 0.12)),
                          *(((0.8 * math.cos(a), 0.8 * math.sin(a)), (0.95 * math.cos(a), 0.95 * math.sin(a)))
                            for a in (k * math.pi / 6 for k in range(12)))),
                   circles=((0.0, 0.0, 1.0),)),
    "error": _Icon((((-0.85, 0.85), (-0.35, -0.75), (0.2, 0.15), (0.85, -0.85), (0.35, 0.75), (-0.2, -0.15)),)),
    "signal": _Icon((((0.0, -0.95), (0.9, 0.65), (-0.9, 0.65)),)),
    "escalation": _Icon((((0.0, -0.95), (0.7, 0.85), (0.0, 0.2), (-0.7, 0.85)),)),
    "conditional": _Icon((((-0.7, -0.9), (0.7, -0.9), (0.7, 0.9), (-0.7, 0.9)),),
                         tuple(((-0.45, y), (0.45, y)) for y in (-0.55, -0.18, 0.18, 0.55))),
    "compensate": _Icon(_REWIND),
    "link": _Icon((((-0.85, -0.3), (0.2, -0.3), (0.2, -0.75), (0.9, 0.0), (0.2, 0.75), (0.2, 0.3),
                    (-0.85, 0.3)),)),
    "terminate": _Icon(circles=((0.0, 0.0, 1.0),)),
    "cancel": _Icon((((-0.7, -0.95), (0.0, -0.25), (0.7, -0.95), (0.95, -0.7), (0.25, 0.0), (0.95, 0.7),
                      (0.7, 0.95), (0.0, 0.25), (-0.7, 0.95), (-0.95, 0.7), (-0.25, 0.0), (-0.95, -0.7)),)),
    "multiple": _Icon((_PENTAGON,)),
}
TASK_ICONS: dict[str, _Icon] = {
    "userTask": _Icon((((-0.9, 1.0), (-0.9, 0.45), (-0.4, 0.1), (0.4, 0.1), (0.9, 0.45), (0.9, 1.0)),),
                      circles=((0.0, -0.45, 0.42),)),
    "serviceTask": _Icon((_gear(),), circles=((0.0, 0.0, 0.32),)),
    "sendTask": _Icon(_ENVELOPE, _FLAP),
    "receiveTask": _Icon(_ENVELOPE, _FLAP),
    "manualTask": _Icon((((-1.0, -0.1), (-0.5, -0.6), (0.9, -0.6), (0.9, -0.3), (0.1, -0.3), (0.1, 0.0),
                          (0.8, 0.0), (0.8, 0.3), (0.1, 0.3), (0.6, 0.3), (0.6, 0.6), (-0.7, 0.6),
                          (-1.0, 0.4)),)),
    "scriptTask": _Icon((((-0.6, -0.9), (0.8, -0.9), (0.5, 0.0), (0.8, 0.9), (-0.6, 0.9), (-0.3, 0.0)),),
                        tuple(((-0.3 + dx, y), (0.35 + dx, y)) for dx, y in ((0.1, -0.5), (-0.05, -0.15),
                                                                           (-0.05, 0.2), (0.1, 0.55)))),
    "businessRuleTask": _Icon((((-0.95, -0.7), (0.95, -0.7), (0.95, 0.7), (-0.95, 0.7)),),
                              (((-0.95, -0.3), (0.95, -0.3)), ((-0.95, 0.2), (0.95, 0.2)),
                               ((-0.4, -0.3), (-0.4, 0.7)))),
}
ACTIVITY_MARKERS: dict[str, _Icon] = {
    "parallel": _Icon(lines=tuple(((x, -0.8), (x, 0.8)) for x in (-0.55, 0.0, 0.55)), line_width=2.0),
    "sequential": _Icon(lines=tuple(((-0.8, y), (0.8, y)) for y in (-0.55, 0.0, 0.55)), line_width=2.0),
    "compensation": _Icon(_REWIND),
    "collapsed": _Icon((((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)),),
                       (((-0.6, 0.0), (0.6, 0.0)), ((0.0, -0.6), (0.0, 0.6)))),
    "adHoc": _Icon(lines=(tuple((x / 10, round(-0.35 * math.sin(x * math.pi / 10), 3))
                               for x in range(-10, 11)),), line_width=1.5),
}


def _icon(name: str, icon: _Icon, cx: float, cy: float, scale: float, fill: str) -> Element:
    """``icon`` centred on (cx, cy), ``scale`` units per unit of its square, in a group
    of class ``marker-<name>``; ``fill`` fills its closed shapes (the ink, for a throwing
    event's marker), lines drawn in the colour that stands out on it."""

    def placed(points: Iterable[Point]) -> str:
        return point_list((cx + x * scale, cy + y * scale) for x, y in points)

    line_colour = FILL if fill == STROKE and icon.closed else STROKE
    group = group_element(f"marker-{name}")
    for x, y, r in icon.circles:
        group.add(Element("circle", {"cx": fmt(cx + x * scale), "cy": fmt(cy + y * scale), "r": fmt(r * scale),
                                     "fill": fill, "stroke": STROKE, "stroke-width": "1.5"}))
    for points in icon.closed:
        group.add(Element("polygon", {"points": placed(points), "fill": fill, "stroke": STROKE, "stroke-width": "1",
                                      "stroke-linejoin": "round"}))
    for points in icon.lines:
        group.add(Element("polyline", {"points": placed(points), "fill": "none", "stroke": line_colour,
                                       "stroke-width": fmt(icon.line_width), "stroke-linecap": "round"}))
    return group


# --------------------------------------------------------------------------- markers of flows
SEQUENCE_END = "sequence-end"
MESSAGE_START = "message-start"
MESSAGE_END = "message-end"
DATA_END = "data-end"
DEFAULT_START = "default-start"
CONDITION_START = "condition-start"


def _flow_markers() -> Element:
    """The ends of flows, in user units along each route's direction."""
    defs = Element("defs", {})
    shapes = {
        SEQUENCE_END: ("0 0 12 10", "12", "5", Element("polygon", {"points": "0,0 12,5 0,10", "fill": STROKE})),
        MESSAGE_END: ("0 0 12 10", "12", "5", Element("polygon", {"points": "1,1 11,5 1,9", "fill": FILL,
                                                                   "stroke": STROKE, "stroke-width": "1"})),
        MESSAGE_START: ("0 0 10 10", "1", "5", Element("circle", {"cx": "5", "cy": "5", "r": "4", "fill": FILL,
                                                                   "stroke": STROKE, "stroke-width": "1"})),
        DATA_END: ("0 0 12 10", "12", "5", Element("polyline", {"points": "1,1 11,5 1,9", "fill": "none",
                                                                 "stroke": STROKE, "stroke-width": "1"})),
        DEFAULT_START: ("0 0 20 20", "0", "10", Element("line", {"x1": "7", "y1": "4", "x2": "13", "y2": "16",
                                                                  "stroke": STROKE, "stroke-width": "1.5"})),
        CONDITION_START: ("0 0 20 12", "1", "6", Element("polygon", {"points": "1,6 9,1 17,6 9,11", "fill": FILL,
                                                                      "stroke": STROKE, "stroke-width": "1"})),
    }
    for marker_id, (view_box, ref_x, ref_y, shape) in shapes.items():
        width, height = view_box.split()[2:]
        marker = Element("marker", {"id": marker_id, "viewBox": view_box, "refX": ref_x, "refY": ref_y,
                                    "markerWidth": width, "markerHeight": height,
                                    "markerUnits": "userSpaceOnUse", "orient": "auto"})
        marker.add(shape)
        defs.add(marker)
    return defs


# --------------------------------------------------------------------------- the writer
def notation_svg(model: BpmnModel, geometry: BpmnGeometry, layout_key: str, cultures: Cultures,
                 font: FontMetrics, refs: Mapping[str, ShapeRef], diagram_id: str) -> str:
    """The SVG of ``model`` at ``geometry``; ``refs`` maps the BPMN ids of the nodes that
    get an overlay (and of the pools and lanes, for their ``data-lane-id``) to what the
    overlay names."""
    return _Notation(model, geometry, layout_key, cultures, font, refs, diagram_id).document()


def _line(points: Sequence[Point], attrs: Mapping[str, str]) -> Element:
    return Element("path", {"d": path_data(points), "fill": "none", "stroke": STROKE, **attrs})


def _circle(cx: float, cy: float, r: float, width: float, dash: str = "") -> Element:
    return Element("circle", {"cx": fmt(cx), "cy": fmt(cy), "r": fmt(r), "fill": FILL, "stroke": STROKE,
                              "stroke-width": fmt(width), "stroke-dasharray": dash})


def _rounded(box: Box, width: float, dash: str = "", radius: float = TASK_RADIUS, fill: str = FILL) -> Element:
    return rect_element(box, {"rx": fmt(radius), "fill": fill, "stroke": STROKE, "stroke-width": fmt(width),
                              "stroke-dasharray": dash})


def _segment_middles(route: Sequence[Point]) -> list[Point]:
    """The middles of a route's segments, longest first (the first of equals first)."""
    segments = sorted(zip(route, route[1:]), key=lambda s: -(abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1])))
    return [((x1 + x2) / 2, (y1 + y2) / 2) for (x1, y1), (x2, y2) in segments]


def _overlap(one: Box, other: Box) -> bool:
    return min(one.right, other.right) > max(one.x, other.x) and min(one.bottom, other.bottom) > max(one.y, other.y)


def _inset(box: Box, by: float) -> Box:
    return Box(box.x + by, box.y + by, box.w - 2 * by, box.h - 2 * by)


class _Notation:
    def __init__(self, model: BpmnModel, geometry: BpmnGeometry, layout_key: str, cultures: Cultures,
                 font: FontMetrics, refs: Mapping[str, ShapeRef], diagram_id: str) -> None:
        self.model = model
        self.geometry = geometry
        self.layout_key = layout_key
        self.cultures = cultures
        self.text = TextStyle(font, FONT_SIZE)
        self.refs = refs
        self.diagram_id = diagram_id
        self.shapes = geometry.shapes

    def name(self, names: Mapping[int, str]) -> str:
        return self.cultures.pick(names) or ""

    def document(self) -> str:
        svg = svg_root(*self._size(), self.diagram_id, self.layout_key, FONT_SIZE)
        svg.add(_flow_markers())
        expanded = sorted((node for node in self.model.nodes if node.id in self.geometry.expanded
                           and node.id in self.shapes), key=self._depth)
        others = [node for node in self.model.nodes if node.id not in self.geometry.expanded
                  and node.id in self.shapes]
        others.sort(key=lambda node: node.attached_to is not None)  # boundary events over their hosts
        for group in (self._pools(), self._nodes("containers", expanded), self._flows(),
                      self._nodes("nodes", others), self._flow_names(), self._groups()):
            if group.children:
                svg.add(group)
        svg.add(self._overlays())
        return finished_document(svg, self.text.font)

    def _size(self) -> tuple[float, float]:
        boxes = [*self.shapes.values(), *self.geometry.labels.values()]
        points = [point for route in self.geometry.edges.values() for point in route]
        right = max([b.right for b in boxes] + [x for x, _ in points] + [0.0])
        bottom = max([b.bottom for b in boxes] + [y for _, y in points] + [0.0])
        return right + MARGIN, bottom + MARGIN

    def _depth(self, node: BpmnNode) -> int:
        depth = 0
        while node.parent and (parent := self.model.node(node.parent)) is not None:
            node, depth = parent, depth + 1
        return depth

    # ---- pools and lanes ---------------------------------------------------------------

    def _pools(self) -> Element:
        group = group_element("pools")
        for pool in self.model.pools:
            box = self.shapes.get(pool.id)
            if box is None:
                continue
            # a pool without lanes is its nodes' band: a lane of the SVG contract
            band = bool(pool.process) and not any(lane.process == pool.process for lane in self.model.lanes)
            g = Element("g", {"class": "lane" if band else "pool",
                              "data-lane-id" if band else "data-pool-id": clean_text(self._ref(pool.id).guid)})
            g.add(rect_element(box, {"class": "lane-body" if band else "pool-body", "fill": FILL, "stroke": STROKE,
                                     "stroke-width": "1.5"}))
            name = self.name(pool.names)
            if not pool.process:  # a black box: a band with its name in the middle
                g.add(centred_text([self.text.font.ellipsize(name, box.w - 2 * BOX_PADDING, FONT_SIZE)],
                                   box, self.text))
            else:
                strip = self._strip(box, POOL_HEADER)
                g.add(_line(self._strip_border(strip), {"stroke-width": "1.5"}))
                g.add(self._strip_name(name, strip))
            group.add(g)
        strips = self._lane_strips()
        for lane in self.model.lanes:
            if lane.id not in self.shapes:
                continue
            depth, strip_width = strips[lane.id]
            lane_box = self._indented(self.shapes[lane.id], (depth - 1) * strip_width)
            g = Element("g", {"class": "lane", "data-lane-id": clean_text(self._ref(lane.id).guid)})
            g.add(rect_element(lane_box, {"class": "lane-body", "fill": "none", "stroke": STROKE,
                                          "stroke-width": "1"}))
            strip = self._strip(lane_box, strip_width)
            g.add(_line(self._strip_border(strip), {"stroke-width": "1"}))
            g.add(self._strip_name(self.name(lane.names), strip))
            group.add(g)
        return group

    def _lane_strips(self) -> dict[str, tuple[int, float]]:
        """Each lane's depth and the width of its process's lane strips: ``LANE_STRIP``,
        or less where the strips side by side would reach the first node."""
        depth: dict[str, int] = {}
        for lane in self.model.lanes:  # parents come before their children
            depth[lane.id] = depth.get(lane.parent or "", 0) + 1
        found: dict[str, tuple[int, float]] = {}
        for process in dict.fromkeys(lane.process for lane in self.model.lanes):
            lanes = [lane.id for lane in self.model.lanes if lane.process == process and lane.id in self.shapes]
            if not lanes:
                continue
            start = min(self._across(self.shapes[lane]) for lane in lanes)
            inside = [self._across(box) for node in self.model.nodes if node.process == process
                      for box in (self.shapes.get(node.id), self.geometry.labels.get(node.id)) if box]
            room = min(inside, default=start + LANE_STRIP) - start
            deepest = max(depth[lane] for lane in lanes)
            width = min(LANE_STRIP, max(room - 2, 8.0) / deepest)
            found.update((lane, (depth[lane], width)) for lane in lanes)
        return found

    def _across(self, box: Box) -> float:
        """Where ``box`` begins along the flow (its left, or top in vertical layouts)."""
        return box.x if self.geometry.horizontal else box.y

    def _indented(self, box: Box, by: float) -> Box:
        if self.geometry.horizontal:
            return Box(box.x + by, box.y, box.w - by, box.h)
        return Box(box.x, box.y + by, box.w, box.h - by)

    def _strip(self, box: Box, width: float) -> Box:
        """The name strip of a pool or lane: at its start along the flow."""
        if self.geometry.horizontal:
            return Box(box.x, box.y, width, box.h)
        return Box(box.x, box.y, box.w, width)

    def _strip_border(self, strip: Box) -> tuple[Point, ...]:
        if self.geometry.horizontal:
            return (strip.right, strip.y), (strip.right, strip.bottom)
        return (strip.x, strip.bottom), (strip.right, strip.bottom)

    def _strip_name(self, name: str, strip: Box) -> Element:
        """A pool's or lane's name in its strip, read bottom to top in a strip taller than
        wide; ellipsized to the strip's length."""
        length = max(strip.h, strip.w) - 2 * BOX_PADDING
        line = self.text.font.ellipsize(name, length, FONT_SIZE)
        if strip.w >= strip.h:
            return centred_text([line], strip, self.text)
        turn = f"rotate(-90 {fmt(strip.cx)} {fmt(strip.cy)})"
        return text_block([line], strip.cx, self.text.baselines(strip.cy, 1), attrs={"transform": turn})

    # ---- nodes -------------------------------------------------------------------------

    def _nodes(self, cls: str, nodes: Sequence[BpmnNode]) -> Element:
        group = group_element(cls)
        for node in nodes:
            box = self.shapes[node.id]
            g = Element("g", {"class": f"node bpmn-{node.tag}", "data-bpmn-id": clean_text(node.id)})
            for part in self._symbol(node, box):
                g.add(part)
            label = self._label(node, box)
            if label is not None:
                g.add(label)
            group.add(g)
        return group

    def _symbol(self, node: BpmnNode, box: Box) -> list[Element]:
        if node.kind == ANNOTATION:
            return [_line(((box.x + 10, box.y), (box.x, box.y), (box.x, box.bottom), (box.x + 10, box.bottom)),
                          {"stroke-width": "1.5"})]
        if node.tag == "dataStoreReference":
            return self._data_store(self._data_box(node, box))
        if node.kind == DATA:
            page = self._data_box(node, box)
            return self._data_object(page) + self._data_arrow(page, node.tag)
        if node.tag.endswith("Event"):
            return self._event(node, box)
        if node.tag.endswith("Gateway"):
            return self._gateway(node.tag, box)
        return self._activity(node, box)

    def _event(self, node: BpmnNode, box: Box) -> list[Element]:
        r = min(box.w, box.h) / 2
        dash = "" if node.interrupting else DASHED
        if node.tag == "startEvent":
            parts = [_circle(box.cx, box.cy, r, 2.0, dash)]
        elif node.tag == "endEvent":
            parts = [_circle(box.cx, box.cy, r - 1.5, 4.0)]
        else:
            parts = [_circle(box.cx, box.cy, r, 1.5, dash), _circle(box.cx, box.cy, r - 3, 1.5, dash)]
        kind = "multiple" if len(node.event_definitions) > 1 else next(iter(node.event_definitions), "")
        if kind in EVENT_ICONS:  # a definition BPMN does not name has no marker
            fill = STROKE if node.tag in THROWING else FILL
            parts.append(_icon(kind, EVENT_ICONS[kind], box.cx, box.cy, r * 0.5, fill))
        return parts

    def _gateway(self, tag: str, box: Box) -> list[Element]:
        cx, cy, half = box.cx, box.cy, min(box.w, box.h) / 2
        parts = [Element("polygon", {"points": point_list(((cx, cy - half), (cx + half, cy), (cx, cy + half),
                                                          (cx - half, cy))),
                                     "fill": FILL, "stroke": STROKE, "stroke-width": "2",
                                     "stroke-linejoin": "round"})]
        arm = half * 0.42
        cross = (((-arm, -arm), (arm, arm)), ((-arm, arm), (arm, -arm)))
        plus = (((0.0, -arm * 1.3), (0.0, arm * 1.3)), ((-arm * 1.3, 0.0), (arm * 1.3, 0.0)))
        strokes = {"exclusiveGateway": cross, "parallelGateway": plus, "complexGateway": cross + plus}.get(tag, ())
        parts += [_line(((cx + x1, cy + y1), (cx + x2, cy + y2)), {"stroke-width": "3.5", "stroke-linecap": "round"})
                  for (x1, y1), (x2, y2) in strokes]
        if tag == "inclusiveGateway":
            parts.append(_circle(cx, cy, half * 0.45, 2.5))
        elif tag == "eventBasedGateway":
            parts += [_circle(cx, cy, half * 0.5, 1.0), _circle(cx, cy, half * 0.42, 1.0)]
            parts.append(_icon("multiple", EVENT_ICONS["multiple"], cx, cy, half * 0.26, FILL))
        return parts

    def _activity(self, node: BpmnNode, box: Box) -> list[Element]:
        event_sub = EVENT_SUBPROCESS in node.markers
        width = 5.0 if node.tag == "callActivity" else 2.0
        parts = [_rounded(box, width, DOTTED if event_sub else "")]
        if node.tag == "transaction":
            parts.append(_rounded(_inset(box, 3), 1.5, radius=TASK_RADIUS - 3, fill="none"))
        icon = TASK_ICONS.get(node.tag)
        if icon is not None:
            fill = STROKE if node.tag == "sendTask" else FILL
            parts.append(_icon(node.tag, icon, box.x + 6 + TASK_ICON, box.y + 6 + TASK_ICON, TASK_ICON, fill))
        markers = activity_markers(node, node.id in self.geometry.expanded)
        first = box.cx - (len(markers) - 1) * (MARKER_SIZE + MARKER_GAP) / 2
        cy = box.bottom - MARKER_SIZE / 2 - MARKER_GAP
        for index, marker in enumerate(markers):
            cx = first + index * (MARKER_SIZE + MARKER_GAP)
            if marker == "loop":
                parts.append(self._loop(cx, cy))
            else:
                parts.append(_icon(marker, ACTIVITY_MARKERS[marker], cx, cy, MARKER_SIZE / 2, FILL))
        return parts

    @staticmethod
    def _loop(cx: float, cy: float) -> Element:
        """A circle open at its lower left, with an arrow head at that end."""
        r = MARKER_SIZE / 2 - 1
        start = (cx - r * 0.7, cy + r * 0.7)
        end = (cx - r, cy + r * 0.2)
        d = (f"M {fmt(start[0])} {fmt(start[1])} A {fmt(r)} {fmt(r)} 0 1 1 {fmt(cx - r * 0.99)} {fmt(cy + 0.1)}"
             f" M {fmt(end[0] - 3)} {fmt(end[1] - 3)} L {fmt(end[0])} {fmt(end[1])} L {fmt(end[0] + 3)}"
             f" {fmt(end[1] - 2)}")
        return Element("path", {"class": "marker-loop", "d": d, "fill": "none", "stroke": STROKE,
                                "stroke-width": "1.5", "stroke-linecap": "round"})

    def _data_box(self, node: BpmnNode, box: Box) -> Box:
        """The symbol of a data object or store: as tall as its box leaves above its name
        (its label lines go under it), a page's or can's proportions, centred."""
        lines = len(self._lines(node, box)) if node.id not in self.geometry.labels else 0
        height = min(50.0, max(30.0, box.h - lines * self.text.line_height))
        width = height * 0.8
        return Box(box.cx - width / 2, box.y, width, height)

    @staticmethod
    def _data_object(box: Box) -> list[Element]:
        fold = box.w * 0.3
        page = ((box.x, box.y), (box.right - fold, box.y), (box.right, box.y + fold), (box.right, box.bottom),
                (box.x, box.bottom))
        return [Element("polygon", {"points": point_list(page), "fill": FILL, "stroke": STROKE, "stroke-width": "1.5",
                                    "stroke-linejoin": "round"}),
                Element("polyline", {"points": point_list(((box.right - fold, box.y), (box.right - fold, box.y + fold),
                                                           (box.right, box.y + fold))),
                                     "fill": "none", "stroke": STROKE, "stroke-width": "1.5"})]

    @staticmethod
    def _data_arrow(page: Box, tag: str) -> list[Element]:
        """A process's data input (an open arrow) or output (a filled one) in the page's
        corner, as bpmn-js marks them; nothing on other data objects."""
        if tag not in PROCESS_DATA:
            return []
        x, y = page.x + 4, page.y + 4
        arrow = ((x, y + 2.5), (x + 5, y + 2.5), (x + 5, y), (x + 10, y + 4), (x + 5, y + 8), (x + 5, y + 5.5),
                 (x, y + 5.5))
        return [Element("polygon", {"points": point_list(arrow), "fill": STROKE if tag == "dataOutput" else FILL,
                                    "stroke": STROKE, "stroke-width": "1", "stroke-linejoin": "round"})]

    @staticmethod
    def _data_store(box: Box) -> list[Element]:
        rx, ry = box.w / 2, box.h * 0.12
        top, bottom = box.y + ry, box.bottom - ry

        def arc(y: float) -> str:
            return f"A {fmt(rx)} {fmt(ry)} 0 0 0 {fmt(box.right)} {fmt(y)}"

        body = (f"M {fmt(box.x)} {fmt(top)} {arc(top)} V {fmt(bottom)} "
                f"A {fmt(rx)} {fmt(ry)} 0 0 1 {fmt(box.x)} {fmt(bottom)} Z")
        rims = " ".join(f"M {fmt(box.x)} {fmt(y)} {arc(y)}" for y in (top, top + ry * 0.8, top + ry * 1.6))
        cap = (f"M {fmt(box.x)} {fmt(top)} A {fmt(rx)} {fmt(ry)} 0 0 1 {fmt(box.right)} {fmt(top)}")
        return [Element("path", {"d": body, "fill": FILL, "stroke": STROKE, "stroke-width": "1.5"}),
                Element("path", {"d": f"{cap} {rims}", "fill": "none", "stroke": STROKE, "stroke-width": "1.5"})]

    # ---- labels ------------------------------------------------------------------------

    def _lines(self, node: BpmnNode, box: Box) -> tuple[str, ...]:
        """The lines of a node's name, as the layout measured them (same widths)."""
        text = self.name(node.names)
        if not text:
            return ()
        if node.kind == ANNOTATION or node.id in self.geometry.labels or node.kind == DATA:
            return measure_shape(node.shape_type or "task", text, self.text.font, self.cultures.requested).lines
        return tuple(self.text.font.wrap(text, box.w - 2 * BOX_PADDING, FONT_SIZE,
                                         max(1, int((box.h - 8) // self.text.line_height)),
                                         self.cultures.requested))

    def _label(self, node: BpmnNode, box: Box) -> Element | None:
        text = self.name(node.names)
        if not text:
            return None
        if node.id in self.geometry.expanded:
            line = self.text.font.ellipsize(text, box.w - 2 * BOX_PADDING, FONT_SIZE)
            return text_block([line], box.x + BOX_PADDING, [box.y + SUBPROCESS_HEADER / 2 + 4], anchor="start")
        lines = self._lines(node, box)
        outside = self.geometry.labels.get(node.id)
        if outside is not None:
            return centred_text(lines, outside, self.text)
        if node.kind == ANNOTATION:
            top = box.y + BOX_PADDING + len(lines) * self.text.line_height / 2
            return text_block(lines, box.x + BOX_PADDING, self.text.baselines(top, len(lines)), anchor="start")
        if node.kind == DATA:
            symbol = self._data_box(node, box)
            under = Box(box.x, symbol.bottom, box.w, len(lines) * self.text.line_height + 2)
            return centred_text(lines, under, self.text)
        return centred_text(lines, self._label_area(node, box, len(lines)), self.text)

    def _label_area(self, node: BpmnNode, box: Box, lines: int) -> Box:
        """Where an activity's name is centred: its part under the task kind's icon when
        the name would run into that and fits there, else as low as it fits; without an
        icon, the box, or its part above its markers when the name would run into them."""
        icon_bottom = box.y + 6 + 2 * TASK_ICON
        height = lines * self.text.line_height
        if node.tag in TASK_ICONS and box.cy - height / 2 < icon_bottom:
            below = Box(box.x, icon_bottom, box.w, box.bottom - icon_bottom - (MARKER_SIZE if node.markers else 0))
            return below if below.h >= height else Box(box.x, max(box.y, box.bottom - height - 4), box.w, height)
        band = marker_band(node, box, node.id in self.geometry.expanded)
        if band is None or box.cy + height / 2 <= band.y:
            return box
        return Box(box.x, box.y, box.w, max(band.y - box.y, min(height, box.h)))  # above the markers

    # ---- flows -------------------------------------------------------------------------

    def _flows(self) -> Element:
        group = group_element("edges")
        for flow in self.model.flows:
            route = self.geometry.edges.get(flow.id)
            if route and len(route) >= 2:
                drawn = self._to_data_symbol(self._to_data_symbol(route, flow.target), flow.source, at_start=True)
                group.add(self._flow(flow, drawn))
        return group

    def _to_data_symbol(self, route: Sequence[Point], end: str, at_start: bool = False) -> Sequence[Point]:
        """A route that ends on a side of a data node's box carried on to its symbol,
        which is narrower than the box (its name goes under it)."""
        node = self.model.node(end)
        if node is None or node.kind != DATA or end not in self.shapes:
            return route
        box = self.shapes[end]
        symbol = self._data_box(node, box)
        points = list(route[::-1] if at_start else route)
        (px, py), (x, y) = points[-2], points[-1]
        if py == y and x in (box.x, box.right):
            points[-1] = (symbol.x if x == box.x else symbol.right, y)
        elif px == x and y == box.bottom:
            points[-1] = (x, symbol.bottom)
        return points[::-1] if at_start else points

    def _flow(self, flow: BpmnFlow, route: Sequence[Point]) -> Element:
        # a connector of the SVG contract joins two overlays; a flow to a pool, an
        # annotation or inside an expanded sub-process is drawn the same, as a flow
        joins_shapes = self._has_overlay(flow.source) and self._has_overlay(flow.target)
        attrs = {"class": "connector" if joins_shapes else "flow", "data-bpmn-id": clean_text(flow.id),
                 "data-flow-type": flow.tag,
                 "stroke-width": "1.5",
                 "stroke-linejoin": "round",
                 "data-source-shape-id": clean_text(self._ref(flow.source).shape_id),
                 "data-target-shape-id": clean_text(self._ref(flow.target).shape_id)}
        if flow.tag == "sequenceFlow":
            source = self.model.node(flow.source)
            attrs["marker-end"] = f"url(#{SEQUENCE_END})"
            if flow.default:
                attrs["marker-start"] = f"url(#{DEFAULT_START})"
            elif flow.condition and source is not None and source.tag in ACTIVITY_TAGS:
                attrs["marker-start"] = f"url(#{CONDITION_START})"
        elif flow.tag == "messageFlow":
            attrs.update({"stroke-dasharray": DASHED, "marker-start": f"url(#{MESSAGE_START})",
                          "marker-end": f"url(#{MESSAGE_END})", "stroke-width": "1"})
        else:
            attrs.update({"stroke-dasharray": DOTTED, "stroke-width": "1", "stroke-linecap": "round"})
            if flow.tag == "dataInputAssociation" or flow.tag == "dataOutputAssociation":
                attrs["marker-end"] = f"url(#{DATA_END})"
        return _line(route, attrs)

    def _flow_names(self) -> Element:
        """Every named flow's name beside the middle of a segment, left-aligned, wrapped to
        its label box's width: at the label box (beside the longest segment), else in the
        first corner round the middle of one of its ``LABEL_SEGMENTS`` longest segments
        where it covers no node, node label or name placed before (none free: the label
        box)."""
        group = group_element("flow-labels")
        taken = [self.shapes[node.id] for node in self.model.nodes
                 if node.id in self.shapes and node.id not in self.geometry.expanded]
        taken += [self.geometry.labels[node.id] for node in self.model.nodes if node.id in self.geometry.labels]
        for flow in self.model.flows:
            name = self.name(flow.names)
            box = self.geometry.labels.get(flow.id)
            route = self.geometry.edges.get(flow.id)
            if not name or box is None or not route:
                continue
            lines = self.text.font.wrap(name, box.w, FONT_SIZE, FLOW_LABEL_LINES, self.cultures.requested)
            width = max(self.text.font.text_width(line, FONT_SIZE) for line in lines)
            height = len(lines) * self.text.line_height
            spots = [Box(box.x, box.y, width, height)]
            for mx, my in _segment_middles(route)[:LABEL_SEGMENTS]:
                spots += [Box(x, y, width, height) for x in (mx + LABEL_GAP, mx - LABEL_GAP - width)
                          for y in (my + LABEL_GAP, my - LABEL_GAP - height)]
            spot = next((spot for spot in spots if not any(_overlap(spot, other) for other in taken)), spots[0])
            taken.append(spot)
            group.add(text_block(lines, spot.x, self.text.baselines(spot.cy, len(lines)), anchor="start",
                                 attrs={"class": "flow-label", "data-flow-id": clean_text(flow.id)}))
        return group

    def _groups(self) -> Element:
        group = group_element("groups")
        for bpmn_group in self.model.groups:
            box = self.shapes.get(bpmn_group.id)
            if box is None:
                continue
            group.add(_rounded(box, 1.5, DASH_DOT, fill="none"))
            name = self.name(bpmn_group.names)
            if name:  # above the frame's top, as bpmn-js writes a group's category value
                group.add(text_block([name], box.cx, [box.y - self.text.line_height / 2 + FONT_SIZE / 3],
                                     attrs={"class": "group-label"}))
        return group

    # ---- overlays ----------------------------------------------------------------------

    def _ref(self, bpmn_id: str) -> ShapeRef:
        return self.refs.get(bpmn_id) or ShapeRef(bpmn_id, bpmn_id)

    def _has_overlay(self, bpmn_id: str) -> bool:
        return bpmn_id in self.refs and bpmn_id in self.shapes and self.model.node(bpmn_id) is not None

    def _overlays(self) -> Element:
        """One click target per node with a ``ShapeRef`` (docs/contract.md, "SVG contract")."""
        group = group_element("overlays")
        bands = lane_keys(self.model) if self.layout_key in SWIMLANE_KEYS else {}
        for node in self.model.nodes:
            if not self._has_overlay(node.id):
                continue
            ref, box = self.refs[node.id], self.shapes[node.id]
            attrs = {"class": "overlay", "fill": "transparent", "data-guid": clean_text(ref.guid),
                     "data-type": clean_text(node.shape_type), "data-shape-id": clean_text(ref.shape_id),
                     "data-diagram-id": clean_text(self.diagram_id)}
            if node.id in bands:
                attrs["data-lane-id"] = clean_text(self._ref(bands[node.id]).guid)
            group.add(rect_element(box, attrs))
        return group
