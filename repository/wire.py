"""Inbound JSON bodies → typed inputs, with every check of their shape a client can fail
(400/413): attribute values and predecessor links are bounded, and so is what one
request writes (values, related links, file list entries, shapes; `check_request_limits`),
ids and names are plain; related links are de-duplicated. `parse_document` holds a body
built in process (`elrepo import`) to the same rules.
The rules on every text and number are `repository.input_rules`'s (applied to a whole
body by its `load_json`); the rules of the content itself (indices, predecessors,
element references) are the renderer's (renderer/contract.py): this module calls them,
so the service refuses exactly what the renderer could not draw, with the renderer's
message. The store receives only the dataclasses below, so it never guesses at the
shape of a body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, TypeVar

from renderer.contract import MAX_SHAPES, check_element_reference, check_shape_links, shape_links
from repository.errors import InvalidInput, TooLarge
from repository.input_rules import PLAIN_NAME, load_json, parse_culture_id, render_contract

MAX_CONTENT_ITEMS = MAX_SHAPES
MAX_ELEMENTS_PER_UPDATE = 5000
MAX_NAME_LENGTH = 128
MAX_ID_LENGTH = 64
# Characters of one attribute value in one culture (a file list: all its text together).
MAX_ATTRIBUTE_VALUE_LENGTH = 100_000
MAX_PREDECESSOR_LINKS = 20_000
# What one request writes, counted over all its elements (docs/reliability.md, "Request
# limits and Idempotency-Key (issue 18)"): attribute values (a row each, per culture;
# five per element of a full update) and related links keep the longest write's lock
# well under SQLite's 5 s busy timeout even on a loaded machine (with 5,000 new shapes).
MAX_VALUES_PER_REQUEST = 25_000
MAX_RELATED_PER_ELEMENT = 5_000
MAX_RELATED_PER_REQUEST = 10_000
# Entries of list values (file lists; an import's kept flows): each is decoded on every
# read, whatever its text (a million `{}` hold none).
MAX_LIST_ENTRIES_PER_ELEMENT = 5_000
MAX_LIST_ENTRIES_PER_REQUEST = 50_000
AttributeMap = dict[str, dict[int, Any]]
Parsed = TypeVar("Parsed")


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
    """One ContentModel of a content-create body (docs/contract.md, "Diagrams")."""

    index: int
    shape_id: str | None
    element_id: str | None
    type: str | None
    attributes: AttributeMap
    related: dict[str, list[str]]
    predecessors: tuple[int, ...]


def parse_document(parse: Callable[[Any], Parsed], document: Any) -> Parsed:
    """A body built in process (an imported file's elements, a diagram's content) held to
    exactly the rules of a request's body: its JSON text through `load_json`, as the
    request's bytes, then `parse` (`parse_update_body`, `parse_content_body`)."""
    return parse(load_json(json.dumps(document).encode()))


class WrittenElement(Protocol):
    """What the request limits count of an element a request writes (an update's
    `ElementInput`, a content item's new element)."""

    @property
    def attributes(self) -> AttributeMap: ...

    @property
    def related(self) -> Mapping[str, list[str]] | None: ...


def parse_update_body(body: Any) -> list[ElementInput]:
    """`{count, elements: [...]}`; count must equal the list length (docs/contract.md,
    "Details clients rely on")."""
    obj = _object(body, "body")
    elements = obj.get("elements")
    if not isinstance(elements, list):
        raise InvalidInput("The body needs a list under 'elements'")
    if len(elements) > MAX_ELEMENTS_PER_UPDATE:
        raise TooLarge(f"At most {MAX_ELEMENTS_PER_UPDATE} elements per update")
    count = obj.get("count")
    if count is not None and (not _is_int(count) or count != len(elements)):
        raise InvalidInput(f"'count' is {count!r} but 'elements' holds {len(elements)} items")
    inputs = [parse_element(item, f"elements[{i}]") for i, item in enumerate(elements)]
    check_request_limits([(f"elements[{i}]", data) for i, data in enumerate(inputs)])
    shapes = sum(len(data.content or ()) for data in inputs)
    if shapes > MAX_CONTENT_ITEMS:
        raise TooLarge(f"At most {MAX_CONTENT_ITEMS:,} content shapes per request, as in "
                       f"content create; this update lists {shapes:,}")
    check_link_count(sum(len(entry.predecessors or ()) for data in inputs
                         for entry in data.content or ()), "this request")
    return inputs


