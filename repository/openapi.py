"""The OpenAPI 3.0 document of the service, built from small helpers so each endpoint
reads as one line of path, method, api-version and response schema. A test validates
real responses against it (tests/repository/test_openapi.py)."""

from __future__ import annotations

from functools import cache
from typing import Any

from repository import catalog, wire
from repository.api.common import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from repository.api.render import SECURITY_HEADERS
from repository.app import MAX_BODY_BYTES
from repository.server import MAX_HEADER_BYTES, MAX_HEADER_FIELD, MAX_REQUEST_LINE

Schema = dict[str, Any]

_REF = "#/components/schemas/"


def _ref(name: str) -> Schema:
    return {"$ref": _REF + name}


def _map_of(schema: Schema) -> Schema:
    return {"type": "object", "additionalProperties": schema}


_STRING: Schema = {"type": "string"}
_ID: Schema = {"type": "string", "minLength": 1, "maxLength": wire.MAX_ID_LENGTH}
_CULTURE_MAP: Schema = _map_of(_STRING)

SCHEMAS: dict[str, Schema] = {
    "Reference": {
        "type": "object",
        "required": ["id", "facetName", "type", "expandUri"],
        "properties": {
            "id": _STRING, "facetName": _STRING, "type": _STRING, "expandUri": _STRING,
            "versionId": _STRING, "creationId": _STRING,
            "state": {"type": "string", "nullable": True},
            "shapeId": _STRING,
            "predecessors": {"type": "array", "items": _STRING},
            "attributes": _ref("Attributes"),
            "related": _map_of({"type": "array", "items": _ref("Reference")}),
        },
    },
    "Attributes": _map_of(_map_of({})),
    "Element": {
        "type": "object",
        "required": ["id", "creationId", "type", "facetName", "expandUri"],
        "properties": {
            "id": _STRING, "creationId": _STRING, "versionId": _STRING,
            "state": {"type": "string", "nullable": True},
            "type": _STRING, "facetName": _STRING, "expandUri": _STRING,
            "setReadOnly": {"type": "boolean", "nullable": True},
            "attributes": _ref("Attributes"),
            "related": _map_of({"type": "array", "items": _ref("Reference")}),
            "children": {"type": "array", "items": _ref("Reference")},
            "content": {"type": "array", "items": _ref("Reference")},
            "rootPath": {"type": "array", "items": _ref("Reference")},
            "displayNames": _CULTURE_MAP,
            "stereotype": {"allOf": [_ref("Reference")], "nullable": True},
        },
    },
    "ElementList": {
        "type": "object", "required": ["count", "elements"],
        "properties": {"count": {"type": "integer"},
                       "elements": {"type": "array", "items": _ref("Element")}},
    },
    "ElementValues": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"},
                       "values": {"type": "array", "items": _ref("Element")}},
    },
    "UpdateBody": {
        "type": "object", "required": ["elements"],
        "properties": {"count": {"type": "integer"},
                       "elements": {"type": "array", "items": {
                           "type": "object",
                           "properties": {"id": _ID, "versionId": _ID, "type": _STRING,
                                          "facetName": _STRING,
                                          "attributes": _ref("Attributes")}}}},
    },
    "FacetViews": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": {"type": "array", "items": {
            "type": "object", "required": ["name", "displayNames", "elements", "isHierarchical"],
            "properties": {"name": _STRING, "displayNames": _CULTURE_MAP, "elements": _STRING,
                           "isHierarchical": {"type": "boolean"}}}}},
    },
    "AttributeValues": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": _ref("Attributes")},
    },
    "RelatedValues": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"},
                       "values": _map_of({"type": "array", "items": _ref("Reference")})},
    },
    "ElementInfoValues": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": {"type": "array", "items": {
            "type": "object",
            "required": ["id", "elementTypeName", "permissions", "hasDiagram", "uid"],
            "properties": {
                "id": _STRING, "elementTypeName": _STRING, "entityTypeName": _STRING,
                "entityIds": {"type": "array", "items": _STRING},
                "facetTypeName": _STRING, "facetViewKey": _STRING,
                "hasDiagram": {"type": "boolean"}, "hasEditPermission": {"type": "boolean"},
                "insertableDynamicTypes": {"type": "object"},
                "isCurrentCopyable": {"type": "boolean"},
                "isCurrentInsertable": {"type": "boolean"},
                "isCurrentMovable": {"type": "boolean"},
                "isCurrentRemovable": {"type": "boolean"},
                "isReadOnly": {"type": "boolean"}, "isReadOnlyCollection": {"type": "boolean"},
                "name": _STRING,
                "permissions": {"type": "array", "items": {"type": "string", "enum": [
                    "NewElement", "EditElement", "DeleteElement", "ShowElement",
                    "ApproveElement", "OpenElement"]}},
                "readOnlyCollectionContext": _ref("ReadOnlyContext"),
                "readOnlyContext": _ref("ReadOnlyContext"),
                "rootPath": {"type": "array", "items": _STRING},
                "shapeId": _STRING,
                "typeColor": {"type": "string", "pattern": "^#[0-9A-Fa-f]{6}$"},
                "uid": _STRING}}}},
    },
    "ReadOnlyContext": {"type": "string", "enum": [
        "None", "Diagram", "Architect", "All", "NotCurrentUser", "Never"]},
    "ElementTypes": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": {"type": "array", "items": {
            "type": "object", "required": ["key", "displayNames", "properties", "layouts"],
            "properties": {
                "key": _STRING, "displayNames": _CULTURE_MAP, "descriptions": _CULTURE_MAP,
                "properties": {"type": "array", "items": {
                    "type": "object", "required": ["key", "displayNames"],
                    "properties": {"key": _STRING, "displayNames": _CULTURE_MAP,
                                   "attribute": {"type": "object"},
                                   "related": {"type": "object"}}}},
                "layouts": {"type": "array", "items": {
                    "type": "object", "required": ["key"],
                    "properties": {"key": _STRING, "displayNames": _CULTURE_MAP}}}}}}},
    },
    "ContentBody": {
        "type": "object", "required": ["values"],
        "properties": {"values": {"type": "array", "items": {
            "type": "object", "required": ["shapeInfo"],
            "properties": {
                "shapeInfo": {"type": "object", "required": ["index"], "properties": {
                    "index": {"type": "integer"}, "id": _ID,
                    "predecessors": {"type": "array", "items": {"type": "integer"}}}},
                "element": {"type": "object", "properties": {
                    "id": _ID, "type": _STRING, "attributes": _ref("Attributes"),
                    "related": {"type": "object"}}}}}}},
    },
    "ContentResult": {
        "type": "object", "required": ["values"],
        "properties": {"values": {"type": "array", "items": {
            "type": "object", "required": ["id", "index"],
            "properties": {"id": _STRING, "index": {"type": "integer"}}}}},
    },
    "Transitions": {
        "type": "object", "required": ["count"],
        "properties": {"count": {"type": "integer"},
                       "values": {"type": "array", "items": _ref("Transition")},
                       "transitions": {"type": "array", "items": _ref("Transition")}},
    },
    "Transition": {
        "type": "object", "required": ["transitionId", "sourceState", "targetState"],
        "properties": {"transitionId": _STRING, "sourceState": _STRING,
                       "targetState": _STRING},
    },
    "PoolResults": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": {"type": "array", "items": {
            "type": "object", "required": ["item1", "item2"],
            "properties": {"item1": _STRING, "item2": {"type": "boolean"}}}}},
    },
    "Error": {
        "type": "object", "required": ["message", "output", "type", "data"],
        "properties": {
            "message": _STRING,
            "output": {"type": "string", "enum": ["volatile", "permanent", "dialog", "inline"]},
            "type": {"type": "string",
                     "enum": ["critical", "error", "warning", "success", "unauthorized"]},
            "data": {"type": "array", "items": {"type": "object", "required": ["error"],
                                                "properties": {"error": _STRING}}}},
    },
    "RenderError": {
        "type": "object", "required": ["message", "type", "data"],
        "properties": {"message": _STRING, "type": _STRING,
                       "data": {"type": "array", "items": {"type": "object"}}},
        "not": {"required": ["output"]},
    },
}

