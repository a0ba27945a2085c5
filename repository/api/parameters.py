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

from repository import catalog

Schema = dict[str, Any]

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_PAGE = 10**9  # keeps the SQL offset inside a 64-bit integer
STRING: Schema = {"type": "string"}
API_VERSION = "api-version"


@dataclass(frozen=True, slots=True)
class Parameter:
    key: str  # its name under #/components/parameters
    name: str  # its name on the wire
    location: str  # "path", "query" or "header"
    schema: Schema
    description: str = ""
    # A conditional header's own answer: (status, description); 304 has no body.
    answer: tuple[int, str] | None = field(default=None, compare=False)

    def to_openapi(self) -> Schema:
        described = {"description": self.description} if self.description else {}
        return {"name": self.name, "in": self.location, "required": self.location == "path",
                "schema": self.schema, **described}


def _query(name: str, schema: Schema, description: str) -> Parameter:
    return Parameter(name.lstrip("$"), name, "query", schema, description)


def _path(name: str, enum: list[str] | None = None) -> Parameter:
    """Names the catalog fixes are enums, so clients (and fuzzers) can tell them."""
    schema = {"type": "string", "enum": enum} if enum is not None else STRING
    return Parameter(name, name, "path", schema)


def api_version(version: str) -> Parameter:
    """The one api-version an operation accepts (absent: that one)."""
    return Parameter(f"{API_VERSION}-{version}", API_VERSION, "query",
                     {"type": "string", "enum": [version]})


FILTER = _query("$filter", STRING, "Filter expression (docs/service.md, $filter)")
RESOURCES = _query("$resources", STRING, "attributes,related,children,content,displayNames,"
                                         "rootPath,stereotype")
SELECT = _query("$select", STRING, "Attribute and related-context names to include")
EXPAND_RELATED = _query("$expandRelated", STRING,
                        "Related contexts whose elements carry attributes")
PAGE = _query("$page", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
              "1-based page")
PAGE_SIZE = _query("$pageSize", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE,
                                 "default": DEFAULT_PAGE_SIZE}, "Elements per page")
PAGE_SELECTION_KEY = _query("$pageSelectionKey", STRING, "Element id whose page is returned")
IGNORE_WARNINGS = _query("ignoreWarnings", {"type": "boolean"}, "Ignore validation warnings")

# The query parameters of a listing, and of a read that shapes its elements.
SHAPING = (FILTER, RESOURCES, SELECT, EXPAND_RELATED)
PAGING = (*SHAPING, PAGE, PAGE_SIZE)

IF_MATCH = Parameter(
    "If-Match", "If-Match", "header", STRING,
    "`*` or ETags from the element's GET (update: with a body of exactly one existing "
    "element): write only if one is still its current revision",
    answer=(412, "If-Match names no current revision of the element; nothing was written"))
IF_NONE_MATCH = Parameter(
    "If-None-Match", "If-None-Match", "header", STRING,
    "`*` or ETags of answers (pictures, listing pages) the client holds",
    answer=(304, "If-None-Match names the current ETag; empty body"))

IDEMPOTENCY_KEY = Parameter(
    "Idempotency-Key", "Idempotency-Key", "header",
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]([ -~]*[!-~])?$"},
    "A key of the client's for this create (visible ASCII): a retry with the same key "
    "within 24 h answers the first answer (header `Idempotent-Replayed: true`), nothing "
    "written again",
    answer=(422, "The Idempotency-Key was sent before with another request"))

PATH: dict[str, Parameter] = {
    "collection_id": _path("collectionId"),
    "storage_id": _path("storageId"),
    "facet": _path("facetId", list(catalog.FACETS)),
    "view": _path("viewId", sorted({v for f in catalog.FACETS.values() for v in f.views})),
    "element_id": _path("elementId"),
    "attribute_id": _path("attributeId"),
    "related_id": _path("relatedId"),
    "type_key": _path("type"),
    "diagram_id": _path("diagramId"),
    "culture_id": _path("cultureId"),
    "layout_key": _path("layoutKey", list(catalog.LAYOUT_KEYS)),
    "transition_id": _path("transitionId"),
    "pool": _path("pool"),
}
