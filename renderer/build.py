"""Diagram → layout graph with measured sizes, plus the scene the SVG writer needs.

Sizes follow BPMN habits: tasks and sub-processes 120×60, wider and taller when their
label needs it; events 36×36 and gateways 50×50 with their label outside the symbol.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode
from renderer.model import Diagram, Element, Shape
from renderer.scene import LaneView, Scene, ShapeView
from renderer.text import FontMetrics

FONT_SIZE = 12.0
BOX_PADDING = 8.0
BOX_WIDTHS = (120.0, 160.0, 200.0)
BOX_MIN_HEIGHT = 60.0
BOX_MAX_LINES = 4
OUTSIDE_LABEL_WIDTH = 110.0
LANE_NAME_WIDTH = 120.0
LANE_NAME_LINES = 3
UNASSIGNED_LANE = "unassigned"
UNASSIGNED_NAMES = {"1031": "Nicht zugeordnet", "1033": "Unassigned"}
OUTSIDE_LABEL_LINES = 3
SYMBOL_SIZES = {
    "evStart": 36.0, "evIntermediate": 36.0, "evEnd": 36.0,
    "ruleXor": 50.0, "ruleAnd": 50.0, "condition": 50.0,
}


@dataclass(frozen=True, slots=True)
class Measured:
    width: float
    height: float
    lines: tuple[str, ...]
    label_width: float = 0.0
    label_height: float = 0.0


def measure_shape(element_type: str, text: str, font: FontMetrics) -> Measured:
    """Symbol size and label lines for one shape."""
    line_height = font.line_height(FONT_SIZE)
    if element_type in SYMBOL_SIZES:
        size = SYMBOL_SIZES[element_type]
        if not text:
            return Measured(size, size, ())
        lines = tuple(font.wrap(text, OUTSIDE_LABEL_WIDTH, FONT_SIZE, OUTSIDE_LABEL_LINES))
        width = max(font.text_width(line, FONT_SIZE) for line in lines)
        return Measured(size, size, lines, round(width + 2, 2), round(len(lines) * line_height, 2))
    return measure_box(text, font)


def measure_box(text: str, font: FontMetrics, min_height: float = BOX_MIN_HEIGHT) -> Measured:
    """The narrowest standard width whose wrapped label fits in three lines (else the
    widest, up to four lines with an ellipsis)."""
    line_height = font.line_height(FONT_SIZE)
    lines: list[str] = []
    width = BOX_WIDTHS[0]
    for width in BOX_WIDTHS:
        lines = font.wrap(text, width - 2 * BOX_PADDING, FONT_SIZE, BOX_MAX_LINES)
        if len(lines) <= 3:
            break
    height = max(min_height, len(lines) * line_height + 2 * BOX_PADDING)
    return Measured(width, round(height, 2), tuple(lines))


def shape_label(element: Element, culture: str) -> str:
    return element.text("name", culture)


def flow_graph(diagram: Diagram, culture: str, font: FontMetrics, layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Shapes as nodes, predecessor links as edges (each pair once, in shape order)."""
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for shape in diagram.shapes:
        measured = measure_shape(shape.element.type, shape_label(shape.element, culture), font)
        nodes.append(LayoutNode(shape.shape_id, shape.element.type, measured.width, measured.height,
                                measured.label_width, measured.label_height))
        views[shape.shape_id] = ShapeView(shape.shape_id, shape.element.id, shape.element.type,
                                          measured.lines)
    graph = LayoutGraph(tuple(nodes), tuple(flow_edges(diagram)))
    return graph, Scene(diagram.id, layout_key, views, font_size=FONT_SIZE)


def flow_edges(diagram: Diagram) -> list[LayoutEdge]:
    by_index: dict[int, Shape] = {shape.index: shape for shape in diagram.shapes}
    edges: list[LayoutEdge] = []
    for shape in diagram.shapes:
        for predecessor in shape.predecessors:
            source = by_index[predecessor].shape_id
            edges.append(LayoutEdge(source, shape.shape_id, key=f"{source}->{shape.shape_id}"))
    return edges


def swimlane_graph(diagram: Diagram, culture: str, font: FontMetrics, layout_key: str) -> tuple[LayoutGraph, Scene]:
    """The flow graph with every shape in the lane of its org unit (``executedBy``; the
    first by name when there are several) and shapes without one in "Unassigned"."""
    graph, scene = flow_graph(diagram, culture, font, layout_key)
    lane_of = {shape.shape_id: shape_lane(shape, diagram, culture) for shape in diagram.shapes}
    lane_names: dict[str, str] = {}
    for shape in diagram.shapes:
        lane_id = lane_of[shape.shape_id]
        if lane_id not in lane_names:
            unit = diagram.lookup(lane_id)
            lane_names[lane_id] = (unit.text("name", culture) or lane_id) if unit else \
                UNASSIGNED_NAMES.get(culture, UNASSIGNED_NAMES["1033"])
    line_height = font.line_height(FONT_SIZE)
    lanes: list[LaneSpec] = []
    lane_views: dict[str, LaneView] = {}
    for lane_id, name in lane_names.items():
        lines = tuple(font.wrap(name, LANE_NAME_WIDTH, FONT_SIZE, LANE_NAME_LINES)) or ("",)
        width = max(font.text_width(line, FONT_SIZE) for line in lines)
        lanes.append(LaneSpec(lane_id, round(width, 2), round(len(lines) * line_height, 2)))
        lane_views[lane_id] = LaneView(lane_id, lines)
    nodes = tuple(replace(node, lane=lane_of[node.id]) for node in graph.nodes)
    shapes = {shape_id: replace(view, lane_id=lane_of[shape_id]) for shape_id, view in scene.shapes.items()}
    return (LayoutGraph(nodes, graph.edges, tuple(lanes)),
            replace(scene, shapes=shapes, lanes=lane_views))


def shape_lane(shape: Shape, diagram: Diagram, culture: str) -> str:
    """The lane id of a shape: its first org unit by name, or the unassigned lane."""
    units = [unit for unit in (diagram.lookup(i) for i in shape.element.related.get("executedBy", ()))
             if unit is not None]
    if not units:
        return UNASSIGNED_LANE
    return min(units, key=lambda unit: (unit.text("name", culture).casefold(), unit.id)).id