def check_request_limits(elements: Sequence[tuple[str, WrittenElement]]) -> None:
    """The limits on what one request (an update, a content create, an imported file)
    writes: related links and list entries per element, and attribute values, related
    links and list entries over all its elements; 413 naming the first one broken."""
    values = related = entries = 0
    for where, element in elements:
        links = sum(len(targets) for targets in (element.related or {}).values())
        if links > MAX_RELATED_PER_ELEMENT:
            raise TooLarge(f"{where}.related: an element holds at most "
                           f"{MAX_RELATED_PER_ELEMENT:,} related links, got {links:,}")
        listed = sum(len(value) for per_culture in element.attributes.values()
                     for value in per_culture.values() if isinstance(value, list))
        if listed > MAX_LIST_ENTRIES_PER_ELEMENT:
            raise TooLarge(f"{where}.attributes: an element's list values (file lists) hold "
                           f"at most {MAX_LIST_ENTRIES_PER_ELEMENT:,} entries together, got "
                           f"{listed:,}")
        values += sum(len(per_culture) for per_culture in element.attributes.values())
        related += links
        entries += listed
    for count, limit, what in (
            (values, MAX_VALUES_PER_REQUEST, "attribute values (one per culture)"),
            (related, MAX_RELATED_PER_REQUEST, "related links"),
            (entries, MAX_LIST_ENTRIES_PER_REQUEST, "file list entries")):
        if count > limit:
            raise TooLarge(f"A request writes at most {limit:,} {what}; this one has "
                           f"{count:,}")


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
            parse_culture_id(key, f"{where}.{name}"):
                _value(value, f"{where}.{name}.{key}")
            for key, value in cultures.items()
        }
    return result


def parse_related(raw: Any, where: str) -> dict[str, list[str]]:
    """Related links by context; a target listed again in its context is one link (the
    first place kept): a link is a fact, not a count."""
    result: dict[str, list[str]] = {}
    for context, refs in _object(raw, where).items():
        _check_name(context, f"{where} context")
        result[context] = list(dict.fromkeys(_references(refs, f"{where}.{context}")))
    return result


def parse_content_body(body: Any) -> list[ContentItem]:
    """`{values: ContentModel[]}` with the index rules of docs/contract.md, "Diagrams"."""
    values = _object(body, "body").get("values")
    if not isinstance(values, list):
        raise InvalidInput("The body needs a list under 'values'")
    if len(values) > MAX_CONTENT_ITEMS:
        raise TooLarge(f"At most {MAX_CONTENT_ITEMS} content items per request, "
                       f"got {len(values)}")
    items = [_content_item(raw, f"values[{i}]") for i, raw in enumerate(values)]
    check_request_limits([(f"values[{i}].element", item) for i, item in enumerate(items)])
    check_link_count(sum(len(item.predecessors) for item in items), "this request")
    with render_contract():
        check_shape_links([(item.index, item.predecessors) for item in items])
    return items


def _content_item(raw: Any, where: str) -> ContentItem:
    obj = _object(raw, where)
    info = _object(obj.get("shapeInfo"), f"{where}.shapeInfo")
    with render_contract():
        index, predecessors = shape_links(info, where)
    shape_id = _optional_id(info.get("id"), f"{where}.shapeInfo.id")
    element = obj.get("element")
    if shape_id is not None:
        if element is not None:
            raise InvalidInput(f"{where} refers to an existing shape and must carry no element")
        return ContentItem(index, shape_id, None, None, {}, {}, predecessors)
    element_obj = _object(element, f"{where}.element")
    element_id = _optional_id(element_obj.get("id"), f"{where}.element.id")
    type_key = _optional_name(element_obj.get("type"), f"{where}.element.type")
    with render_contract():
        check_element_reference(element_id, type_key, where)
    return ContentItem(
        index=index,
        shape_id=None,
        element_id=element_id,
        type=type_key,
        attributes=parse_attributes(element_obj.get("attributes"), f"{where}.element.attributes"),
        related=parse_related(element_obj.get("related") or {}, f"{where}.element.related"),
        predecessors=predecessors,
    )


def _content_entries(raw: Any, where: str) -> list[ContentEntry]:
    if not isinstance(raw, list):
        raise InvalidInput(f"{where} must be a list")
    if len(raw) > MAX_CONTENT_ITEMS:
        raise TooLarge(f"{where}: a diagram holds at most {MAX_CONTENT_ITEMS:,} shapes, as "
                       f"in content create; got {len(raw):,}")
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
    check_link_count(sum(len(entry.predecessors or ()) for entry in entries), where)
    return entries


def check_link_count(links: int, where: str) -> None:
    if links > MAX_PREDECESSOR_LINKS:
        raise TooLarge(f"A diagram holds at most {MAX_PREDECESSOR_LINKS:,} predecessor "
                       f"links; {where} has {links:,}")


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
    if not PLAIN_NAME.match(name) or len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(f"{where}: {name!r} is not a valid name (letters, digits, _ . -)")


def _value(value: Any, where: str) -> Any:
    """Attribute values: text, boolean, number, file lists, or null (removes the value).
    Numbers were held to their range by `load_json`."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, (dict, str)) for v in value)):
        length = _text_length(value)
        if length > MAX_ATTRIBUTE_VALUE_LENGTH:
            raise TooLarge(f"{where}: an attribute value holds at most "
                           f"{MAX_ATTRIBUTE_VALUE_LENGTH:,} characters, got {length:,}")
        return value
    raise InvalidInput(f"{where}: unsupported value {type(value).__name__}; use text, "
                       "boolean, number or a list of file entries")


def _text_length(value: Any) -> int:
    """Characters of all the text in a JSON value, keys included."""
    length = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            length += len(item)
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
    return length


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
