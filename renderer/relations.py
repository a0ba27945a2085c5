"""What the element-drawing builders read from a ``Diagram`` besides its flow: related
elements by context, kinds of element, the hierarchy under an element.

Expects a parsed ``Diagram``; references to elements the fixture does not hold are
skipped (a diagram is drawn with what it carries, never refused for a dangling link).
Guarantees: every result is in a stable order (the element's own order of contexts
and references, or children order) and holds each element once.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from renderer.kinds import KINDS
from renderer.model import Diagram, Element


def related(diagram: Diagram, element: Element, contexts: Iterable[str] | None = None) -> Iterator[tuple[str, Element]]:
    """(context, element) for each reference of ``element`` in ``contexts`` (default:
    all of its contexts, in name order) that the diagram holds; a pair once."""
    seen: set[tuple[str, str]] = set()
    for context in (element.related if contexts is None else contexts):
        for target_id in element.related.get(context, ()):
            target = diagram.lookup(target_id)
            if target is not None and (context, target_id) not in seen:
                seen.add((context, target_id))
                yield context, target


def is_org_unit(element: Element) -> bool:
    return element.type == "orgUnit" or element.facet == "organization"


def is_product(element: Element) -> bool:
    return element.type == "product" or element.facet == "products"


def is_system(element: Element) -> bool:
    return element.type in ("system", "systemType") or element.facet == "it"


def is_document(element: Element) -> bool:
    return element.type == "knowledgeStructureDocument" or element.facet == "knowledge"


def children_of(diagram: Diagram, element: Element) -> list[Element]:
    """The element's children the diagram holds, in order. The diagram element itself
    is found too when a child names it (it is not among ``Diagram.elements``)."""
    found = (diagram.element if child == diagram.id else diagram.lookup(child) for child in element.children)
    return [child for child in found if child is not None]


def hierarchy(diagram: Diagram) -> list[tuple[Element, str | None]]:
    """The diagram element and everything under it, depth first in children order, as
    (element, parent id); an element reached twice (shared child, or a cycle) is kept
    at its first place only."""
    result: list[tuple[Element, str | None]] = []
    seen: set[str] = set()
    stack: list[tuple[Element, str | None]] = [(diagram.element, None)]
    while stack:
        element, parent = stack.pop()
        if element.id in seen:
            continue
        seen.add(element.id)
        result.append((element, parent))
        stack.extend((child, element.id) for child in reversed(children_of(diagram, element)))
    return result


def first_shape_ids(diagram: Diagram) -> dict[str, str]:
    """Element id → the id of its first shape in the diagram."""
    ids: dict[str, str] = {}
    for shape in diagram.shapes:
        ids.setdefault(shape.element.id, shape.shape_id)
    return ids


def matrix_rows(diagram: Diagram) -> list[Element]:
    """The rows of both matrices (docs/contract.md, "Layout keys"): the elements of the
    diagram's task and sub-process shapes (``Kind.work``), each once; for an element
    without content, the processes under it in the hierarchy (``Kind.process``)."""
    if diagram.shapes:
        candidates = [shape.element for shape in diagram.shapes if KINDS[shape.element.type].work]
    else:
        candidates = [element for element, parent in hierarchy(diagram)
                      if parent is not None and KINDS[element.type].process]
    rows: dict[str, Element] = {}
    for element in candidates:
        rows.setdefault(element.id, element)
    return list(rows.values())
