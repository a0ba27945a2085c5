"""Diagram → graph and scene of the ``graphic`` layout: the hierarchy under the diagram
element as nested boxes.

Expects a parsed ``Diagram`` whose ``children`` (and their children) the fixture holds
in ``elements``. Guarantees: one node per element of ``relations.hierarchy`` (the
diagram element first, each element once); an element with children is a
``container`` whose ``width``/``height`` are the least width of its name and the height
of its header strip (the strip ``renderer.symbols`` draws for that many lines), any
other element a ``leaf`` measured like a task; node ids are element ids, shape ids the
element's shape id where it is a shape of the diagram, else its id. A diagram without
children is one leaf: the diagram element.
"""
from __future__ import annotations

from layouts.graph import LayoutGraph, LayoutNode
from renderer.culture import Cultures
from renderer.measure import FONT_SIZE, measure_box, shape_label
from renderer.model import Diagram
from renderer.relations import first_shape_ids, hierarchy
from renderer.scene import Scene, ShapeView
from renderer.symbols import LABEL_PADDING
from renderer.text import FontMetrics

CONTAINER_NAME_WIDTH = 260.0
CONTAINER_NAME_LINES = 2


def graphic_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
                  layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Containers and leaves of the hierarchy, each naming its parent."""
    members = hierarchy(diagram)
    parents = {parent for _, parent in members if parent is not None}
    shape_ids = first_shape_ids(diagram)
    line_height = font.line_height(FONT_SIZE)
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for element, parent in members:
        name = shape_label(element, cultures)
        if element.id in parents:
            lines = tuple(font.wrap(name, CONTAINER_NAME_WIDTH, FONT_SIZE, CONTAINER_NAME_LINES))
            width = max((font.text_width(line, FONT_SIZE) for line in lines), default=0.0) + 2 * LABEL_PADDING + 2
            height = max(len(lines), 1) * line_height + 2 * LABEL_PADDING
            role = "container"
        else:
            measured = measure_box(name, font)
            lines, width, height, role = measured.lines, measured.width, measured.height, "leaf"
        nodes.append(LayoutNode(element.id, element.type, round(width, 2), round(height, 2), role=role,
                                parent=parent))
        views[element.id] = ShapeView(shape_ids.get(element.id, element.id), element.id, element.type, lines,
                                      role=role)
    return LayoutGraph(tuple(nodes), ()), Scene(diagram.id, layout_key, views, font_size=FONT_SIZE)
