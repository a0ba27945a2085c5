"""The diagram as the renderer reads it: a content-create body plus referenced elements.

``parse_diagram`` is the only reader of the fixture format (docs/contract.md, "Diagram
fixture format") and of predecessor indices; everything after it works with shapes and
shape ids. Every problem with the input becomes a ``RenderInputError`` whose message is
one line a user can act on.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Element types of the seed; anything else is rejected.
KNOWN_TYPES = frozenset((
    "processHouse subCategory view mainProcess subProcess task ruleXor ruleAnd condition "
    "evStart evIntermediate evEnd processInterfacePlaceholder product user orgUnit inOut "
    "knowledgeStructureDocument requirement system systemType authToken configCulture "
    "userGroup"
).split())

LANGUAGE_NEUTRAL = "127"
DEFAULT_CULTURE = "1033"
MAX_SHAPES = 5000
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class RenderInputError(ValueError):
    """The diagram or the request cannot be rendered; the message is user-facing."""


class UnknownLayoutError(RenderInputError):
    """The layout key is not one the engine draws."""


@dataclass(frozen=True, slots=True)
class Element:
    id: str
    type: str
    facet: str = ""
    attributes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    related: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    children: tuple[str, ...] = ()

    def text(self, attribute: str, culture: str) -> str:
        """A localized text attribute with the contract's fallback: requested culture,
        language-neutral, default culture, then any value; control characters become
        spaces so no text can break the drawing."""
        values = self.attributes.get(attribute) or {}
        for key in (culture, LANGUAGE_NEUTRAL, DEFAULT_CULTURE, *sorted(values)):
            value = values.get(key)
            if value not in (None, ""):
                return " ".join(_CONTROL.sub(" ", str(value)).split())
        return ""


@dataclass(frozen=True, slots=True)
class Shape:
    shape_id: str
    index: int
    element: Element
    predecessors: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Diagram:
    element: Element
    shapes: tuple[Shape, ...]
    elements: Mapping[str, Element]

    @property
    def id(self) -> str:
        return self.element.id

    def shape_at(self, index: int) -> Shape:
        for shape in self.shapes:
            if shape.index == index:
                return shape
        raise KeyError(index)

    def lookup(self, element_id: str) -> Element | None:
        return self.elements.get(element_id)


def parse_diagram(data: Any) -> Diagram:
    if not isinstance(data, Mapping):
        raise RenderInputError("a diagram must be a JSON object with 'diagram' and 'values'")
    elements = {e.id: e for e in (_element(raw, "elements") for raw in _list(data, "elements"))}
    diagram_raw = data.get("diagram") or {}
    if not isinstance(diagram_raw, Mapping):
        raise RenderInputError("'diagram' must be an object")
    diagram = _element({"type": "mainProcess", **diagram_raw, "id": str(diagram_raw.get("id") or "diagram")}, "diagram")
    items = _list(data, "values")
    if len(items) > MAX_SHAPES:
        raise RenderInputError(f"a diagram holds at most {MAX_SHAPES} shapes, this one {len(items)}")
    shapes = [_shape(item, position, elements) for position, item in enumerate(items)]
    _check_indices(shapes)
    return Diagram(diagram, tuple(shapes), elements)


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise RenderInputError(f"'{key}' must be a list")
    return value


def _element(raw: Any, where: str) -> Element:
    if not isinstance(raw, Mapping):
        raise RenderInputError(f"{where}: an element must be an object")
    element_type = raw.get("type")
    if element_type not in KNOWN_TYPES:
        raise RenderInputError(f"{where}: unknown element type {element_type!r}")
    element_id = raw.get("id")
    if not isinstance(element_id, str) or not element_id:
        raise RenderInputError(f"{where}: element without an id")
    attributes = raw.get("attributes") or {}
    if not isinstance(attributes, Mapping) or not all(isinstance(v, Mapping) for v in attributes.values()):
        raise RenderInputError(f"{where}: attributes must map names to {{culture: value}}")
    return Element(
        id=element_id, type=element_type, facet=str(raw.get("facetName") or ""),
        attributes={name: {str(c): v for c, v in values.items()} for name, values in attributes.items()},
        related=_references_by_context(raw.get("related"), where),
        children=tuple(_reference_ids(raw.get("children"), where)),
    )


def _references_by_context(raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    if raw in (None, {}):
        return {}
    if not isinstance(raw, Mapping):
        raise RenderInputError(f"{where}: related must map context names to lists of {{id}}")
    return {str(context): tuple(_reference_ids(refs, where)) for context, refs in raw.items()}


def _reference_ids(raw: Any, where: str) -> list[str]:
    if raw in (None, []):
        return []
    if not isinstance(raw, list) or not all(isinstance(r, Mapping) and isinstance(r.get("id"), str) for r in raw):
        raise RenderInputError(f"{where}: references must be a list of {{\"id\": ...}} objects")
    return [r["id"] for r in raw]


def _shape(item: Any, position: int, elements: Mapping[str, Element]) -> Shape:
    where = f"values[{position}]"
    if not isinstance(item, Mapping) or not isinstance(item.get("shapeInfo"), Mapping):
        raise RenderInputError(f"{where}: each item needs a 'shapeInfo' object")
    info = item["shapeInfo"]
    index = info.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise RenderInputError(f"{where}: shapeInfo.index must be an integer")
    predecessors = info.get("predecessors") or []
    if not isinstance(predecessors, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in predecessors):
        raise RenderInputError(f"{where}: shapeInfo.predecessors must be a list of integers")
    shape_id = info.get("id")
    if shape_id is not None and (not isinstance(shape_id, str) or not shape_id):
        raise RenderInputError(f"{where}: shapeInfo.id must be a non-empty string")
    raw_element = item.get("element") or {}
    if not isinstance(raw_element, Mapping):
        raise RenderInputError(f"{where}: 'element' must be an object")
    shape_id = shape_id or f"shape-{index}"
    referenced = raw_element.get("id")
    if referenced and "type" not in raw_element:
        if referenced not in elements:
            raise RenderInputError(f"{where}: element {referenced!r} is not among the diagram's elements")
        element = elements[referenced]
    else:
        element = _element({**raw_element, "id": referenced or shape_id}, where)
    return Shape(shape_id, index, element, tuple(dict.fromkeys(predecessors)))


def _check_indices(shapes: list[Shape]) -> None:
    seen: set[int] = set()
    ids: set[str] = set()
    for shape in shapes:
        if shape.index in seen:
            raise RenderInputError(f"shape index {shape.index} appears twice")
        if shape.shape_id in ids:
            raise RenderInputError(f"shape id {shape.shape_id!r} appears twice")
        seen.add(shape.index)
        ids.add(shape.shape_id)
    for shape in shapes:
        for predecessor in shape.predecessors:
            if predecessor == shape.index:
                raise RenderInputError(f"shape {shape.index} names itself as its predecessor")
            if predecessor not in seen:
                raise RenderInputError(f"shape {shape.index}: predecessor index {predecessor} is out of range")
