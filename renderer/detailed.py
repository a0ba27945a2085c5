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
a wavy base for documents) and its lines wrapped to that symbol's label area. The
satellites of one task share one width, the narrowest of ``SATELLITE_WIDTHS`` where
every name fits in two lines, else three: without a broken word where a width allows,
else hyphenated, an ellipsis only when no width holds it.
An input's edge runs satellite → task and an output's task → satellite, both arrows;
an org unit, IT system or document is an undirected association (``Scene.associations``:
no arrowhead, its edge runs task → satellite only because a route needs two ends). The
scene's ``symbol_legend`` names each symbol the drawing uses, in group order, with the
type's display name in the render's culture.
"""
from __future__ import annotations

from collections.abc import Callable

from layouts.geometry import Box
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from renderer.culture import Cultures
from renderer.flow import flow_graph
from renderer.kinds import KINDS
from renderer.measure import FONT_SIZE, label_culture, shape_label
from renderer.model import Diagram, Element, Shape
from renderer.names import type_name
from renderer.relations import is_document, is_system, related
from renderer.scene import Scene, ShapeView
from renderer.symbols import symbol_for
from renderer.text import FontMetrics

#: Widths a satellite may take, narrowest first: it grows before its name breaks or is cut.
SATELLITE_WIDTHS = (132.0, 176.0, 220.0)
#: Lines of a satellite's name: two where a width holds it, else up to three.
SATELLITE_LINES = (2, 3)
SATELLITE_PADDING = 5.0
#: Groups whose satellite is a data flow (an arrow); the others are associations.
DIRECTED_GROUPS = ("input", "output")

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
    associations: set[str] = set()
    line_height = font.line_height(FONT_SIZE)
    used: dict[str, str] = {}
    for shape in diagram.shapes:
        if not KINDS[shape.element.type].work:
            continue
        hosted = satellite_elements(diagram, shape)
        width, wrapped = _fitted(hosted, cultures, font, line_height)
        for (group, element), (lines, air) in zip(hosted, wrapped):
            satellite_id = f"{shape.shape_id}:{element.id}"
            role, legend_type = SYMBOL_OF_GROUP[group]
            used.setdefault(role, type_name(legend_type, cultures))
            height = round(len(lines) * line_height + air, 2)
            nodes.append(LayoutNode(satellite_id, element.type, width, height, role="satellite",
                                    parent=shape.shape_id))
            key = f"sat:{shape.shape_id}:{element.id}"
            ends = (satellite_id, shape.shape_id) if group == "input" else (shape.shape_id, satellite_id)
            edges.append(LayoutEdge(*ends, key=key))
            if group not in DIRECTED_GROUPS:
                associations.add(key)
            views[satellite_id] = ShapeView(satellite_id, element.id, element.type, lines, role=role)
    legend = tuple((role, used[role]) for role in dict.fromkeys(role for role, _ in SYMBOL_OF_GROUP.values())
                   if role in used)
    return LayoutGraph(tuple(nodes), tuple(edges), graph.lanes), Scene(diagram.id, layout_key, views,
                                                                       font_size=scene.font_size,
                                                                       symbol_legend=legend,
                                                                       associations=frozenset(associations))


def _fitted(hosted: list[tuple[str, Element]], cultures: Cultures, font: FontMetrics, line_height: float
            ) -> tuple[float, list[tuple[tuple[str, ...], float]]]:
    """The width the satellites ``hosted`` of one task share and, per satellite, its
    lines and the height its symbol needs beyond them: the narrowest of
    ``SATELLITE_WIDTHS`` where every name fits its symbol whole in two lines, else in
    three, with no word broken; else the same with words hyphenated; else the widest
    (where a name that fits nowhere is ellipsized)."""
    names = [(shape_label(element, cultures) or element.type, label_culture(element, cultures))
             for _, element in hosted]
    rooms = {(group, width, max_lines): _label_room(SYMBOL_OF_GROUP[group][0], width, max_lines, line_height)
             for group, _ in hosted for width in SATELLITE_WIDTHS for max_lines in SATELLITE_LINES}

    def wrapped(width: float, max_lines: int, fit: str) -> list[tuple[tuple[str, ...], float]] | None:
        """Every name's lines at ``width`` in ``max_lines``, None when one does not
        ``fit``: "unbroken" (no word broken), "whole" (no ellipsis) or "cut" (any)."""
        result: list[tuple[tuple[str, ...], float]] = []
        for (group, _), (name, culture) in zip(hosted, names):
            room, air = rooms[group, width, max_lines]
            lines = font.wrap(name, room, FONT_SIZE, max_lines, culture) if fit == "cut" else \
                font.wrap_whole(name, room, FONT_SIZE, max_lines, culture)
            if lines is None or (fit == "unbroken" and " ".join(lines) != " ".join(name.split())):
                return None
            result.append((tuple(lines), air))
        return result

    for fit in ("unbroken", "whole"):
        for max_lines in SATELLITE_LINES:
            for width in SATELLITE_WIDTHS:
                fitting = wrapped(width, max_lines, fit)
                if fitting is not None:
                    return width, fitting
    cut = wrapped(SATELLITE_WIDTHS[-1], SATELLITE_LINES[-1], "cut")
    assert cut is not None  # wrap always gives lines
    return SATELLITE_WIDTHS[-1], cut


def _label_room(role: str, width: float, max_lines: int, line_height: float) -> tuple[float, float]:
    """The width a satellite's lines get inside its symbol ``width`` wide, and the
    height the symbol needs beyond its lines: measured on the symbol at its tallest
    (its narrowest label area: an org unit's oval ends grow with the height)."""
    tallest = max_lines * line_height + 2 * SATELLITE_PADDING
    area = symbol_for(ShapeView("", "", "", role=role), Box(0.0, 0.0, width, tallest), line_height,
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
