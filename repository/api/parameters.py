"""Every request parameter of the service, described once: its name on the wire, its
schema and meaning. Endpoint declarations (repository/api/endpoint.py) name these objects,
the parsers in repository/api/common.py read the wire by them, and the OpenAPI document
lists each once under `components/parameters` and refers to it from every operation.

Path parameters are keyed by the Flask rule variable (the keyword an endpoint function
receives); each carries the camelCase name the document uses for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from interchange import BPMN_LAYOUT_KEYS
from renderer.contract import MAX_CULTURE_ID
from repository import catalog
from repository.serialize import RESOURCES as RESOURCE_NAMES
from repository.store.filters import (
    MAX_FILTER_COMPARISONS,
    MAX_FILTER_DEPTH,
    MAX_FILTER_LENGTH,
)

Schema = dict[str, Any]

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_PAGE = 10**9  # keeps the SQL offset inside a 64-bit integer
MAX_ID_LENGTH = 64  # element ids, in a path as in a body (repository/wire.py)
API_VERSION = "api-version"
# The text rule every query parameter, path parameter and body string is held to
# (input_rules.check_text): what XML 1.0 can carry, so no control character but tab, line
# feed and carriage return, no U+FFFE or U+FFFF. Lone surrogates, refused too, are not
# text a schema can name (UTF-8 cannot carry them: only a JSON escape can write one).
VALID_TEXT = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ufffe\\uffff]*$"
STRING: Schema = {"type": "string", "pattern": VALID_TEXT}
# What Python's str.strip() removes around each item of a comma-separated list, but for
# the control characters the text rule refuses first.
_WHITESPACE = "".join(f"\\u{ord(c):04x}" for c in map(chr, range(0x3001))
                      if c.isspace() and (c >= " " or c in "\t\n\r"))
FILTER_FORMAT = "elrepo-filter"  # the grammar of docs/service.md, "$filter"


def decimal_range_pattern(maximum: int) -> str:
    """A regular expression for the decimal numbers 1..maximum in ASCII digits without a
    leading zero (a culture id in a path or as a JSON key): the shorter numbers, then for
    each digit of `maximum` its prefix, a smaller digit and any digits after it."""
    digits = str(maximum)
    alternatives = [_digits("[1-9]", len(digits) - 2, at_most=True)] if len(digits) > 1 else []
    for position, digit in enumerate(digits):
        lowest = 1 if position == 0 else 0
        highest = int(digit) - (position < len(digits) - 1)
        if highest >= lowest:
            alternatives.append(_digits(digits[:position] + _digit_class(lowest, highest),
                                        len(digits) - position - 1))
    return "^(?:" + "|".join(alternatives) + ")$"


def _digit_class(lowest: int, highest: int) -> str:
    return str(lowest) if lowest == highest else f"[{lowest}-{highest}]"


def _digits(prefix: str, count: int, at_most: bool = False) -> str:
    """`prefix` and then `count` digits (at most `count` if `at_most`)."""
    if count == 0:
        return prefix
    quantity = f"{{0,{count}}}" if at_most else "" if count == 1 else f"{{{count}}}"
    return f"{prefix}[0-9]{quantity}"


@dataclass(frozen=True, slots=True)
class Parameter:
    key: str  # its name under #/components/parameters
    name: str  # its name on the wire
    location: str  # "path", "query" or "header"
    schema: Schema
    description: str = ""
    extra: Schema = field(default_factory=dict)  # more fields of the parameter object
    # A conditional header's own answer: (status, description); 304 has no body.
    answer: tuple[int, str] | None = field(default=None, compare=False)

    def to_openapi(self) -> Schema:
        described = {"description": self.description} if self.description else {}
        return {"name": self.name, "in": self.location, "required": self.location == "path",
                "schema": self.schema, **described, **self.extra}


def _query(name: str, schema: Schema, description: str, **extra: Any) -> Parameter:
    return Parameter(name.lstrip("$"), name, "query", schema, description, extra)


def _path(name: str, schema: Schema = STRING, key: str | None = None) -> Parameter:
    return Parameter(key or name, name, "path", schema)


def _names(names: list[str]) -> Schema:
    """Names the catalog fixes are enums, so clients (and fuzzers) can tell them."""
    return {"type": "string", "enum": names}


def api_version(version: str) -> Parameter:
    """The one api-version an operation accepts (absent: that one)."""
    return Parameter(f"{API_VERSION}-{version}", API_VERSION, "query",
                     {"type": "string", "enum": [version]})


def _name_list(names: list[str]) -> Schema:
    """A comma-separated list of these names, each with any whitespace around it, empty
    items ignored (common._list_param)."""
    item = f"[{_WHITESPACE}]*(?:{'|'.join(sorted(names))})?[{_WHITESPACE}]*"
    return {"type": "string", "pattern": f"^{item}(?:,{item})*$"}


def _page_number(maximum: int, default: int) -> Schema:
    return {"type": "integer", "minimum": 1, "maximum": maximum, "default": default}


# An element id as the store keeps it: 1..64 characters (longer ones name nothing: 404).
ELEMENT_ID: Schema = {**STRING, "minLength": 1, "maxLength": MAX_ID_LENGTH}
CULTURE_ID: Schema = {"type": "string", "pattern": decimal_range_pattern(MAX_CULTURE_ID),
                      "description": f"A culture id 1..{MAX_CULTURE_ID} in ASCII digits "
                                     "without a leading zero, such as 1031 or 1033"}

FILTER = _query("$filter", {**STRING, "format": FILTER_FORMAT, "minLength": 1,
                            "maxLength": MAX_FILTER_LENGTH},
                f"Filter expression (docs/service.md, $filter): at most "
                f"{MAX_FILTER_LENGTH:,} characters, {MAX_FILTER_COMPARISONS} comparisons and "
                f"{MAX_FILTER_DEPTH} levels of nesting")
RESOURCES = _query("$resources", _name_list(sorted(RESOURCE_NAMES)),
                   "Comma-separated: " + ", ".join(sorted(RESOURCE_NAMES)))
SELECT = _query("$select", STRING, "Attribute and related-context names to include")
EXPAND_RELATED = _query("$expandRelated", STRING,
                        "Related contexts whose elements carry attributes")
# Empty: the default (common.int_param); leading zeros are read as decimal digits.
PAGE = _query("$page", _page_number(MAX_PAGE, 1), "1-based page", allowEmptyValue=True)
PAGE_SIZE = _query("$pageSize", _page_number(MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
                   "Elements per page", allowEmptyValue=True)
PAGE_SELECTION_KEY = _query("$pageSelectionKey", STRING,
                            "Element id whose page is returned (empty: none)")
RELEASE_COMMENT_LENGTH = 2000
RELEASE_COMMENT = _query("comment", {"type": "string", "maxLength": RELEASE_COMMENT_LENGTH},
                         "A comment on a release (only with a transition into released), kept "
                         "as the released version's `releaseComment`")
CURSOR = Parameter(
    "cursor", "cursor", "query", {**STRING, "maxLength": 64},
    "The `cursor` of an earlier answer of the change feed: the events after it (absent or "
    "empty: from the oldest event kept)", {"allowEmptyValue": True},
    answer=(410, "Retention removed events after this cursor; start again without one"))
IGNORE_WARNINGS = _query("ignoreWarnings",
                         {"type": "string", "pattern": "^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$"},
                         "Ignore validation warnings: true or false, in any case")

# The query parameters of a listing, and of a read that shapes its elements.
SHAPING = (FILTER, RESOURCES, SELECT, EXPAND_RELATED)
PAGING = (*SHAPING, PAGE, PAGE_SIZE)

# RFC 9110 entity tags as common.if_match reads them.
_ENTITY_TAG = '(?:W/)?"[\\x21\\x23-\\x7e]*"'
_ENTITY_TAGS = f"{_ENTITY_TAG}(?:[ \\t]*,[ \\t]*{_ENTITY_TAG})*"
IF_MATCH = Parameter(
    "If-Match", "If-Match", "header",
    {"type": "string", "pattern": f"^[ \\t]*(?:\\*|{_ENTITY_TAGS})[ \\t]*$"},
    "`*` or ETags from the element's GET (update: with a body of exactly one existing "
    "element): write only if one is still its current revision",
    answer=(412, "If-Match names no current revision of the element; nothing was written"))
IF_NONE_MATCH = Parameter(
    "If-None-Match", "If-None-Match", "header", STRING,
    "`*` or ETags of answers (pictures, listing pages) the client holds",
    answer=(304, "If-None-Match names the current ETag; empty body"))

IDEMPOTENCY_KEY = Parameter(
    "Idempotency-Key", "Idempotency-Key", "header",
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
    "A key of the client's for this create (visible ASCII, no spaces): a retry with the same key "
    "within 24 h answers the first answer (header `Idempotent-Replayed: true`), nothing "
    "written again",
    answer=(422, "The Idempotency-Key was sent before with another request"))

PATH: dict[str, Parameter] = {
    "collection_id": _path("collectionId"),
    "storage_id": _path("storageId"),
    "facet": _path("facetId", _names(list(catalog.FACETS))),
    "view": _path("viewId", _names(sorted({v for f in catalog.FACETS.values()
                                            for v in f.views}))),
    "element_id": _path("elementId", ELEMENT_ID),
    "attribute_id": _path("attributeId"),
    "related_id": _path("relatedId"),
    "type_key": _path("type"),
    "diagram_id": _path("diagramId", ELEMENT_ID),
    "from_version_id": _path("fromVersionId", ELEMENT_ID),
    "to_version_id": _path("toVersionId", ELEMENT_ID),
    "culture_id": _path("cultureId", CULTURE_ID),
    "layout_key": _path("layoutKey", _names(list(catalog.LAYOUT_KEYS))),
    "bpmn_layout_key": _path("layoutKey", _names(list(BPMN_LAYOUT_KEYS)), "bpmnLayoutKey"),
    "transition_id": _path("transitionId"),
    "pool": _path("pool"),
    "webhook_id": _path("webhookId"),
}
