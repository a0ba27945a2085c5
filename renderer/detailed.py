"""Diagram → graph and scene of the ``detailed`` layout: the flow plus satellites.

Expects a parsed ``Diagram``. Guarantees: the flow nodes, edges and views are exactly
those of ``flow_graph``; every task and sub-process shape gets one satellite node per
related element the diagram holds, grouped in reading order: inputs, outputs (both
``hasInput``/``hasOutput``), org units (``executedBy``), IT systems (``usesSystem`` or
any related element of the IT facet) and documents (``guidelines`` or any related
document); an element related through several of these comes once, in its first group.
A satellite's node id and shape id are ``<shape id>:<element id>``, its guid the
element id, its view role ``satellite-<symbol>`` (``SYMBOL_OF_GROUP``: a parallelogram
for inputs and outputs, an oval for org units, a barred box for IT systems, a sheet with
a wavy base for documents) and its lines wrapped to that symbol's label area; an input's
edge runs satellite → task, every other edge task → satellite. The scene's
``symbol_legend`` names each symbol the drawing uses, in group order, with the type's
display name in the render's culture.
"""
from __future__ import annotations

from collections.abc import Callable

from layouts.geometry import Box
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from renderer.culture import Cultures
from renderer.flow import flow_graph
from renderer.kinds import KINDS
from renderer.measure import FONT_SIZE, shape_label
from renderer.model import Diagram, Element, Shape
from renderer.names import type_name
from renderer.relations import is_document, is_system, related
from renderer.scene import Scene, ShapeView
from renderer.symbols import symbol_for
from renderer.text import FontMetrics

SATELLITE_WIDTH = 132.0
SATELLITE_LINES = 2
SATELLITE_PADDING = 5.0

#: Satellite groups in drawing order, each with the test a (context, related element)
#: pair passes to belong to it.
GROUPS: tuple[tuple[str, Callable[[str, Element], bool]], ...] = (
    ("input", lambda context, element: context == "hasInput"),
    ("output", lambda context, element: context == "hasOutput"),
    ("orgUnit", lambda context, element: context == "executedBy"),
    ("system", lambda context, element: context == "usesSystem" or is_system(element)),
    ("document", lambda context, element: context == "guidelines" or is_document(element)),
)


#: Satellite group → the symbol (view role) it is drawn with, and the element type whose
#: display name the legend gives that symbol.
SYMBOL_OF_GROUP: dict[str, tuple[str, str]] = {
    "input": ("satellite-data", "inOut"),
    "output": ("satellite-data", "inOut"),
    "orgUnit": ("satellite-orgUnit", "orgUnit"),
    "system": ("satellite-system", "system"),
    "document": ("satellite-document", "knowledgeStructureDocument"),
}


def detailed_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
                   layout_key: str) -> tuple[LayoutGraph, Scene]:
    """The flow graph with the satellites of every task and sub-process shape."""
    graph, scene = flow_graph(diagram, cultures, font, layout_key)
    nodes = list(graph.nodes)
    edges = list(graph.edges)
    views = dict(scene.shapes)
    line_height = font.line_height(FONT_SIZE)
    used: dict[str, str] = {}
    for shape in diagram.shapes:
        if not KINDS[shape.element.type].work:
            continue
        for group, element in satellite_elements(diagram, shape):
            satellite_id = f"{shape.shape_id}:{element.id}"
            role, legend_type = SYMBOL_OF_GROUP[group]
            used.setdefault(role, type_name(legend_type, cultures))
            width, air = _label_room(role, line_height)
            lines = tuple(font.wrap(shape_label(element, cultures) or element.type, width, FONT_SIZE,
                                    SATELLITE_LINES, cultures.requested))
            height = round(len(lines) * line_height + air, 2)
            nodes.append(LayoutNode(satellite_id, element.type, SATELLITE_WIDTH, height, role="satellite",
                                    parent=shape.shape_id))
            ends = (satellite_id, shape.shape_id) if group == "input" else (shape.shape_id, satellite_id)
            edges.append(LayoutEdge(*ends, key=f"sat:{shape.shape_id}:{element.id}"))
            views[satellite_id] = ShapeView(satellite_id, element.id, element.type, lines, role=role)
    legend = tuple((role, used[role]) for role in dict.fromkeys(role for role, _ in SYMBOL_OF_GROUP.values())
                   if role in used)
    return LayoutGraph(tuple(nodes), tuple(edges), graph.lanes), Scene(diagram.id, layout_key, views,
                                                                       font_size=scene.font_size,
                                                                       symbol_legend=legend)


def _label_room(role: str, line_height: float) -> tuple[float, float]:
    """The width a satellite's lines get inside its symbol, and the height the symbol
    needs beyond its lines: measured on the symbol at its tallest (its narrowest label
    area: an org unit's oval ends grow with the height)."""
    tallest = SATELLITE_LINES * line_height + 2 * SATELLITE_PADDING
    area = symbol_for(ShapeView("", "", "", role=role), Box(0.0, 0.0, SATELLITE_WIDTH, tallest), line_height,
                      FONT_SIZE).label_area
    return area.w, max(2 * SATELLITE_PADDING, tallest - area.h)


def satellite_elements(diagram: Diagram, shape: Shape) -> list[tuple[str, Element]]:
    """(group, element) for each satellite of ``shape``, in group order, each element
    once."""
    links = list(related(diagram, shape.element))
    chosen: dict[str, tuple[str, Element]] = {}
    for group, belongs in GROUPS:
        for context, element in links:
            if element.id not in chosen and belongs(context, element):
                chosen[element.id] = (group, element)
    return list(chosen.values())
