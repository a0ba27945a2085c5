"""What changed between two versions of a diagram: a plain function over two parsed
diagrams (``renderer.model.Diagram``), no layout and no store (issue 22, item 3).

Shapes are matched by shape id (a new version keeps its shapes' ids), elements by
element id, flows by the shape ids of their ends. A shape is

- ``added`` / ``removed``: its id is in one version only;
- ``changed``: it now shows another element, or its element's own data changed (which
  attributes in which cultures, which related contexts, its type or children);
- ``moved``: nothing of its own changed, but it stands elsewhere in the flow: both its
  predecessors and its successors changed, counting across added and removed shapes (the
  shapes before and after an inserted task are still each other's neighbours through it),
  so a shape beside an insertion or a removal is left unmarked: the flows added and
  removed say that.

The attributes and related contexts the server keeps (changedOn, version, relBy, ...)
change with every write and are no change of the model, so they are left out.

An element of one state only (in the repository: every unversioned element, which both
versions describe alike) cannot show what changed; the caller may name, in
``written_since``, those it knows were written after the older version was saved: they
are changed, ``written_since`` set, with no attribute named.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from renderer.contract import SERVER_ATTRIBUTES, SERVER_RELATED
from renderer.model import Diagram, Element, Shape

__all__ = ["ADDED", "CHANGED", "MOVED", "REMOVED", "AttributeChange", "DiagramChanges",
           "ElementChange", "Flow", "compare_diagrams"]

ADDED = "added"
REMOVED = "removed"
CHANGED = "changed"
MOVED = "moved"

@dataclass(frozen=True, slots=True)
class AttributeChange:
    """An attribute whose value differs in ``cultures`` (ascending culture ids)."""

    name: str
    cultures: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ElementChange:
    """What differs in one element: attributes, related contexts, and whether its type
    or its children did."""

    attributes: tuple[AttributeChange, ...] = ()
    related: tuple[str, ...] = ()
    type: bool = False
    children: bool = False
    written_since: bool = False

    def __bool__(self) -> bool:
        return bool(self.attributes or self.related or self.type or self.children or self.written_since)


@dataclass(frozen=True, slots=True)
class Flow:
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class ShapeChange:
    """A shape in both versions that changed: ``before`` is the element it showed, when
    that was another one; ``change`` what differs in its element."""

    shape: Shape
    before: Element | None
    change: ElementChange


@dataclass(frozen=True, slots=True)
class DiagramChanges:
    """Everything ``compare_diagrams`` found, each list in a fixed order (the newer
    version's order, removed things in the older one's), so equal input gives equal JSON."""

    diagram: ElementChange
    added_shapes: tuple[Shape, ...]
    removed_shapes: tuple[Shape, ...]
    changed_shapes: tuple[ShapeChange, ...]
    moved_shapes: tuple[Shape, ...]
    added_elements: tuple[Element, ...]
    removed_elements: tuple[Element, ...]
    changed_elements: tuple[tuple[Element, ElementChange], ...]
    added_flows: tuple[Flow, ...]
    removed_flows: tuple[Flow, ...]

    @property
    def same(self) -> bool:
        """Whether the two versions are the same model (bookkeeping aside)."""
        return not (self.diagram or self.added_shapes or self.removed_shapes or self.changed_shapes
                    or self.moved_shapes or self.added_elements or self.removed_elements
                    or self.changed_elements or self.added_flows or self.removed_flows)

    def shape_marks(self) -> dict[str, str]:
        """Shape id → how the drawing marks it (added, removed, changed, moved)."""
        marks = {shape.shape_id: MOVED for shape in self.moved_shapes}
        marks.update({change.shape.shape_id: CHANGED for change in self.changed_shapes})
        marks.update({shape.shape_id: REMOVED for shape in self.removed_shapes})
        marks.update({shape.shape_id: ADDED for shape in self.added_shapes})
        return marks

    def changed_element_ids(self) -> frozenset[str]:
        return frozenset(element.id for element, _ in self.changed_elements)

    def to_json(self) -> dict[str, Any]:
        """The compare endpoint's answer (docs/api.md, "Compare two versions")."""
        return {
            "same": self.same,
            "diagram": _change_json(self.diagram),
            "shapes": {
                ADDED: [_shape_json(shape) for shape in self.added_shapes],
                REMOVED: [_shape_json(shape) for shape in self.removed_shapes],
                CHANGED: [{**_shape_json(change.shape), **_change_json(change.change),
                           **({"elementBefore": change.before.id} if change.before else {})}
                          for change in self.changed_shapes],
                MOVED: [_shape_json(shape) for shape in self.moved_shapes],
            },
            "elements": {
                ADDED: [_element_json(element) for element in self.added_elements],
                REMOVED: [_element_json(element) for element in self.removed_elements],
                CHANGED: [{**_element_json(element), **_change_json(change)}
                          for element, change in self.changed_elements],
            },
            "flows": {
                ADDED: [_flow_json(flow) for flow in self.added_flows],
                REMOVED: [_flow_json(flow) for flow in self.removed_flows],
            },
        }