_QUERY = {
    name: {"name": name, "in": "query", "required": False, "schema": schema,
           "description": text}
    for name, schema, text in (
        ("$filter", _STRING, "Filter expression (docs/service.md, $filter)"),
        ("$resources", _STRING, "attributes,related,children,content,displayNames,rootPath,"
                                "stereotype"),
        ("$select", _STRING, "Attribute and related-context names to include"),
        ("$expandRelated", _STRING, "Related contexts whose elements carry attributes"),
        ("$page", {"type": "integer", "minimum": 1}, "1-based page"),
        ("$pageSize", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE,
                       "default": DEFAULT_PAGE_SIZE}, "Elements per page"),
        ("$pageSelectionKey", _STRING, "Element id whose page is returned"),
        ("ignoreWarnings", {"type": "boolean"}, "Ignore validation warnings"),
    )
}
_LISTING = ("$filter", "$resources", "$select", "$expandRelated", "$page", "$pageSize",
            "$pageSelectionKey")
_SHAPING = ("$filter", "$resources", "$select", "$expandRelated")

_T = "/{collectionId}/{storageId}"
_F = _T + "/_api/rest/facets/{facetId}"
_E = _F + "/views/{viewId}/elements/{elementId}"

# Response headers, referenced by name from the operations that answer them.
HEADERS: dict[str, Schema] = {
    "ETag": {"description": "The current revision: of the element (it changes on every "
                            "write to it, content and children included) or of the "
                            "rendered picture", "required": True, "schema": _STRING},
    "Retry-After": {"description": "Seconds to wait before trying again", "required": True,
                    "schema": {"type": "integer", "minimum": 0}},
    "X-Render-Cache": {"description": "hit: answered from the render cache; miss: rendered "
                                      "now", "required": True,
                       "schema": {"type": "string", "enum": ["hit", "miss"]}},
    **{name: {"required": True, "schema": {"type": "string", "enum": [value]}}
       for name, value in SECURITY_HEADERS.items()},
}
_RENDER_HEADERS = ("ETag", *SECURITY_HEADERS, "X-Render-Cache")

