"""Diagram → graph and scene of the ``entityRelationship`` layout: the diagram's element
in the middle, the elements related to it and to its shapes around it.

Expects a parsed ``Diagram``. Guarantees: the first node is the diagram element (role
``subject``, node id and shape id its id); then one entity per element that the
diagram element or one of its shapes relates to and the diagram holds (not the
diagram element itself, and nothing technical: the server's bookkeeping relations
``renderer.contract.SERVER_RELATED``, who created, changed or released an element, and elements of
``TECHNICAL_TYPES``, the kinds of ``Kind.machinery`` such as access tokens), each once, in reading order: by relation
(the configuration's order of related contexts, a context it does not know after them
in name order), then by first mention; an entity's ``lane`` names its relation group
(the context it is first reached by), which the layout keeps in one column. One edge
per relation (context, element), from the subject, keyed
``rel:<context>:<element id>`` and labelled with the context's display name in the
render's culture (``renderer.names``), its label size reserved on the edge; edges in
the entities' order. An entity's shape id is its first shape's id where it is a shape of
the diagram, else its id; it lists its name (at most two lines), «its type's display
name» and, when the element carries them, "version · state" with the state's display
name (``renderer.names.state_name``; the state of unversioned elements is not shown).
"""
from __future__ import annotations

from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from renderer.contract import SERVER_RELATED
from renderer.culture import Cultures
from renderer.kinds import KINDS
from renderer.measure import BOX_PADDING, FONT_SIZE, label_culture, shape_label
from renderer.model import Diagram, Element
from renderer.names import RELATION_NAMES, relation_name, state_name, type_name
from renderer.relations import first_shape_ids, related
from renderer.scene import Scene, ShapeView
from renderer.text import FontMetrics

#: Element types of the service's own machinery, never an entity of a business view.
TECHNICAL_TYPES = frozenset(key for key, kind in KINDS.items() if kind.machinery)
ENTITY_WIDTH = 170.0
NAME_LINES = 2
EDGE_LABEL_PADDING = 4.0
_CONTEXT_RANK = {context: rank for rank, context in enumerate(RELATION_NAMES)}


def entity_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics, layout_key: str) -> tuple[LayoutGraph, Scene]:
    """The diagram element as the subject, its and its shapes' relations as labelled edges."""
    subject = diagram.element
    relations = _relations(diagram)
    entities: dict[str, Element] = {subject.id: subject}
    group_of: dict[str, str] = {}
    for context, target in relations:
        entities.setdefault(target.id, target)
        group_of.setdefault(target.id, context)
    shape_ids = first_shape_ids(diagram)
    line_height = font.line_height(FONT_SIZE)
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for element in entities.values():
        lines = entity_lines(element, cultures, font)
        role = "subject" if element is subject else "entity"
        nodes.append(LayoutNode(element.id, element.type, ENTITY_WIDTH,
                                round(len(lines) * line_height + 2 * BOX_PADDING, 2),
                                lane=group_of.get(element.id), role=role))
        views[element.id] = ShapeView(shape_ids.get(element.id, element.id), element.id, element.type, lines,
                                      role=role)
    edges: list[LayoutEdge] = []
    labels: dict[str, tuple[str, ...]] = {}
    for context, target in relations:
        key = f"rel:{context}:{target.id}"
        name = relation_name(context, cultures)
        width = font.text_width(name, FONT_SIZE) + 2 * EDGE_LABEL_PADDING
        edges.append(LayoutEdge(subject.id, target.id, round(width, 2),
                                round(line_height + EDGE_LABEL_PADDING, 2), key=key))
        labels[key] = (name,)
    scene = Scene(diagram.id, layout_key, views, edge_labels=labels, font_size=FONT_SIZE)
    return LayoutGraph(tuple(nodes), tuple(edges)), scene


def _relations(diagram: Diagram) -> list[tuple[str, Element]]:
    """(context, element) of the diagram element and of every shape's element, each pair
    once and never back to the diagram element; ordered by context, then first mention,
    with the pairs of one target kept together after its first."""
    found: dict[tuple[str, str], tuple[str, Element]] = {}
    for source in (diagram.element, *(shape.element for shape in diagram.shapes)):
        for context, target in related(diagram, source):
            if target.id != diagram.element.id and context not in SERVER_RELATED and \
                    target.type not in TECHNICAL_TYPES:
                found.setdefault((context, target.id), (context, target))
    mention = {pair: index for index, pair in enumerate(found)}
    by_relation = sorted(found, key=lambda pair: (_CONTEXT_RANK.get(pair[0], len(_CONTEXT_RANK)), pair[0],
                                                  mention[pair]))
    first_of_target: dict[str, int] = {}
    for index, (_, target_id) in enumerate(by_relation):
        first_of_target.setdefault(target_id, index)
    ordered = sorted(range(len(by_relation)), key=lambda index: (first_of_target[by_relation[index][1]], index))
    return [found[by_relation[index]] for index in ordered]


def entity_lines(element: Element, cultures: Cultures, font: FontMetrics) -> tuple[str, ...]:
    """Name (wrapped, at most two lines), «type», and "version · state" if present."""
    inner = ENTITY_WIDTH - 2 * BOX_PADDING
    name = font.wrap(shape_label(element, cultures), inner, FONT_SIZE, NAME_LINES, label_culture(element, cultures))
    details = " \u00b7 ".join(part for part in (
        f"v{element.text('version', cultures)}" if element.text("version", cultures) else "",
        state_name(element.text("state1", cultures) or element.text("state", cultures), cultures),
    ) if part)
    extra = (font.ellipsize(details, inner, FONT_SIZE),) if details else ()
    caption = font.ellipsize(f"\u00ab{type_name(element.type, cultures)}\u00bb", inner, FONT_SIZE)
    return (*name, caption, *extra)
