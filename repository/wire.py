"""Inbound text and JSON → typed inputs, with every check a client can fail (400/413).

The input rules (docs/contract.md, "Limits and robustness") live here, once: text is
valid Unicode (no NUL, no lone surrogates), integers lie within 64-bit range and other
numbers are finite, attribute values and predecessor links are bounded. The rules of the
content itself (indices, predecessors, element references, culture ids) are the
renderer's (renderer/contract.py): this module calls them, so the service refuses
exactly what the renderer could not draw, with the renderer's message.
`load_json` applies them to a whole body, `check_text` to any other text a request
carries; the store receives only the dataclasses below, so it never guesses at the shape
of a body, and SQLite and PostgreSQL never see text one of them would refuse.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn, TypeGuard

from renderer.contract import (
    MAX_SHAPES,
    RenderInputError,
    check_element_reference,
    check_shape_links,
    culture_id,
    shape_links,
)
from repository.errors import InvalidInput, TooLarge

MAX_CONTENT_ITEMS = MAX_SHAPES
MAX_ELEMENTS_PER_UPDATE = 5000
MAX_NAME_LENGTH = 128
MAX_ID_LENGTH = 64
MIN_INTEGER = -(2**63)
MAX_INTEGER = 2**63 - 1
# Characters of one attribute value in one culture (a file list: all its text together).
MAX_ATTRIBUTE_VALUE_LENGTH = 100_000
MAX_PREDECESSOR_LINKS = 20_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
# NUL, which PostgreSQL cannot store in text, and lone surrogates, which no encoding can.
_INVALID_TEXT = re.compile("[\x00\ud800-\udfff]")
_INTEGER = re.compile(r"-?[0-9]+")
# A body breaking a rule holds one of these in its raw text: NUL and lone surrogates can
# only be written as escapes, an integer out of range has 19 digits or more, a number too
# large for a double has them or a three-digit exponent. Only bodies holding one (rarely,
# by chance) pay for the exact walk, several times slower than parsing. Digits are
# folded to 0 first: bytes.translate and `in` are much faster than a regular expression.
_RULE_BREAKING_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
_FOLD_NUMBERS = bytes.maketrans(b"123456789E-", b"000000000e+")
_RULE_BREAKING_NUMBERS = (b"0" * 19, b"e000", b"e+000")
_SHOWN_INPUT = 40  # characters of a refused input echoed in its message

AttributeMap = dict[str, dict[int, Any]]


def load_json(raw: bytes) -> Any:
    """A request body as JSON, every number and every string in it (keys included, at any
    depth) held to the input rules; 400 otherwise."""
    try:
        text = raw.decode("utf-8-sig")  # RFC 8259: UTF-8, a byte order mark tolerated
        document = json.loads(text, parse_constant=_json_constant)
    except RecursionError:
        raise InvalidInput("The body is nested too deeply") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        where = f" at line {error.lineno} column {error.colno}" if isinstance(
            error, json.JSONDecodeError) else ""
        raise InvalidInput(f"The body is not valid JSON{where}") from None
    except ValueError:  # int() refuses more than 4,300 digits
        raise _out_of_range("body") from None
    if _may_break_a_rule(raw):
        _check_json(document)
    return document


def _may_break_a_rule(raw: bytes) -> bool:
    folded = raw.translate(_FOLD_NUMBERS)
    return (_RULE_BREAKING_ESCAPE.search(raw) is not None
            or any(pattern in folded for pattern in _RULE_BREAKING_NUMBERS))


def check_text(text: str, where: str) -> None:
    """Text must be valid Unicode: NUL and lone surrogates are refused (400) before any
    database sees them, so every database answers alike."""
    if _INVALID_TEXT.search(text):
        raise InvalidInput(f"{where}: text must be valid Unicode without NUL or lone "
                           "surrogate characters")


def parse_integer(text: str, where: str) -> int:
    """A decimal integer in ASCII digits within 64-bit range, or 400."""
    if not _INTEGER.fullmatch(text):
        raise InvalidInput(f"{where} must be an integer, got {_shown(text)}")
    digits = text.lstrip("-").lstrip("0")
    # Length first: int() refuses very long digit strings with a ValueError of its own.
    if len(digits) > len(str(MAX_INTEGER)) or not MIN_INTEGER <= int(text) <= MAX_INTEGER:
        raise _out_of_range(where)
    return int(text)


def parse_finite(text: str, where: str) -> float:
    """A decimal number that is a finite double, or 400."""
    value = float(text)
    if not math.isfinite(value):
        raise _not_finite(where)
    return value


def parse_culture_id(text: str, where: str) -> int:
    """A culture id as text (an attribute key, a path or `$filter` segment): ASCII digits
    without a leading zero, 1..MAX_CULTURE_ID (it fits the 32-bit integer column that
    stores it on every database); 400 naming `where` otherwise."""
    with _render_contract():
        return culture_id(text, where)


@contextmanager
def _render_contract() -> Iterator[None]:
    """The renderer's refusal of content it could not draw, as a 400 with its message."""
    try:
        yield
    except RenderInputError as error:
        raise InvalidInput(str(error)) from None


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
            parse_culture_id(key, f"{where}.{name}"):
                _value(value, f"{where}.{name}.{key}")
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
    """`{values: ContentModel[]}` with the index rules of docs/contract.md, "Diagrams"."""
    values = _object(body, "body").get("values")
    if not isinstance(values, list):
        raise InvalidInput("The body needs a list under 'values'")
    if len(values) > MAX_CONTENT_ITEMS:
        raise TooLarge(f"At most {MAX_CONTENT_ITEMS} content items per request, "
                       f"got {len(values)}")
    items = [_content_item(raw, f"values[{i}]") for i, raw in enumerate(values)]
    check_link_count(sum(len(item.predecessors) for item in items), "this request")
    with _render_contract():
        check_shape_links([(item.index, item.predecessors) for item in items])
    return items