# Refusals any operation may answer (docs/contract.md, "Authentication and permissions",
# "Wire conventions" and "Limits and robustness").
_REFUSALS = (
    (400, "Bad request: malformed JSON, a bad query parameter, an invalid filter, invalid "
          "Unicode (lone surrogates, NUL), a number outside the 64-bit range, a culture id "
          "that is not ASCII digits"),
    (401, "No or unknown token"),
    (403, "Other tenant or missing permission"),
    (404, "Not found"),
    (408, "The request head did not arrive in time"),
    (409, "Conflict: transition not allowed now, or a stale versionId"),
    (413, f"Too large: a body over {MAX_BODY_BYTES // 2**20} MiB, over "
          f"{wire.MAX_CONTENT_ITEMS:,} content items, over {wire.MAX_PREDECESSOR_LINKS:,} "
          f"links in one diagram, or an attribute value over "
          f"{wire.MAX_ATTRIBUTE_VALUE_LENGTH:,} characters"),
    (414, f"Request line (method, URL, protocol) over {MAX_REQUEST_LINE:,} bytes"),
    (431, f"Request headers over {MAX_HEADER_BYTES // 1024} KiB in all, or one over "
          f"{MAX_HEADER_FIELD:,} bytes"),
    (500, "Internal error; nothing was written"),
)
# Conditional request headers and the refusal that goes with each.
_CONDITIONS = {
    "If-Match": (412, "If-Match names no current revision of the element; nothing was "
                      "written",
                 "`*` or ETags from the element's GET (update: with a body of exactly one "
                 "existing element): write only if one is still its current revision"),
    "If-None-Match": (304, "If-None-Match names the current ETag; empty body",
                      "`*` or ETags of pictures the client holds"),
}


def _header_ref(name: str) -> Schema:
    return {"$ref": "#/components/headers/" + name}


def _operation(summary: str, version: str, ok: Schema, query: tuple[str, ...] = (),
               body: str | None = None, *, error: str = "Error",
               ok_media: str = "application/json", ok_headers: tuple[str, ...] = (),
               condition: str | None = None, may_be_busy: bool = False) -> Schema:
    """One operation: `ok_headers` names HEADERS on its 200; `condition` is the
    conditional request header it honours; `may_be_busy` adds 503 with Retry-After (a
    write waiting on the database lock, a render past its deadline)."""
    parameters: list[Schema] = [{"name": "api-version", "in": "query", "required": False,
                                 "schema": {"type": "string", "enum": [version]}}]
    parameters += [_QUERY[name] for name in query]
    error_body = {"application/json": {"schema": _ref(error)}}
    success: Schema = {"description": "Success", "content": {ok_media: {"schema": ok}}}
    if ok_headers:
        success["headers"] = {name: _header_ref(name) for name in ok_headers}
    responses: Schema = {"200": success, **{
        str(code): {"description": text, "content": error_body} for code, text in _REFUSALS}}
    if condition is not None:
        status, answer, meaning = _CONDITIONS[condition]
        parameters.append({"name": condition, "in": "header", "required": False,
                           "schema": _STRING, "description": meaning})
        # 304 has no body; 412 is a refusal like the others.
        responses[str(status)] = ({"description": answer,
                                   "headers": {"ETag": _header_ref("ETag")}}
                                  if status == 304 else
                                  {"description": answer, "content": error_body})
    if may_be_busy:
        responses["503"] = {"description": "Try again later: the database is busy, or the "
                                           "render passed its deadline",
                            "headers": {"Retry-After": _header_ref("Retry-After")},
                            "content": error_body}
    operation: Schema = {"summary": summary, "parameters": parameters,
                         "responses": dict(sorted(responses.items()))}
    if body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": _ref(body)}}}
    return operation