def compare_diagrams(old: Diagram, new: Diagram, written_since: frozenset[str] = frozenset()) -> DiagramChanges:
    """What changed from ``old`` to ``new``; ``written_since``: ids of elements of one
    state written after ``old`` was saved (see the module's docstring)."""
    old_shapes = {shape.shape_id: shape for shape in old.shapes}
    new_shapes = {shape.shape_id: shape for shape in new.shapes}
    old_flows, new_flows = _flows(old), _flows(new)
    old_places = _places(old_flows, frozenset(old_shapes) - frozenset(new_shapes))
    new_places = _places(new_flows, frozenset(new_shapes) - frozenset(old_shapes))
    changed_shapes: list[ShapeChange] = []
    moved: list[Shape] = []
    for shape in new.shapes:
        before = old_shapes.get(shape.shape_id)
        if before is None:
            continue
        swapped = before.element.id != shape.element.id
        change = element_change(before.element, shape.element, written_since)
        if swapped or change:
            changed_shapes.append(ShapeChange(shape, before.element if swapped else None, change))
        elif _moved(old_places.get(shape.shape_id), new_places.get(shape.shape_id)):
            moved.append(shape)
    old_elements, new_elements = _elements(old), _elements(new)
    changed_elements = [(element, change) for element_id, element in new_elements.items()
                        if element_id in old_elements
                        and (change := element_change(old_elements[element_id], element, written_since))]
    return DiagramChanges(
        diagram=element_change(old.element, new.element),
        added_shapes=tuple(shape for shape in new.shapes if shape.shape_id not in old_shapes),
        removed_shapes=tuple(shape for shape in old.shapes if shape.shape_id not in new_shapes),
        changed_shapes=tuple(changed_shapes),
        moved_shapes=tuple(moved),
        added_elements=tuple(e for element_id, e in new_elements.items() if element_id not in old_elements),
        removed_elements=tuple(e for element_id, e in old_elements.items() if element_id not in new_elements),
        changed_elements=tuple(changed_elements),
        added_flows=tuple(flow for flow in new_flows if flow not in old_flows),
        removed_flows=tuple(flow for flow in old_flows if flow not in new_flows),
    )


def element_change(old: Element, new: Element, written_since: frozenset[str] = frozenset()) -> ElementChange:
    """What differs between two states of an element, bookkeeping left out."""
    names = sorted((set(old.attributes) | set(new.attributes)) - SERVER_ATTRIBUTES)
    attributes = tuple(AttributeChange(name, cultures) for name in names
                       if (cultures := _changed_cultures(old.attributes.get(name, {}),
                                                         new.attributes.get(name, {}))))
    contexts = sorted((set(old.related) | set(new.related)) - SERVER_RELATED)
    related = tuple(context for context in contexts
                    if old.related.get(context, ()) != new.related.get(context, ()))
    return ElementChange(attributes, related, old.type != new.type, old.children != new.children,
                         new.id in written_since)


