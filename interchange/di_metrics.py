"""How a BPMN file's diagram interchange (DI) reads to a modeller, measured the same way for
any DI: an author's own, or the one ``elrepo layout`` writes (``benchmarks.bpmn_vs_authors``
compares the two; the tests hold our layout to bounds with it).

Read from the DI alone, plane by plane (a figure never mixes coordinates of two planes):

- a *flow label* is the ``BPMNLabel`` bounds of a named sequence or message flow; it is
  *on a shape* when it overlaps a flow node's box (any node of the model: activities,
  events, gateways, data, annotations; its own flow's ends included; pools, lanes and
  groups are frames, not shapes, and so is an expanded sub-process for what lies wholly
  inside it) by more than ``TOLERANCE`` on both axes, *on a label*
  when it overlaps another label (of a flow or a node) so, *on a flow* when a segment of
  a sequence or message flow (its own included) passes through its inside shrunk by
  ``TOLERANCE``;
- a *bend* is a waypoint where a route changes direction (repeated and collinear
  waypoints are none);
- a *crossing* is a proper crossing of two sequence or message flows' segments;
- the *area* is that of the box around every shape and waypoint of the plane;
- the *main path* of a process is its longest chain of sequence flows (back edges, found
  depth first in document order, left out) from a node no sequence flow enters, a
  default flow counting ``DEFAULT_BONUS`` flows more (the happy path as the layered
  layouts choose it, ``layouts/steps/main_path.py``); boundary events start no main
  path. Its flows between two nodes of one lane *off the line* are those whose route
  bends;
- an annotation *overflows* when its text, wrapped at its box's width less
  ``ANNOTATION_PADDING`` on each side (``renderer.text.FontMetrics``, ``FONT_SIZE``), is
  taller than its box less that padding.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from interchange.model import ANNOTATION, BpmnModel
from interchange.parsing import BPMNDI_NS, DC_NS, DI_NS, parse_bpmn_xml
from interchange.reader import read_model
from layouts.geometry import Box, Point
from layouts.steps.main_path import DEFAULT_BONUS
from renderer.text import FontMetrics

TOLERANCE = 1.0
FONT_SIZE = 12.0
ANNOTATION_PADDING = 5.0  # as bpmn-js keeps a text annotation's text from its border
MEASURED_FLOWS = ("sequenceFlow", "messageFlow")
_ALIGNED = 1e-6  # a turn smaller than this (cross product of unit steps) is no bend
_HUGE_LINES = 10_000  # wrapping an annotation never cuts its text


@dataclass(frozen=True, slots=True)
class DiPlane:
    """One ``BPMNPlane``: shape bounds, label bounds and edge waypoints, by BPMN id."""

    shapes: dict[str, Box]
    labels: dict[str, Box]
    edges: dict[str, tuple[Point, ...]]


@dataclass(frozen=True, slots=True)
class DiFigures:
    """One file's DI, summed over its planes (``message_lengths``: each drawn message flow's
    route length by id)."""

    flow_labels: int = 0
    labels_on_shapes: int = 0
    labels_on_labels: int = 0
    labels_on_flows: int = 0
    sequence_flows: int = 0
    sequence_bends: int = 0
    message_flows: int = 0
    message_bends: int = 0
    crossings: int = 0
    area: float = 0.0
    main_path_flows: int = 0
    main_path_off_line: int = 0
    annotations: int = 0
    annotations_overflowing: int = 0
    message_lengths: dict[str, float] = field(default_factory=dict)


def read_planes(tree: Any) -> list[DiPlane]:
    return [_plane(element) for element in tree.getroot().iter(f"{{{BPMNDI_NS}}}BPMNPlane")]


def di_figures(data: bytes, font: FontMetrics) -> DiFigures:
    """The figures of a BPMN file's DI."""
    tree = parse_bpmn_xml(data)
    model = read_model(tree)
    planes = read_planes(tree)
    total = DiFigures()
    for plane in planes:
        total = plus(total, plane_figures(model, plane, font))
    return total


def has_layout(data: bytes) -> bool:
    """Whether the file's DI places at least one flow node."""
    tree = parse_bpmn_xml(data)
    model = read_model(tree)
    return any(node.id in plane.shapes for plane in read_planes(tree) for node in model.nodes)