def _content_item(raw: Any, where: str) -> ContentItem:
    obj = _object(raw, where)
    info = _object(obj.get("shapeInfo"), f"{where}.shapeInfo")
    with _render_contract():
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
    with _render_contract():
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
    if not _NAME.match(name) or len(name) > MAX_NAME_LENGTH:
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


# A place in a JSON document as a linked list (parent, key or index): cheap to extend
# for every node, spelled out only for a refusal.
_Place = tuple["_Place", str | int] | None


def _check_json(document: Any) -> None:
    """The input rules on every string, key and number of a parsed body, without
    recursion; the message names the first offender's place."""
    if not isinstance(document, (dict, list)):
        _check_scalar(document, None)
        return
    pending: list[tuple[dict[str, Any] | list[Any], _Place]] = [(document, None)]
    while pending:
        container, place = pending.pop()
        entries = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in entries:
            if isinstance(key, str) and _INVALID_TEXT.search(key):
                check_text(key, f"a key in {_where(place)}")
            if isinstance(value, (dict, list)):
                pending.append((value, (place, key)))
            elif value is not None and not isinstance(value, bool):
                _check_scalar(value, (place, key))


def _check_scalar(value: str | int | float | None, place: _Place) -> None:
    if isinstance(value, str):
        if _INVALID_TEXT.search(value):
            check_text(value, _where(place))
    elif isinstance(value, int):
        if not MIN_INTEGER <= value <= MAX_INTEGER:
            raise _out_of_range(_where(place))
    elif isinstance(value, float) and not math.isfinite(value):
        raise _not_finite(_where(place))


def _where(place: _Place) -> str:
    """`body.elements[0].attributes.name.1033`; a key that is no plain name is quoted."""
    steps: list[str] = []
    while place is not None:
        place, step = place
        if isinstance(step, int):
            steps.append(f"[{step}]")
        elif _NAME.match(step) or (step.isascii() and step.isdigit()):
            steps.append(f".{step[:_SHOWN_INPUT]}")
        else:
            steps.append(f"[{_shown(step)}]")
    return "body" + "".join(reversed(steps))


def _json_constant(text: str) -> NoReturn:
    """NaN and Infinity, which Python's parser accepts and JSON does not have."""
    raise _not_finite("body")


def _out_of_range(where: str) -> InvalidInput:
    return InvalidInput(f"{where}: integers must lie within {MIN_INTEGER}..{MAX_INTEGER}")


def _not_finite(where: str) -> InvalidInput:
    return InvalidInput(f"{where}: numbers must be finite")


def _shown(text: str) -> str:
    """A refused input as its message shows it: quoted, cut short, escapes visible."""
    if len(text) > _SHOWN_INPUT:
        return repr(text[:_SHOWN_INPUT]) + f"... ({len(text):,} characters)"
    return repr(text)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
