"""Diagram → graph and scene of the ``graphic`` layout: the hierarchy under the diagram
element as a process house, or as nested boxes.

Expects a parsed ``Diagram`` whose ``children`` (and their children) the fixture holds
in ``elements``. Guarantees: one node per element of ``relations.hierarchy`` (the
diagram element first, each element once), node ids element ids, shape ids the
element's shape id where it is a shape of the diagram, else its id. A diagram without
children is one leaf: the diagram element.

A process house is a diagram element whose children are categories (each with children
of its own) that their names, else their order, sort into management, core and support
processes (``house_bands``): then the core category is a ``chain`` whose children are
``chevron`` nodes, every element under a chevron a ``leaf`` listed in it, and each other
category a ``band`` (role of the layout node; drawn as a container). Otherwise an
element with children is a ``container`` and any other element a ``leaf``. Containers,
bands and the chain get the least width of their name and the height of their header
strip (the strip ``renderer.symbols`` draws for that many lines); a chevron the width of
its name beside the arrow tips and the height of that strip; leaves are measured like a
task, and after layout (``fit_leaf_names``) their names are wrapped again to the box
they were given: a leaf widened to fill its row shows its name on fewer lines.
"""
from __future__ import annotations

from dataclasses import replace

from layouts.geometry import Layout
from layouts.graph import LayoutGraph, LayoutNode
from layouts.graphic import CHEVRON_TIP
from renderer.culture import Cultures
from renderer.measure import BOX_PADDING, FONT_SIZE, fit_lines, label_culture, measure_box, shape_label
from renderer.model import Diagram, Element
from renderer.relations import children_of, first_shape_ids, hierarchy
from renderer.scene import Scene, ShapeView
from renderer.symbols import LABEL_PADDING, container_header_height, symbol_for
from renderer.text import FontMetrics

CONTAINER_NAME_WIDTH = 260.0
CONTAINER_NAME_LINES = 2
CHEVRON_NAME_WIDTH = 150.0

#: Words (lower case, any culture) that name a category of the process house.
BAND_WORDS: dict[str, tuple[str, ...]] = {
    "management": ("management", "führung", "steuerung", "leitung", "strateg"),
    "core": ("core", "kern", "wertschöpf", "value", "primär", "primary", "leistung"),
    "support": ("support", "unterstütz", "hilfs", "enabling", "befähig"),
}


def graphic_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
                  layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Containers and leaves of the hierarchy, each naming its parent; the process
    house's bands, chain and chevrons where the hierarchy is one."""
    members = hierarchy(diagram)
    parents = {parent for _, parent in members if parent is not None}
    bands = house_bands(diagram)
    chevrons = {element.id for element, parent in members if parent is not None and bands.get(parent) == "core"}
    listed = _under(members, chevrons)
    shape_ids = first_shape_ids(diagram)
    line_height = font.line_height(FONT_SIZE)
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for element, parent in members:
        name, culture = shape_label(element, cultures), label_culture(element, cultures)
        if element.id in chevrons:
            lines = tuple(font.wrap(name, CHEVRON_NAME_WIDTH, FONT_SIZE, CONTAINER_NAME_LINES, culture))
            width = _widest(lines, font) + 2 * CHEVRON_TIP + 2 * LABEL_PADDING + 2
            height = container_header_height(len(lines), line_height)
            role = view_role = "chevron"
        elif element.id in parents and element.id not in listed:
            lines = tuple(font.wrap(name, CONTAINER_NAME_WIDTH, FONT_SIZE, CONTAINER_NAME_LINES, culture))
            width = _widest(lines, font) + 2 * LABEL_PADDING + 2
            height = container_header_height(len(lines), line_height)
            view_role = "container"
            role = {"core": "chain", None: "container"}.get(bands.get(element.id), "band")
        else:
            measured = measure_box(name, font, culture=culture)
            lines, width, height, role, view_role = measured.lines, measured.width, measured.height, "leaf", "leaf"
        nodes.append(LayoutNode(element.id, element.type, round(width, 2), round(height, 2), role=role,
                                parent=parent))
        views[element.id] = ShapeView(shape_ids.get(element.id, element.id), element.id, element.type, lines,
                                      role=view_role)
    return LayoutGraph(tuple(nodes), ()), Scene(diagram.id, layout_key, views, font_size=FONT_SIZE)


def house_bands(diagram: Diagram) -> dict[str, str]:
    """Category id → ``management``, ``core`` or ``support`` when the diagram element is
    a process house, else empty. A house has at least two categories, each with
    children, exactly one of them core. A category is sorted by the words of its names
    (``BAND_WORDS``, every culture); one its names leave open is sorted by its place
    when there are exactly three: management, core, support."""
    categories = children_of(diagram, diagram.element)
    if len(categories) < 2 or any(not children_of(diagram, category) for category in categories):
        return {}
    kinds = [_named_kind(category) for category in categories]
    if len(categories) == 3:
        kinds = [kind or by_place for kind, by_place in zip(kinds, ("management", "core", "support"))]
    if None in kinds or kinds.count("core") != 1:
        return {}
    return {category.id: str(kind) for category, kind in zip(categories, kinds)}


def _named_kind(category: Element) -> str | None:
    """The one kind whose words the category's names hold, else None."""
    names = " ".join(str(value) for value in (category.attributes.get("name") or {}).values()).lower()
    kinds = [kind for kind, words in BAND_WORDS.items() if any(word in names for word in words)]
    return kinds[0] if len(kinds) == 1 else None


def _under(members: list[tuple[Element, str | None]], roots: set[str]) -> set[str]:
    """Ids of every element below one of ``roots`` (hierarchy order puts parents first)."""
    below: set[str] = set()
    for element, parent in members:
        if parent is not None and (parent in roots or parent in below):
            below.add(element.id)
    return below


def _widest(lines: tuple[str, ...], font: FontMetrics) -> float:
    return max((font.text_width(line, FONT_SIZE) for line in lines), default=0.0)


def fit_leaf_names(scene: Scene, layout: Layout, diagram: Diagram, cultures: Cultures,
                   font: FontMetrics) -> Scene:
    """``scene`` with every leaf's name wrapped again (``fit_lines``) to the label area
    of the box the layout drew, in at most as many lines as that box holds (never fewer
    than the builder's wrap has: the box was made for those); any other scene as it is."""
    line_height = font.line_height(FONT_SIZE)
    shapes = dict(scene.shapes)
    for node in layout.nodes:
        view = shapes.get(node.id)
        element = diagram.element if node.id == diagram.id else diagram.lookup(node.id)
        if view is None or view.role != "leaf" or element is None:
            continue
        area = symbol_for(view, node.box, line_height, FONT_SIZE).label_area
        room = area.w - 2 * (BOX_PADDING - LABEL_PADDING)  # the air ``measure_box`` keeps
        max_lines = max(len(view.lines), int(area.h / line_height))
        _, lines = fit_lines(shape_label(element, cultures), font, (room,), max_lines, label_culture(element, cultures))
        shapes[node.id] = replace(view, lines=lines)
    return replace(scene, shapes=shapes)