def _paths() -> dict[str, Schema]:
    # Every POST takes the write lock (repository/api/common.py session), so may be busy.
    transitions_get = _operation("List transitions allowed now", "1.0", _ref("Transitions"))
    transitions_post = _operation("List transitions allowed now", "1.0", _ref("Transitions"),
                                  may_be_busy=True)
    change = _operation("Change state", "4.0", _ref("ElementList"), ("ignoreWarnings",),
                        may_be_busy=True)
    related = ("Related get", "1.0", _ref("RelatedValues"), ("$filter", "$expandRelated"))
    maintain = {**_operation("Maintain pools", "4.0", _ref("PoolResults"), may_be_busy=True),
                "security": [{"serviceToken": []}]}
    render = _operation("Render a diagram as SVG", "2.0", _STRING, error="RenderError",
                        ok_media="image/svg+xml", ok_headers=_RENDER_HEADERS,
                        condition="If-None-Match", may_be_busy=True)
    paths: dict[str, Schema] = {
        _F + "/views": {"get": _operation("List views", "4.0", _ref("FacetViews"))},
        _F + "/views/{viewId}/elements": {
            "get": _operation("List elements", "4.0", _ref("ElementList"), _LISTING),
            "post": _operation("Update or create elements", "4.0", _ref("ElementList"),
                               body="UpdateBody", condition="If-Match", may_be_busy=True),
        },
        _E: {"get": _operation("Get element", "4.0", _ref("ElementList"), _SHAPING,
                               ok_headers=("ETag",))},
        _E + "/children": {"get": _operation("Children", "4.0", _ref("ElementList"),
                                             _SHAPING)},
        _E + "/versions": {"get": _operation("Versions", "4.0", _ref("ElementList"),
                                             _SHAPING)},
        _E + "/attributes": {"get": _operation("Attributes", "1.0", _ref("AttributeValues"),
                                               ("$filter", "$select"))},
        _E + "/attributes/{attributeId}": {
            "get": _operation("Attribute get", "1.0", _ref("AttributeValues"))},
        _E + "/related/{relatedId}": {"get": _operation(*related),
                                      "post": _operation(*related, may_be_busy=True)},
        _E + "/info": {"get": _operation("Element info", "1.0", _ref("ElementInfoValues"))},
        _F + "/views/{viewId}/config": {
            "get": _operation("All element types of the view", "1.0", _ref("ElementTypes"))},
        _F + "/views/{viewId}/config/{type}": {
            "get": _operation("One element type", "1.0", _ref("ElementTypes"))},
        _F + "/views/diagram/elements/{elementId}/content": {
            "post": _operation("Content create", "3.0", _ref("ContentResult"),
                               body="ContentBody", condition="If-Match", may_be_busy=True)},
        _F + "/reporting": {"get": _operation("Reporting of a facet", "4.0",
                                              _ref("ElementValues"), _LISTING)},
        _F + "/reporting/{elementId}": {"get": _operation("Reporting of an element", "4.0",
                                                          _ref("ElementValues"), _SHAPING)},
        _T + "/_api/rest/diagram/{diagramId}/render/{cultureId}/{layoutKey}": {
            "get": render},
        "/_sysadmin/_admin/_api/rest/maintain": {"get": maintain},
        "/_sysadmin/_admin/_api/rest/maintain/{pool}": {"get": maintain},
    }
    for prefix in ("/_api/release", "/_api/rest/release"):
        paths[_T + prefix + "/{elementId}/transitions"] = {"get": transitions_get,
                                                           "post": transitions_post}
        paths[_T + prefix + "/{elementId}/transitions/{transitionId}"] = {"post": change}
    for path, item in paths.items():
        item["parameters"] = [_path_parameter(name) for name in _path_names(path)]
    return paths


def _path_parameter(name: str) -> Schema:
    """Names the catalog fixes are enums, so clients (and fuzzers) can tell them."""
    enums = {"facetId": list(catalog.FACETS), "layoutKey": list(catalog.LAYOUT_KEYS),
             "viewId": sorted({v for f in catalog.FACETS.values() for v in f.views})}
    schema = {"type": "string", "enum": enums[name]} if name in enums else _STRING
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _path_names(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{")]


@cache
def document() -> Schema:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Element Repository REST Service", "version": "1.0.0",
                 "description": "Multi-tenant repository of process models; see "
                                "docs/service.md."},
        "paths": _paths(),
        "components": {
            "schemas": SCHEMAS,
            "headers": HEADERS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "serviceToken": {"type": "apiKey", "in": "header",
                                 "name": "service-auth-token"},
            },
        },
        "security": [{"bearer": []}],
    }
