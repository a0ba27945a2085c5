"""The OpenAPI 3.0 document of the service. Its paths and operations are generated from
the endpoint declarations (repository/api/endpoint.py, every resource listed in
repository/api/registry.py); its parameters are the objects of repository/api/parameters.py,
each listed once under `components/parameters` and referred to. This module adds what
is the same for every operation: the schemas, the response headers and the refusals. A
test validates real responses against it (tests/repository/test_openapi.py)."""

from __future__ import annotations

from functools import cache

from repository import wire
from repository.api import parameters
from repository.api.endpoint import SERVICE_TOKEN_HEADER, Declaration
from repository.api.parameters import STRING as _STRING
from repository.api.parameters import Parameter, Schema
from repository.api.registry import RESOURCES
from repository.api.render import SECURITY_HEADERS
from repository.app import MAX_BODY_BYTES
from repository.server import MAX_HEADER_BYTES, MAX_HEADER_FIELD, MAX_REQUEST_LINE

_REF = "#/components/schemas/"


def _ref(name: str) -> Schema:
    return {"$ref": _REF + name}


def _map_of(schema: Schema) -> Schema:
    return {"type": "object", "additionalProperties": schema}


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
    "Svg": {"type": "string", "description": "An SVG document"},
    "BpmnXml": {"type": "string", "description": "A BPMN 2.0 XML document with diagram interchange"},
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

# Response headers, referenced by name from the operations that answer them.
HEADERS: dict[str, Schema] = {
    "ETag": {"description": "The current revision: of the element (it changes on every "
                            "write to it, content and children included), of the "
                            "rendered picture or of the listing answer", "required": True,
             "schema": _STRING},
    "Retry-After": {"description": "Seconds to wait before trying again", "required": True,
                    "schema": {"type": "integer", "minimum": 0}},
    "X-Render-Cache": {"description": "hit: answered from the render cache; miss: rendered "
                                      "now", "required": True,
                       "schema": {"type": "string", "enum": ["hit", "miss"]}},
    "X-Listing-Cache": {"description": "hit: answered from the listing cache; miss: read "
                                       "now", "required": True,
                        "schema": {"type": "string", "enum": ["hit", "miss"]}},
    **{name: {"required": True, "schema": {"type": "string", "enum": [value]}}
       for name, value in SECURITY_HEADERS.items()},
}

# Refusals any operation may answer (docs/contract.md, "Authentication and permissions",
# "Wire conventions" and "Limits and robustness").
_REFUSALS = (
    (400, "Bad request: malformed JSON, a bad query parameter, an invalid filter, invalid "
          "Unicode (lone surrogates, NUL), a number outside the 64-bit range, a culture id "
          "that is not ASCII digits"),
    (401, "No token, or an unknown, expired or revoked one"),
    (403, "Other tenant or missing permission"),
    (404, "Not found"),
    (408, "The request head did not arrive in time, or the body arrived too slowly"),
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


def _header_ref(name: str) -> Schema:
    return {"$ref": "#/components/headers/" + name}


def _parameter_ref(parameter: Parameter) -> Schema:
    return {"$ref": "#/components/parameters/" + parameter.key}


def _operation(declaration: Declaration, method: str, error_schema: str) -> Schema:
    """One method of one declaration: its api-version, query and header parameters, the
    success answer, every refusal, a conditional header's own answer, 503 if it may be
    busy, and the service token instead of the bearer token where it asks for that."""
    answer = declaration.answer
    error_body = {"application/json": {"schema": _ref(error_schema)}}
    success: Schema = {"description": "Success",
                       "content": {answer.media: {"schema": _ref(answer.schema)}}}
    if answer.headers:
        success["headers"] = {name: _header_ref(name) for name in answer.headers}
    responses: Schema = {"200": success, **{
        str(code): {"description": text, "content": error_body} for code, text in _REFUSALS}}
    for parameter in declaration.parameters:
        if parameter.answer is not None:
            status, text = parameter.answer
            # 304 has no body; 412 is a refusal like the others.
            responses[str(status)] = (
                {"description": text, "headers": {"ETag": _header_ref("ETag")}}
                if status == 304 else {"description": text, "content": error_body})
    if declaration.may_be_busy(method):
        responses["503"] = {"description": "Try again later: the database is busy or "
                                           "unreachable, or a statement or the render "
                                           "passed its deadline",
                            "headers": {"Retry-After": _header_ref("Retry-After")},
                            "content": error_body}
    operation: Schema = {
        "summary": declaration.summary,
        "parameters": [_parameter_ref(p) for p in _operation_parameters(declaration)],
        "responses": dict(sorted(responses.items())),
    }
    if declaration.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": _ref(declaration.body.schema)}}}
    if declaration.service:
        operation["security"] = [{"serviceToken": []}]
        responses["429"] = {"description": "Too many wrong service tokens lately; try "
                                           "again after Retry-After",
                            "headers": {"Retry-After": _header_ref("Retry-After")},
                            "content": error_body}
        operation["responses"] = dict(sorted(responses.items()))
    return operation


def _operation_parameters(declaration: Declaration) -> tuple[Parameter, ...]:
    return (parameters.api_version(declaration.api_version), *declaration.parameters)


def _paths() -> dict[str, Schema]:
    paths: dict[str, Schema] = {}
    for resource in RESOURCES:
        for declaration in resource.declarations:
            for rule in declaration.rules:
                item = paths.setdefault(declaration.openapi_path(rule), {"parameters": [
                    _parameter_ref(p) for p in declaration.path_parameters(rule)]})
                for method in declaration.methods:
                    if method.lower() in item:
                        raise ValueError(f"{method} {rule} is declared twice")
                    item[method.lower()] = _operation(declaration, method,
                                                      resource.error_schema)
    return paths


def _parameters() -> dict[str, Schema]:
    """Every parameter an operation or path names, once, by key."""
    used: dict[str, Parameter] = {}
    for resource in RESOURCES:
        for declaration in resource.declarations:
            for parameter in (*_operation_parameters(declaration),
                              *(p for rule in declaration.rules
                                for p in declaration.path_parameters(rule))):
                if used.setdefault(parameter.key, parameter) != parameter:
                    raise ValueError(f"Two parameters have the key {parameter.key!r}")
    return {key: used[key].to_openapi() for key in sorted(used)}


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
            "parameters": _parameters(),
            "headers": HEADERS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "serviceToken": {"type": "apiKey", "in": "header",
                                 "name": SERVICE_TOKEN_HEADER},
            },
        },
        "security": [{"bearer": []}],
    }
