"""Builders of the flow layouts (``horizontal``, ``vertical``) and the swimlane layouts
(``horizontalSwimlane``, ``verticalSwimlane``): diagram → layout graph with measured
sizes, plus the scene the SVG writer needs.
"""
from __future__ import annotations

from dataclasses import replace

from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode
from renderer.culture import ENGLISH, GERMAN, Cultures
from renderer.measure import FONT_SIZE, measure_shape, shape_label
from renderer.model import Diagram, Shape
from renderer.scene import LaneView, Scene, ShapeView
from renderer.text import FontMetrics

LANE_NAME_WIDTH = 120.0
LANE_NAME_LINES = 3
UNASSIGNED_LANE = "unassigned"
#: The name of the lane of shapes without an org unit; English first, so a render whose
#: cultures have no translation shows it.
UNASSIGNED_NAMES = {ENGLISH: "Unassigned", GERMAN: "Nicht zugeordnet"}


def flow_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
               layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Shapes as nodes, predecessor links as edges (each pair once, in shape order)."""
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for shape in diagram.shapes:
        measured = measure_shape(shape.element.type, shape_label(shape.element, cultures), font)
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


def swimlane_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
                   layout_key: str) -> tuple[LayoutGraph, Scene]:
    """The flow graph with every shape in the lane of its org unit (``executedBy``; the
    first by name when there are several) and shapes without one in "Unassigned"."""
    graph, scene = flow_graph(diagram, cultures, font, layout_key)
    lane_of = {shape.shape_id: shape_lane(shape, diagram, cultures) for shape in diagram.shapes}
    lane_names: dict[str, str] = {}
    for shape in diagram.shapes:
        lane_id = lane_of[shape.shape_id]
        if lane_id not in lane_names:
            unit = diagram.lookup(lane_id)
            lane_names[lane_id] = (unit.text("name", cultures) or lane_id) if unit else \
                cultures.pick(UNASSIGNED_NAMES) or ""
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


def shape_lane(shape: Shape, diagram: Diagram, cultures: Cultures) -> str:
    """The lane id of a shape: its first org unit by name, or the unassigned lane."""
    units = [unit for unit in (diagram.lookup(i) for i in shape.element.related.get("executedBy", ()))
             if unit is not None]
    if not units:
        return UNASSIGNED_LANE
    return min(units, key=lambda unit: (unit.text("name", cultures).casefold(), unit.id)).id
