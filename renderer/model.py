"""The diagram as the renderer reads it: a content-create body plus referenced elements.

``parse_diagram`` is the only reader of the fixture format (docs/contract.md, "Diagram
fixture format") and of predecessor indices, which it checks with the render contract
(renderer/contract.py); everything after it works with shapes and shape ids. Every
problem with the input becomes a ``RenderInputError`` whose message is one line a user
can act on.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from renderer.contract import (
    MAX_SHAPES,
    RenderInputError,
    check_element_reference,
    check_shape_links,
    culture_id,
    shape_links,
)
from renderer.culture import LANGUAGE_NEUTRAL, Cultures
from renderer.kinds import KINDS

#: Element types of the seed (``Kind.drawable``); anything else is rejected.
KNOWN_TYPES = frozenset(kind.key for kind in KINDS.values() if kind.drawable)

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Element:
    id: str
    type: str
    facet: str = ""
    #: name → culture id → value, cultures in ascending order
    attributes: Mapping[str, Mapping[int, Any]] = field(default_factory=dict)
    related: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    children: tuple[str, ...] = ()

    def text(self, attribute: str, cultures: Cultures) -> str:
        """A localized text attribute in the culture `cultures` picks (with no value in
        any of its cultures, the lowest culture id's); control characters become spaces
        so no text can break the drawing."""
        value = cultures.pick(self.attributes.get(attribute) or {})
        return "" if value is None else " ".join(_CONTROL.sub(" ", str(value)).split())

    def text_culture(self, attribute: str, cultures: Cultures) -> int:
        """The culture `text` shows `attribute` in: the requested one when it has no
        value, and the render's language for a language-neutral value."""
        culture = cultures.source(self.attributes.get(attribute) or {})
        return cultures.requested if culture in (None, LANGUAGE_NEUTRAL) else culture


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
    shapes = [_shape(item, f"values[{position}]", elements) for position, item in enumerate(items)]
    check_shape_links([(shape.index, shape.predecessors) for shape in shapes])
    _check_shape_ids(shapes)
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
        attributes={name: _by_culture(values, f"{where}.attributes.{name}") for name, values in attributes.items()},
        related=_references_by_context(raw.get("related"), where),
        children=tuple(_reference_ids(raw.get("children"), where)),
    )


def _by_culture(values: Mapping[Any, Any], where: str) -> dict[int, Any]:
    """Culture keys as ids, in ascending order (the order `Cultures.pick` falls back in)."""
    by_id = {culture_id(key, where): value for key, value in values.items()}
    return {culture: by_id[culture] for culture in sorted(by_id)}


def _references_by_context(raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    """Contexts in name order, as the store answers them: a JSON object's key order means
    nothing (the render cache's key ignores it), so it must not change the picture."""
    if raw in (None, {}):
        return {}
    if not isinstance(raw, Mapping):
        raise RenderInputError(f"{where}: related must map context names to lists of {{id}}")
    by_context = {str(context): tuple(_reference_ids(refs, where)) for context, refs in raw.items()}
    return {context: by_context[context] for context in sorted(by_context)}


def _reference_ids(raw: Any, where: str) -> list[str]:
    if raw in (None, []):
        return []
    if not isinstance(raw, list) or not all(isinstance(r, Mapping) and isinstance(r.get("id"), str) for r in raw):
        raise RenderInputError(f"{where}: references must be a list of {{\"id\": ...}} objects")
    return [r["id"] for r in raw]


def _shape(item: Any, where: str, elements: Mapping[str, Element]) -> Shape:
    if not isinstance(item, Mapping) or not isinstance(item.get("shapeInfo"), Mapping):
        raise RenderInputError(f"{where}: each item needs a 'shapeInfo' object")
    info = item["shapeInfo"]
    index, links = shape_links(info, where)
    predecessors = tuple(dict.fromkeys(links))  # a link given twice is drawn once
    shape_id = info.get("id")
    if shape_id is not None and (not isinstance(shape_id, str) or not shape_id):
        raise RenderInputError(f"{where}.shapeInfo.id must be a non-empty string")
    shape_id = shape_id or f"shape-{index}"
    raw_element = item.get("element")
    if not isinstance(raw_element, Mapping):
        raise RenderInputError(f"{where}.element must be an object")
    referenced = raw_element.get("id")
    check_element_reference(referenced, raw_element.get("type"), where)
    if "type" not in raw_element:
        element = elements.get(referenced) if isinstance(referenced, str) else None
        if element is None:
            raise RenderInputError(f"{where}: element {referenced!r} is not among the diagram's elements")
        return Shape(shape_id, index, element, predecessors)
    return Shape(shape_id, index, _element({**raw_element, "id": referenced or shape_id}, where), predecessors)


def _check_shape_ids(shapes: list[Shape]) -> None:
    ids: set[str] = set()
    for position, shape in enumerate(shapes):
        if shape.shape_id in ids:
            raise RenderInputError(f"values[{position}]: shape id {shape.shape_id!r} appears twice")
        ids.add(shape.shape_id)
