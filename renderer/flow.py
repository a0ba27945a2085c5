"""Builders of the flow layouts (``horizontal``, ``vertical``) and the swimlane layouts
(``horizontalSwimlane``, ``verticalSwimlane``): diagram → layout graph with measured
sizes, plus the scene the SVG writer needs; and ``fit_lane_names``, which re-wraps the
lane names to the headers the layout drew.
"""
from __future__ import annotations

from dataclasses import replace

from layouts.geometry import Layout
from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode
from layouts.steps.lanes import UNASSIGNED_LANE
from renderer.culture import Cultures
from renderer.kinds import KINDS
from renderer.measure import FONT_SIZE, fit_lines, label_culture, measure_shape, shape_label
from renderer.model import Diagram, Shape
from renderer.names import UNASSIGNED_NAMES
from renderer.scene import LaneView, Scene, ShapeView
from renderer.text import FontMetrics

#: Lengths a lane name may take along its lane before layout, shortest first: the lane
#: grows to the name rather than cutting it (``fit_lane_names`` re-wraps it afterwards
#: to the lane's final length).
LANE_NAME_WIDTHS = (120.0, 180.0, 240.0)
LANE_NAME_LINES = 3
#: What rounding to 0.01 may take off a lane's length or thickness.
ROUNDING = 0.05


def flow_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
               layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Shapes as nodes, predecessor links as edges (each pair once, in shape order); a
    node says what the layouts must know of its element's kind (``LayoutNode.is_start``,
    ``pointed``, ``round``), never the kind itself."""
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for shape in diagram.shapes:
        measured = measure_shape(shape.element.type, shape_label(shape.element, cultures), font,
                                 label_culture(shape.element, cultures))
        kind = KINDS[shape.element.type]
        nodes.append(LayoutNode(shape.shape_id, kind.key, measured.width, measured.height,
                                measured.label_width, measured.label_height,
                                is_start=kind.is_start, pointed=kind.pointed, round=kind.round))
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
    """The flow graph with every shape in a lane (``shape_lanes``), lanes in order of
    first appearance and "Unassigned" last (the layout orders them), each name wrapped
    along its lane."""
    graph, scene = flow_graph(diagram, cultures, font, layout_key)
    lane_of = shape_lanes(diagram, cultures)
    lane_names = {lane_id: lane_name(diagram, lane_id, cultures)
                  for lane_id in sorted(lane_of.values(), key=lambda lane: lane == UNASSIGNED_LANE)}
    line_height = font.line_height(FONT_SIZE)
    lanes: list[LaneSpec] = []
    lane_views: dict[str, LaneView] = {}
    for lane_id, name in lane_names.items():
        _, lines = fit_lines(name, font, LANE_NAME_WIDTHS, LANE_NAME_LINES, lane_culture(diagram, lane_id, cultures))
        width = max((font.text_width(line, FONT_SIZE) for line in lines), default=0.0)
        lanes.append(LaneSpec(lane_id, round(width, 2), round(max(len(lines), 1) * line_height, 2)))
        lane_views[lane_id] = LaneView(lane_id, lines or ("",))
    nodes = tuple(replace(node, lane=lane_of[node.id]) for node in graph.nodes)
    shapes = {shape_id: replace(view, lane_id=lane_of[shape_id]) for shape_id, view in scene.shapes.items()}
    return (LayoutGraph(nodes, graph.edges, tuple(lanes)),
            replace(scene, shapes=shapes, lanes=lane_views))


def lane_name(diagram: Diagram, lane_id: str, cultures: Cultures) -> str:
    """The name of the org unit ``lane_id`` (its id when it has none), else of "Unassigned"."""
    unit = diagram.lookup(lane_id)
    if unit is None:
        return cultures.pick(UNASSIGNED_NAMES) or ""
    return unit.text("name", cultures) or lane_id


def lane_culture(diagram: Diagram, lane_id: str, cultures: Cultures) -> int:
    """The culture ``lane_name`` is written in, which its hyphenation follows."""
    unit = diagram.lookup(lane_id)
    return cultures.requested if unit is None else label_culture(unit, cultures)


def fit_lane_names(scene: Scene, layout: Layout, diagram: Diagram, cultures: Cultures, font: FontMetrics,
                   padding: float) -> Scene:
    """``scene`` with every lane name wrapped again (``fit_lines``) to the header the
    layout drew, once its length is known: along the name, the header's longer side
    less ``padding`` at both ends (the lane's length: a name the builder broke for
    the shortest lane it allowed goes on one line when the lane grew); in at most as
    many lines as the header's thickness less ``padding`` on both sides holds (never
    fewer than the builder's wrap has: the thickness was made for those)."""
    if not layout.lanes:
        return scene
    line_height = font.line_height(FONT_SIZE)
    lanes = dict(scene.lanes)
    for band in layout.lanes:
        built = lanes.get(band.id)
        if built is None:
            continue
        along, across = max(band.header.w, band.header.h), min(band.header.w, band.header.h)
        # the allowances: the layout rounds coordinates, and the builder widths, to 0.01
        max_lines = max(len(built.lines), int((across - 2 * padding + ROUNDING) / line_height))
        _, lines = fit_lines(lane_name(diagram, band.id, cultures), font, (along - 2 * padding + ROUNDING,),
                             max_lines, lane_culture(diagram, band.id, cultures))
        lanes[band.id] = LaneView(band.id, lines or ("",))
    return replace(scene, lanes=lanes)


def shape_lanes(diagram: Diagram, cultures: Cultures) -> dict[str, str]:
    """Shape id → lane id (docs/contract.md, "Layout keys"): a shape whose element is
    executed by org units is in the lane of the first by name; a task or sub-process
    (``Kind.work``) without one is in "Unassigned"; any other shape without one (event, gateway,
    condition, process interface) joins a neighbour's lane (its first predecessor's
    that has one, else its first successor's, repeated until nothing changes), and
    "Unassigned" only when no neighbour has a lane."""
    lane_of = {shape.shape_id: lane for shape in diagram.shapes
               if (lane := _org_unit_lane(shape, diagram, cultures)) is not None}
    by_index = {shape.index: shape for shape in diagram.shapes}
    successors: dict[int, list[int]] = {}
    for shape in diagram.shapes:
        for predecessor in shape.predecessors:
            successors.setdefault(predecessor, []).append(shape.index)
    waiting = [shape for shape in diagram.shapes if shape.shape_id not in lane_of]
    while waiting:
        still: list[Shape] = []
        for shape in waiting:
            neighbours = [*shape.predecessors, *successors.get(shape.index, ())]
            lane = next((lane_of[by_index[n].shape_id] for n in neighbours if by_index[n].shape_id in lane_of), None)
            if lane is None:
                still.append(shape)
            else:
                lane_of[shape.shape_id] = lane
        if len(still) == len(waiting):
            break
        waiting = still
    return {shape.shape_id: lane_of.get(shape.shape_id, UNASSIGNED_LANE) for shape in diagram.shapes}


def _org_unit_lane(shape: Shape, diagram: Diagram, cultures: Cultures) -> str | None:
    """The first org unit by name executing the shape's element, else None for a
    shape that may join a neighbour and the unassigned lane for the others."""
    units = [unit for unit in (diagram.lookup(i) for i in shape.element.related.get("executedBy", ()))
             if unit is not None]
    if not units:
        return UNASSIGNED_LANE if KINDS[shape.element.type].work else None
    return min(units, key=lambda unit: (unit.text("name", cultures).casefold(), unit.id)).id