def plane_figures(model: BpmnModel, plane: DiPlane, font: FontMetrics) -> DiFigures:
    flows = [flow for flow in model.flows if flow.tag in MEASURED_FLOWS and len(plane.edges.get(flow.id, ())) >= 2]
    routes = {flow.id: plane.edges[flow.id] for flow in flows}
    nodes = [plane.shapes[node.id] for node in model.nodes if node.id in plane.shapes]
    holders = {node.parent for node in model.nodes if node.parent and node.id in plane.shapes}
    containers = [plane.shapes[holder] for holder in holders if holder in plane.shapes]
    named = [flow.id for flow in flows if flow.id in plane.labels and any(name.strip() for name in flow.names.values())]
    on_shapes = on_labels = on_flows = 0
    for flow_id in named:
        label = plane.labels[flow_id]
        on_shapes += any(overlaps(label, box) and not (box in containers and inside(label, box)) for box in nodes)
        on_labels += any(overlaps(label, other) for key, other in plane.labels.items() if key != flow_id)
        on_flows += any(segment_enters(p, q, label) for route in routes.values() for p, q in zip(route, route[1:]))
    sequence = [flow.id for flow in flows if flow.tag == "sequenceFlow"]
    message = [flow.id for flow in flows if flow.tag == "messageFlow"]
    main = main_path(model, routes)
    annotations = [node for node in model.nodes if node.kind == ANNOTATION and node.id in plane.shapes
                   and any(name.strip() for name in node.names.values())]
    return DiFigures(
        flow_labels=len(named), labels_on_shapes=on_shapes, labels_on_labels=on_labels, labels_on_flows=on_flows,
        sequence_flows=len(sequence), sequence_bends=sum(bends(routes[key]) for key in sequence),
        message_flows=len(message), message_bends=sum(bends(routes[key]) for key in message),
        crossings=crossing_count(list(routes.values())), area=_area(plane),
        main_path_flows=len(main), main_path_off_line=sum(bends(routes[key]) > 0 for key in main),
        annotations=len(annotations),
        annotations_overflowing=sum(not holds_text(plane.shapes[node.id], text_of(node.names), font)
                                    for node in annotations),
        message_lengths={key: route_length(routes[key]) for key in message})


def main_path(model: BpmnModel, routes: Mapping[str, Sequence[Point]]) -> list[str]:
    """The drawn sequence flows of each scope's main path (a process, a sub-process; see
    the module docstring) that join two nodes of one lane; ties go to the first in
    document order."""
    outgoing: dict[str, list[tuple[str, str]]] = {}
    entered: set[str] = set()
    for flow in model.flows:
        if flow.tag == "sequenceFlow" and flow.id in routes:
            outgoing.setdefault(flow.source, []).append((flow.id, flow.target))
            entered.add(flow.target)
    starts = [node for node in model.nodes if node.id in outgoing and node.id not in entered and not node.attached_to]
    forward, finished = _depth_first([node.id for node in starts], outgoing)
    defaults = {flow.id for flow in model.flows if flow.default}

    def weight(chain: list[str]) -> tuple[int, int]:
        preferred = sum(1 for flow_id in chain if flow_id in defaults)
        return len(chain) + DEFAULT_BONUS * preferred, preferred

    longest: dict[str, list[str]] = {}
    for node_id in finished:  # every forward flow's target is finished before its source
        chains = [[flow_id, *longest[target]] for flow_id, target in outgoing.get(node_id, []) if flow_id in forward]
        longest[node_id] = max(chains, key=weight, default=[])
    per_scope: dict[tuple[str, str | None], list[str]] = {}
    for node in starts:
        scope = (node.process, node.parent)
        if weight(longest[node.id]) > weight(per_scope.get(scope, [])):
            per_scope[scope] = longest[node.id]
    ends = {flow.id: (flow.source, flow.target) for flow in model.flows}
    lanes = {node.id: node.lane for node in model.nodes}
    return [key for chain in per_scope.values() for key in chain if lanes.get(ends[key][0]) == lanes.get(ends[key][1])]


def _depth_first(roots: Iterable[str], outgoing: dict[str, list[tuple[str, str]]]) -> tuple[set[str], list[str]]:
    """A depth-first search from ``roots`` in order: the sequence flows that are no back
    edge, and the nodes in the order the search finished them."""
    state: dict[str, int] = {}  # 1: on the search's path, 2: done
    forward: set[str] = set()
    finished: list[str] = []
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(outgoing.get(root, [])))]
        while stack:
            node_id, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                state[node_id] = 2
                finished.append(node_id)
                stack.pop()
                continue
            flow_id, target = step
            if state.get(target) == 1:
                continue
            forward.add(flow_id)
            if target not in state:
                state[target] = 1
                stack.append((target, iter(outgoing.get(target, []))))
    return forward, finished


def text_of(names: Any) -> str:
    """The first non-empty name of an element, by culture order."""
    return next((text for _, text in sorted(names.items()) if text.strip()), "")


