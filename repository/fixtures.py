"""A diagram in the store → the renderer's fixture dict (docs/contract.md, "Diagram
fixture format").

`values` are the diagram's shapes in order as content-create items whose predecessors
are indices; `elements` holds the diagram's descendants and every element that the
diagram, its shapes' elements or those descendants reference (one level), so every
layout key (swimlanes, matrices, graphic, entityRelationship) finds what it draws.

Every element is described by its newest version: attributes, related, children and the
diagram's content; the diagram itself by the version asked for, its newest by default
(the compare endpoint reads two of them, repository/api/compare.py).
"""

from __future__ import annotations

import json
from typing import Any

from renderer.contract import MAX_SHAPES
from repository.errors import InvalidInput, TooLarge
from repository.store import Link, Store
from repository.store.base import current_version_pk
from repository.store.models import Element, ElementVersion

MAX_DESCENDANTS = 20000
#: How deep expanded sub-processes may sit inside each other in a BPMN export.
MAX_NESTING = 10


def diagram_fixture(store: Store, diagram: Element, version: ElementVersion | None = None) -> dict[str, Any]:
    """The fixture of ``diagram`` as its ``version`` (default: its newest) holds it."""
    version = version or store.reads.current_version(diagram)
    shapes = store.reads.shapes(version)
    chosen = {diagram.pk: version.pk}
    descendants = _descendants(store, diagram, chosen)
    shape_elements = store.reads.elements_by_pk(s.element_pk for s in shapes)
    described = {diagram.pk: diagram, **shape_elements, **{e.pk: e for e in descendants}}
    details = _Details(store, list(described.values()), chosen)
    referenced_pks = [pk for e in described.values() for pk in details.link_targets(e)]
    referenced = store.reads.elements_by_pk(referenced_pks)
    details.load([e for pk, e in referenced.items() if pk not in described])

    index_of = {s.shape_id: i for i, s in enumerate(shapes)}
    values = [
        {
            "shapeInfo": {
                "index": i,
                "id": shape.shape_id,
                "predecessors": [index_of[p] for p in json.loads(shape.predecessors)
                                 if p in index_of],
            },
            "element": details.describe(shape_elements[shape.element_pk], with_children=False),
        }
        for i, shape in enumerate(shapes)
    ]
    listed: dict[int, Element] = {}
    for element in [*descendants, *(referenced[pk] for pk in referenced_pks)]:
        if element.pk != diagram.pk:
            listed.setdefault(element.pk, element)
    return {
        "diagram": details.describe(diagram),
        "elements": [details.describe(e) for e in listed.values()],
        "values": values,
    }


def nested_fixture(store: Store, diagram: Element, max_depth: int | None = None,
                   max_shapes: int | None = None) -> dict[str, Any]:
    """`diagram_fixture` with, under `inner`, the nested fixture of each shape's element
    that is a sub-process with content of its own, by element id: what the BPMN export
    draws inside the expanded sub-process. A sub-process inside itself (at any depth) is
    drawn collapsed there. More than `max_depth` levels of them is InvalidInput, more than
    `max_shapes` shapes in the fixtures gathered TooLarge (by default MAX_NESTING and the render
    contract's MAX_SHAPES): the export stays bounded."""
    max_depth = MAX_NESTING if max_depth is None else max_depth
    max_shapes = MAX_SHAPES if max_shapes is None else max_shapes
    drawn = 0

    def gather(element: Element, path: tuple[str, ...]) -> dict[str, Any]:
        nonlocal drawn
        fixture = diagram_fixture(store, element)
        drawn += len(fixture["values"])
        if drawn > max_shapes:
            raise TooLarge(f"diagram {diagram.id!r} with its sub-processes' content draws more than "
                           f"{max_shapes} shapes")
        sub_processes = [value["element"]["id"] for value in fixture["values"]
                         if value["element"]["type"] == "subProcess" and value["element"]["id"] not in path]
        inner: dict[str, Any] = {}
        for element_id in dict.fromkeys(sub_processes):
            sub_process = store.reads.element(element_id)
            if not store.reads.shapes(store.reads.current_version(sub_process)):
                continue
            if len(path) > max_depth:
                raise InvalidInput(f"sub-processes with content nest more than {max_depth} deep in "
                                   f"diagram {diagram.id!r} (at {element_id!r})")
            inner[element_id] = gather(sub_process, (*path, element_id))
        if inner:
            fixture["inner"] = inner
        return fixture

    return gather(diagram, (diagram.id,))


def _descendants(store: Store, root: Element, chosen: dict[int, int]) -> list[Element]:
    """Children (of each newest version, of the `chosen` version for the elements it
    names) recursively, breadth first, each once (the hierarchy may not loop, but a
    defensive `seen` keeps a damaged database from hanging a request)."""
    seen = {root.pk}
    order: list[Element] = []
    frontier = [root]
    while frontier and len(order) < MAX_DESCENDANTS:
        children = store.reads.child_pks([_version_pk(e, chosen) for e in frontier])
        fresh = list(dict.fromkeys(pk for e in frontier for pk in children[_version_pk(e, chosen)]
                                   if pk not in seen))
        seen.update(fresh)
        loaded = store.reads.elements_by_pk(fresh)
        frontier = [loaded[pk] for pk in fresh]
        order.extend(frontier)
    return order


def _version_pk(element: Element, chosen: dict[int, int]) -> int:
    return chosen.get(element.pk) or current_version_pk(element)


class _Details:
    """Attributes, related and children of a set of elements, loaded in batches: of each
    element's newest version, or of the version `chosen` names for it."""

    def __init__(self, store: Store, elements: list[Element], chosen: dict[int, int]) -> None:
        self.store = store
        self.chosen = chosen
        self.attributes: dict[int, dict[str, dict[int, Any]]] = {}
        self.links: dict[int, dict[str, list[Link]]] = {}
        self.children: dict[int, list[str]] = {}
        self.ids: dict[int, str] = {}
        self.load(elements)

    def load(self, elements: list[Element]) -> None:
        version_pks = [_version_pk(e, self.chosen) for e in elements]
        self.attributes.update(self.store.reads.attributes(version_pks))
        self.links.update(self.store.reads.links(version_pks))
        children = self.store.reads.child_pks(version_pks)
        targets = {link.target_pk for v in version_pks for ls in self.links[v].values()
                   for link in ls} | {pk for pks in children.values() for pk in pks}
        self.ids.update({pk: e.id for pk, e in self.store.reads.elements_by_pk(targets).items()})
        for element in elements:
            self.children[element.pk] = [self.ids[pk] for pk in children[_version_pk(element, self.chosen)]]

    def link_targets(self, element: Element) -> list[int]:
        per_context = self.links.get(_version_pk(element, self.chosen), {})
        return [link.target_pk for ls in per_context.values() for link in ls]

    def describe(self, element: Element, with_children: bool = True) -> dict[str, Any]:
        version_pk = _version_pk(element, self.chosen)
        body: dict[str, Any] = {
            "id": element.id,
            "type": element.type,
            "facetName": element.facet,
            "attributes": {name: {str(c): v for c, v in per_culture.items()}
                           for name, per_culture in self.attributes.get(version_pk, {}).items()},
            "related": {context: [{"id": self.ids[link.target_pk]} for link in ls]
                        for context, ls in self.links.get(version_pk, {}).items()},
        }
        if with_children:
            body["children"] = [{"id": i} for i in self.children.get(element.pk, [])]
        return body