def _changed_cultures(old: Mapping[int, Any], new: Mapping[int, Any]) -> tuple[int, ...]:
    return tuple(culture for culture in sorted(set(old) | set(new))
                 if _value(old.get(culture)) != _value(new.get(culture)))


def _value(value: Any) -> Any:
    """An empty text is no value (``Cultures.pick`` treats it so)."""
    return None if value == "" else value


def _flows(diagram: Diagram) -> dict[Flow, None]:
    """The diagram's flows in shape order, each once (an ordered set)."""
    shape_ids = {shape.index: shape.shape_id for shape in diagram.shapes}
    return {Flow(shape_ids[index], shape.shape_id): None
            for shape in diagram.shapes for index in shape.predecessors if index in shape_ids}


Place = tuple[frozenset[str], frozenset[str]]


def _places(flows: Iterable[Flow], passed: frozenset[str]) -> dict[str, Place]:
    """Each shape's predecessors and successors among the shapes not ``passed``, seen
    through the ``passed`` ones (the shapes of one version only): a run of passed shapes
    joined by flows counts as one step, its entries and exits each other's neighbours.
    Linear: the runs are found once (union-find), not walked per shape."""
    flows = list(flows)
    run = {shape_id: shape_id for shape_id in passed}

    def root(shape_id: str) -> str:
        while run[shape_id] != shape_id:
            run[shape_id] = run[run[shape_id]]
            shape_id = run[shape_id]
        return shape_id

    for flow in flows:
        if flow.source in passed and flow.target in passed:
            run[root(flow.source)] = root(flow.target)
    entries: dict[str, set[str]] = {}
    exits: dict[str, set[str]] = {}
    for flow in flows:
        if flow.target in passed and flow.source not in passed:
            entries.setdefault(root(flow.target), set()).add(flow.source)
        if flow.source in passed and flow.target not in passed:
            exits.setdefault(root(flow.source), set()).add(flow.target)
    before: dict[str, set[str]] = {}
    after: dict[str, set[str]] = {}
    for flow in flows:
        if flow.target not in passed:
            before.setdefault(flow.target, set()).update(
                entries.get(root(flow.source), set()) if flow.source in passed else {flow.source})
        if flow.source not in passed:
            after.setdefault(flow.source, set()).update(
                exits.get(root(flow.target), set()) if flow.target in passed else {flow.target})
    return {shape_id: (frozenset(before.get(shape_id, ())), frozenset(after.get(shape_id, ())))
            for shape_id in before.keys() | after.keys()}


def _moved(old: Place | None, new: Place | None) -> bool:
    """Both the shape's predecessors and its successors differ."""
    old_before, old_after = old or (frozenset(), frozenset())
    new_before, new_after = new or (frozenset(), frozenset())
    return old_before != new_before and old_after != new_after


def _elements(diagram: Diagram) -> dict[str, Element]:
    """The elements a version draws or references, by id, the diagram itself left out:
    its shapes' elements in shape order, then the listed ones."""
    elements = {shape.element.id: shape.element for shape in diagram.shapes}
    for element_id, element in diagram.elements.items():
        elements.setdefault(element_id, element)
    elements.pop(diagram.id, None)
    return elements


def _change_json(change: ElementChange) -> dict[str, Any]:
    body: dict[str, Any] = {
        "attributes": [{"name": a.name, "cultures": list(a.cultures)} for a in change.attributes],
        "related": list(change.related),
    }
    if change.type:
        body["typeChanged"] = True
    if change.children:
        body["childrenChanged"] = True
    if change.written_since:
        body["writtenSince"] = True
    return body


def _element_json(element: Element) -> dict[str, Any]:
    return {"id": element.id, "type": element.type,
            "name": {str(culture): value for culture, value in element.attributes.get("name", {}).items()}}


def _shape_json(shape: Shape) -> dict[str, Any]:
    return {"shapeId": shape.shape_id, "elementId": shape.element.id, "type": shape.element.type,
            "name": _element_json(shape.element)["name"]}


def _flow_json(flow: Flow) -> dict[str, str]:
    return {"sourceShapeId": flow.source, "targetShapeId": flow.target}