def wrapped_lines(text: str, width: float, font: FontMetrics) -> list[str]:
    """The lines of ``text`` wrapped to ``width`` (its own line breaks kept), nothing cut."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        lines += font.wrap(paragraph, width, FONT_SIZE, _HUGE_LINES) or [""]
    return lines


def holds_text(box: Box, text: str, font: FontMetrics) -> bool:
    """Whether an annotation box holds its text wrapped to its width (module docstring)."""
    room = box.w - 2 * ANNOTATION_PADDING
    if room <= 0:
        return not text.strip()
    lines = wrapped_lines(text, room, font)
    fits_across = all(font.text_width(line, FONT_SIZE) <= room + TOLERANCE for line in lines)
    return fits_across and len(lines) * font.line_height(FONT_SIZE) <= box.h - 2 * ANNOTATION_PADDING + TOLERANCE


def inside(inner: Box, outer: Box) -> bool:
    return outer.x <= inner.x and inner.right <= outer.right and outer.y <= inner.y and inner.bottom <= outer.bottom


def overlaps(a: Box, b: Box) -> bool:
    return (min(a.right, b.right) - max(a.x, b.x) > TOLERANCE
            and min(a.bottom, b.bottom) - max(a.y, b.y) > TOLERANCE)


def segment_enters(p: Point, q: Point, box: Box) -> bool:
    """Whether p-q (any slope) crosses the box's inside shrunk by ``TOLERANCE`` (Liang-Barsky)."""
    low, high = 0.0, 1.0
    x0, y0, x1, y1 = box.x + TOLERANCE, box.y + TOLERANCE, box.right - TOLERANCE, box.bottom - TOLERANCE
    if x0 >= x1 or y0 >= y1:
        return False
    dx, dy = q[0] - p[0], q[1] - p[1]
    for step, room in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if step == 0:
            if room <= 0:
                return False
            continue
        ratio = room / step
        if step < 0:
            low = max(low, ratio)
        else:
            high = min(high, ratio)
    return high - low > 1e-9


def bends(route: Sequence[Point]) -> int:
    """The waypoints where the route turns."""
    steps = [(q[0] - p[0], q[1] - p[1]) for p, q in zip(route, route[1:]) if p != q]
    units = [(dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)) for dx, dy in steps]
    return sum(abs(a[0] * b[1] - a[1] * b[0]) > _ALIGNED or a[0] * b[0] + a[1] * b[1] < 0
               for a, b in zip(units, units[1:]))


def route_length(route: Sequence[Point]) -> float:
    return sum(math.dist(p, q) for p, q in zip(route, route[1:]))


def crossing_pairs(routes: Sequence[Sequence[Point]]) -> list[tuple[int, int]]:
    """The two routes' indexes of each proper crossing between segments of different routes
    (touching and collinear runs do not count): svgmetrics's ``edge_crossings`` one by one."""
    segments = sorted(((min(p[0], q[0]), max(p[0], q[0]), min(p[1], q[1]), max(p[1], q[1]), index, p, q)
                       for index, route in enumerate(routes) for p, q in zip(route, route[1:])),
                      key=lambda item: item[0])
    pairs: list[tuple[int, int]] = []
    for position, (_, right, bottom, top, index, p, q) in enumerate(segments):
        for left, _, other_bottom, other_top, other, r, s in segments[position + 1:]:
            if left > right:
                break
            if other != index and other_bottom <= top and bottom <= other_top and _properly_cross(p, q, r, s):
                pairs.append((min(index, other), max(index, other)))
    return pairs


def crossing_count(routes: Sequence[Sequence[Point]]) -> int:
    return len(crossing_pairs(routes))


def _properly_cross(p: Point, q: Point, r: Point, s: Point) -> bool:
    def side(a: Point, b: Point, c: Point) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    return side(p, q, r) * side(p, q, s) < -1e-9 and side(r, s, p) * side(r, s, q) < -1e-9


def _plane(element: Any) -> DiPlane:
    shapes: dict[str, Box] = {}
    labels: dict[str, Box] = {}
    edges: dict[str, tuple[Point, ...]] = {}
    for shape in element.iter(f"{{{BPMNDI_NS}}}BPMNShape", f"{{{BPMNDI_NS}}}BPMNEdge"):
        key = shape.get("bpmnElement")
        if not key:
            continue
        bounds = _bounds(shape.find(f"{{{DC_NS}}}Bounds"))
        if bounds is not None:
            shapes[key] = bounds
        label = shape.find(f"{{{BPMNDI_NS}}}BPMNLabel")
        label_bounds = _bounds(label.find(f"{{{DC_NS}}}Bounds")) if label is not None else None
        if label_bounds is not None:
            labels[key] = label_bounds
        points = shape.findall(f"{{{DI_NS}}}waypoint")
        if points:
            edges[key] = tuple((float(point.get("x")), float(point.get("y"))) for point in points)
    return DiPlane(shapes, labels, edges)


def _bounds(element: Any) -> Box | None:
    if element is None:
        return None
    return Box(*(float(element.get(name, "0")) for name in ("x", "y", "width", "height")))


def _area(plane: DiPlane) -> float:
    xs = [v for box in plane.shapes.values() for v in (box.x, box.right)]
    ys = [v for box in plane.shapes.values() for v in (box.y, box.bottom)]
    xs += [x for route in plane.edges.values() for x, _ in route]
    ys += [y for route in plane.edges.values() for _, y in route]
    return (max(xs) - min(xs)) * (max(ys) - min(ys)) if xs and ys else 0.0


def plus(a: DiFigures, b: DiFigures, prefix: str = "") -> DiFigures:
    """The two added up; ``b``'s message flows keyed with ``prefix`` before their id."""
    counts = {name: getattr(a, name) + getattr(b, name) for name in DiFigures.__slots__ if name != "message_lengths"}
    lengths = a.message_lengths | {prefix + key: value for key, value in b.message_lengths.items()}
    return DiFigures(**counts, message_lengths=lengths)
