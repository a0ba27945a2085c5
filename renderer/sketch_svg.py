"""The sketch of a drawing read back from its SVG (issue 22, stable layout).

A flow drawing's SVG carries, per shape, one overlay rect: exactly the shape's box with
its ``data-shape-id`` (docs/contract.md, the overlays), and per edge one
``path.connector`` naming the shape ids it joins, its points in ``M``/``H``/``V``/``L``
commands. That is all a sketch needs (``layouts.sketch.Sketch``: each shape's centre and
each edge's route, along and across the flow), so ``elrepo render NEW --like OLD.svg``
and the service take the previous drawing's sketch from its SVG as it is: nothing is
added to the SVG, whose bytes stay those of the render contract. (The routes matter:
without them, a long edge's dummies are placed between its ends, and the corpus's
stable edits drop from 98 % to 95 %.)
"""
from __future__ import annotations

from lxml import etree

from layouts.detailed import DetailedLayout
from layouts.flow import FlowLayout
from layouts.geometry import HORIZONTAL, Box, Direction, EdgeRoute, LaneBand, Layout, NodeBox, Point
from layouts.keys import BPMN_LAYOUTS
from layouts.registry import STRATEGIES
from layouts.sketch import Sketch

#: An SVG larger than this is not read for a sketch (the largest drawing of 5,000 shapes
#: is a few MB).
MAX_SVG_BYTES = 64 * 1024 * 1024
_SVG_NS = "http://www.w3.org/2000/svg"

#: The layout keys a sketch applies to: the flow layouts.
SKETCHED_LAYOUTS = frozenset(BPMN_LAYOUTS)


def sketch_of_svg(data: bytes, layout_key: str) -> Sketch:
    """The sketch of the flow drawing ``data`` (an SVG the engine wrote) drawn with
    ``layout_key``; ``ValueError`` with a one-line reason for anything else."""
    if layout_key not in SKETCHED_LAYOUTS:
        raise ValueError(f"a previous drawing steers only the flow layouts ({', '.join(sorted(SKETCHED_LAYOUTS))}), "
                         f"not {layout_key!r}")
    return Sketch.of(layout_of_svg(data), sketch_direction(layout_key))


def sketch_direction(layout_key: str) -> Direction:
    """The direction the flow of a drawing under ``layout_key`` runs in, which its sketch
    is read along: its flow strategy's (``layouts/flow.py``) or the detailed layout's
    (its tasks run down); horizontal for any other key."""
    strategy = STRATEGIES.get(layout_key)
    return strategy.direction if isinstance(strategy, FlowLayout | DetailedLayout) else HORIZONTAL


def layout_of_svg(data: bytes) -> Layout:
    """The shapes' boxes, the edges' routes and the lanes of a drawing the engine wrote,
    read from its overlays, connectors and lane rects (no labels); ``ValueError`` with a
    one-line reason for anything else."""
    if len(data) > MAX_SVG_BYTES:
        raise ValueError(f"SVG too large: {len(data):,} bytes, at most {MAX_SVG_BYTES:,}")
    if b"<!DOCTYPE" in data:
        raise ValueError("SVG with a DOCTYPE refused")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise ValueError(f"not well-formed SVG: {error.msg}") from None
    if root is None or root.tag != f"{{{_SVG_NS}}}svg":
        raise ValueError("not an SVG document")
    nodes = []
    edges = []
    for path in root.iter(f"{{{_SVG_NS}}}path"):
        source, target = path.get("data-source-shape-id"), path.get("data-target-shape-id")
        if source is not None and target is not None and "connector" in (path.get("class") or "").split():
            edges.append(EdgeRoute(str(source), str(target), _points(path.get("d") or "", source, target)))
    for rect in root.iter(f"{{{_SVG_NS}}}rect"):
        shape_id = rect.get("data-shape-id")
        if rect.get("class") != "overlay" or shape_id is None:
            continue
        nodes.append(NodeBox(str(shape_id), _box(rect)))
    if not nodes:
        raise ValueError("the SVG has no shape overlays: not a drawing of this engine")
    right = max(node.box.right for node in nodes)
    bottom = max(node.box.bottom for node in nodes)
    return Layout(right, bottom, tuple(nodes), tuple(edges), tuple(_lanes(root)))


def _lanes(root: etree._Element) -> list[LaneBand]:
    """Each ``g.lane`` with its body and header rects."""
    lanes = []
    for group in root.iter(f"{{{_SVG_NS}}}g"):
        lane_id = group.get("data-lane-id")
        if group.get("class") != "lane" or lane_id is None:
            continue
        boxes = {rect.get("class"): _box(rect) for rect in group.iter(f"{{{_SVG_NS}}}rect")}
        body, header = boxes.get("lane-body"), boxes.get("lane-header")
        if body is None or header is None:
            raise ValueError(f"lane {lane_id!r} without its body and header")
        lanes.append(LaneBand(str(lane_id), body, header))
    return lanes


def _box(rect: etree._Element) -> Box:
    try:
        x, y, width, height = (float(rect.get(name, "")) for name in ("x", "y", "width", "height"))
    except ValueError:
        raise ValueError(f"{rect.get('class')} rect without a box") from None
    return Box(x, y, width, height)


def _points(data: str, source: str, target: str) -> tuple[Point, ...]:
    """The points of a connector's path data as ``renderer.svg.path_data`` writes it."""
    tokens = data.split()
    points: list[Point] = []
    index = 0
    try:
        while index < len(tokens):
            command = tokens[index]
            x, y = points[-1] if points else (0.0, 0.0)
            if command in ("M", "L"):
                x, y = float(tokens[index + 1]), float(tokens[index + 2])
                index += 3
            elif command == "H":
                x, index = float(tokens[index + 1]), index + 2
            elif command == "V":
                y, index = float(tokens[index + 1]), index + 2
            else:
                raise ValueError(command)
            points.append((x, y))
    except (ValueError, IndexError):
        raise ValueError(f"connector from {source!r} to {target!r} with path data this engine does not write") from None
    return tuple(points)
