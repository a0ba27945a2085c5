"""Inbound JSON → typed inputs, with every check a client can fail (400/413).

The store receives only these dataclasses, so it never guesses at the shape of a body.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

from repository.errors import InvalidInput, TooLarge

MAX_CONTENT_ITEMS = 5000
MAX_ELEMENTS_PER_UPDATE = 5000
MAX_NAME_LENGTH = 128
MAX_ID_LENGTH = 64
MAX_INTEGER = 2**63 - 1
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")

AttributeMap = dict[str, dict[int, Any]]


@dataclass(frozen=True, slots=True)
class ContentEntry:
    """One shape of a content list in an update: an existing shape or a new one."""

    shape_id: str | None
    element_id: str | None
    predecessors: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class ElementInput:
    id: str | None
    version_id: str | None
    type: str | None
    facet: str | None
    attributes: AttributeMap
    related: dict[str, list[str]] | None
    children: list[str] | None
    content: list[ContentEntry] | None


@dataclass(frozen=True, slots=True)
class ContentItem:
    """One ContentModel of a content-create body (seed section 12)."""

    index: int
    shape_id: str | None
    element_id: str | None
    type: str | None
    attributes: AttributeMap
    related: dict[str, list[str]]
    predecessors: tuple[int, ...]


def parse_update_body(body: Any) -> list[ElementInput]:
    """`{count, elements: [...]}`; count must equal the list length (CONTRACT 8)."""
    obj = _object(body, "body")
    elements = obj.get("elements")
    if not isinstance(elements, list):
        raise InvalidInput("The body needs a list under 'elements'")
    if len(elements) > MAX_ELEMENTS_PER_UPDATE:
        raise TooLarge(f"At most {MAX_ELEMENTS_PER_UPDATE} elements per update")
    count = obj.get("count")
    if count is not None and (not _is_int(count) or count != len(elements)):
        raise InvalidInput(f"'count' is {count!r} but 'elements' holds {len(elements)} items")
    return [parse_element(item, f"elements[{i}]") for i, item in enumerate(elements)]


def parse_element(raw: Any, where: str) -> ElementInput:
    obj = _object(raw, where)
    content = obj.get("content")
    return ElementInput(
        id=_optional_id(obj.get("id"), f"{where}.id"),
        version_id=_optional_id(obj.get("versionId"), f"{where}.versionId"),
        type=_optional_name(obj.get("type"), f"{where}.type"),
        facet=_optional_name(obj.get("facetName"), f"{where}.facetName"),
        attributes=parse_attributes(obj.get("attributes"), f"{where}.attributes"),
        related=None if obj.get("related") is None
        else parse_related(obj["related"], f"{where}.related"),
        children=None if obj.get("children") is None
        else _references(obj["children"], f"{where}.children"),
        content=None if content is None else _content_entries(content, f"{where}.content"),
    )


def parse_attributes(raw: Any, where: str) -> AttributeMap:
    if raw is None:
        return {}
    result: AttributeMap = {}
    for name, per_culture in _object(raw, where).items():
        _check_name(name, f"{where} name")
        cultures = _object(per_culture, f"{where}.{name}")
        result[name] = {
            _culture(key, f"{where}.{name}"): _value(value, f"{where}.{name}.{key}")
            for key, value in cultures.items()
        }
    return result


def parse_related(raw: Any, where: str) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for context, refs in _object(raw, where).items():
        _check_name(context, f"{where} context")
        result[context] = _references(refs, f"{where}.{context}")
    return result


def parse_content_body(body: Any) -> list[ContentItem]:
    """`{values: ContentModel[]}` with the index rules of CONTRACT section 6."""
    values = _object(body, "body").get("values")
    if not isinstance(values, list):
        raise InvalidInput("The body needs a list under 'values'")
    if len(values) > MAX_CONTENT_ITEMS:
        raise TooLarge(f"At most {MAX_CONTENT_ITEMS} content items per request, "
                       f"got {len(values)}")
    items = [_content_item(raw, f"values[{i}]") for i, raw in enumerate(values)]
    indices = [item.index for item in items]
    for item in items:
        if item.index < 0 or item.index >= len(items):
            raise InvalidInput(f"shapeInfo.index {item.index} is out of range 0..{len(items) - 1}")
    if len(set(indices)) != len(indices):
        duplicated = sorted({i for i in indices if indices.count(i) > 1})
        raise InvalidInput(f"shapeInfo.index duplicated: {duplicated}")
    for item in items:
        for predecessor in item.predecessors:
            if predecessor == item.index:
                raise InvalidInput(f"Item {item.index} lists itself as predecessor")
            if predecessor not in indices:
                raise InvalidInput(f"Item {item.index} has predecessor {predecessor}, "
                                   "which is not an index of this request")
    return items


def _content_item(raw: Any, where: str) -> ContentItem:
    obj = _object(raw, where)
    info = _object(obj.get("shapeInfo"), f"{where}.shapeInfo")
    raw_index = info.get("index")
    if not _is_int(raw_index):
        raise InvalidInput(f"{where}.shapeInfo.index must be an integer")
    index = raw_index
    predecessors = info.get("predecessors") or []
    if not isinstance(predecessors, list) or not all(_is_int(p) for p in predecessors):
        raise InvalidInput(f"{where}.shapeInfo.predecessors must be a list of integers")
    shape_id = _optional_id(info.get("id"), f"{where}.shapeInfo.id")
    element = obj.get("element")
    if shape_id is not None:
        if element is not None:
            raise InvalidInput(f"{where} refers to an existing shape and must carry no element")
        return ContentItem(index, shape_id, None, None, {}, {}, tuple(predecessors))
    element_obj = _object(element, f"{where}.element")
    element_id = _optional_id(element_obj.get("id"), f"{where}.element.id")
    type_key = _optional_name(element_obj.get("type"), f"{where}.element.type")
    if element_id is None and type_key is None:
        raise InvalidInput(f"{where}.element needs either an id or a type")
    return ContentItem(
        index=index,
        shape_id=None,
        element_id=element_id,
        type=type_key,
        attributes=parse_attributes(element_obj.get("attributes"), f"{where}.element.attributes"),
        related=parse_related(element_obj.get("related") or {}, f"{where}.element.related"),
        predecessors=tuple(predecessors),
    )


def _content_entries(raw: Any, where: str) -> list[ContentEntry]:
    if not isinstance(raw, list):
        raise InvalidInput(f"{where} must be a list")
    entries = []
    for i, item in enumerate(raw):
        obj = _object(item, f"{where}[{i}]")
        shape_id = _optional_id(obj.get("shapeId"), f"{where}[{i}].shapeId")
        element_id = _optional_id(obj.get("id"), f"{where}[{i}].id")
        if shape_id is None and element_id is None:
            raise InvalidInput(f"{where}[{i}] needs a shapeId (existing shape) or an id")
        predecessors = obj.get("predecessors")
        if predecessors is not None and (
            not isinstance(predecessors, list) or not all(isinstance(p, str) for p in predecessors)
        ):
            raise InvalidInput(f"{where}[{i}].predecessors must be a list of shape ids")
        entries.append(ContentEntry(shape_id, element_id,
                                    None if predecessors is None else tuple(predecessors)))
    return entries


def _references(raw: Any, where: str) -> list[str]:
    if not isinstance(raw, list):
        raise InvalidInput(f"{where} must be a list of {{id}} objects")
    ids = []
    for i, ref in enumerate(raw):
        ref_id = _optional_id(_object(ref, f"{where}[{i}]").get("id"), f"{where}[{i}].id")
        if ref_id is None:
            raise InvalidInput(f"{where}[{i}] needs an id")
        ids.append(ref_id)
    return ids


def _object(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} must be a JSON object")
    return raw


def _optional_id(raw: Any, where: str) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw or len(raw) > MAX_ID_LENGTH:
        raise InvalidInput(f"{where} must be a non-empty string of at most {MAX_ID_LENGTH} "
                           "characters")
    return raw


def _optional_name(raw: Any, where: str) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise InvalidInput(f"{where} must be a string")
    _check_name(raw, where)
    return raw


def _check_name(name: str, where: str) -> None:
    if not _NAME.match(name) or len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{where}: {name!r} is not a valid name (letters, digits, _ . -)")


def _culture(key: str, where: str) -> int:
    if not key.isdigit() or not 0 < int(key) < 100000:
        raise InvalidInput(f"{where}: culture {key!r} must be a numeric culture id such as "
                           "1031, 1033 or 127")
    return int(key)


def _value(value: Any, where: str) -> Any:
    """Attribute values: text, boolean, number, file lists, or null (removes the value)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_INTEGER:
            raise InvalidInput(f"{where}: integers must lie within ±{MAX_INTEGER}")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(f"{where}: numbers must be finite")
        return value
    if isinstance(value, list) and all(isinstance(v, (dict, str)) for v in value):
        return value
    raise InvalidInput(f"{where}: unsupported value {type(value).__name__}; use text, "
                       "boolean, number or a list of file entries")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
