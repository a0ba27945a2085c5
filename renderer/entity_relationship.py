"""Diagram → graph and scene of the ``entityRelationship`` layout.

Expects a parsed ``Diagram``. Guarantees: one entity per element of the diagram's
shapes (each element once, in shape order) and per element they are related to that
the diagram holds (in order of first mention); node ids are element ids, shape ids the
element's first shape id, else its id; one edge per (element, context, element) between
two different entities, keyed ``rel:<context>:<target>`` (so the relations of several
sources to one target through one context share one label) and labelled with the
context name, its label size reserved on the edge. An entity lists its name (at most
two lines), its type and, when the element carries them, its version and state.
"""
from __future__ import annotations

from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from renderer.culture import Cultures
from renderer.measure import BOX_PADDING, FONT_SIZE, shape_label
from renderer.model import Diagram, Element
from renderer.relations import first_shape_ids, related
from renderer.scene import Scene, ShapeView
from renderer.text import FontMetrics

ENTITY_WIDTH = 170.0
NAME_LINES = 2
EDGE_LABEL_PADDING = 4.0


def entity_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics, layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Entities and their relations as labelled edges."""
    entities: dict[str, Element] = {}
    for shape in diagram.shapes:
        entities.setdefault(shape.element.id, shape.element)
    for element in list(entities.values()):
        for _, target in related(diagram, element):
            entities.setdefault(target.id, target)
    shape_ids = first_shape_ids(diagram)
    line_height = font.line_height(FONT_SIZE)
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for element in entities.values():
        lines = entity_lines(element, cultures, font)
        nodes.append(LayoutNode(element.id, element.type, ENTITY_WIDTH,
                                round(len(lines) * line_height + 2 * BOX_PADDING, 2), role="entity"))
        views[element.id] = ShapeView(shape_ids.get(element.id, element.id), element.id, element.type, lines,
                                      role="entity")
    edges: list[LayoutEdge] = []
    labels: dict[str, tuple[str, ...]] = {}
    for element in entities.values():
        for context, target in related(diagram, element):
            if target.id == element.id:
                continue
            key = f"rel:{context}:{target.id}"
            width = font.text_width(context, FONT_SIZE) + 2 * EDGE_LABEL_PADDING
            edges.append(LayoutEdge(element.id, target.id, round(width, 2),
                                    round(line_height + EDGE_LABEL_PADDING, 2), key=key))
            labels[key] = (context,)
    scene = Scene(diagram.id, layout_key, views, edge_labels=labels, font_size=FONT_SIZE)
    return LayoutGraph(tuple(nodes), tuple(edges)), scene


def entity_lines(element: Element, cultures: Cultures, font: FontMetrics) -> tuple[str, ...]:
    """Name (wrapped, at most two lines), «type», and "version · state" if present."""
    name = font.wrap(shape_label(element, cultures), ENTITY_WIDTH - 2 * BOX_PADDING, FONT_SIZE, NAME_LINES)
    details = " \u00b7 ".join(part for part in (
        f"v{element.text('version', cultures)}" if element.text("version", cultures) else "",
        element.text("state1", cultures) or element.text("state", cultures),
    ) if part)
    extra = (font.ellipsize(details, ENTITY_WIDTH - 2 * BOX_PADDING, FONT_SIZE),) if details else ()
    return (*name, f"\u00ab{element.type}\u00bb", *extra)
