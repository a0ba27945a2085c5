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
from repository.api.parameters import CULTURE_ID, ELEMENT_ID, Parameter, Schema
from repository.api.parameters import STRING as _TEXT
from repository.api.registry import RESOURCES
from repository.http_contract import (
    DRAWING_HEADERS,
    MAX_BODY_BYTES,
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELD,
    MAX_REQUEST_LINE,
)
from repository.input_rules import MAX_INTEGER, MIN_INTEGER, PLAIN_NAME
from repository.webhooks.endpoints import MAX_TYPE_LENGTH, MAX_TYPES
from repository.webhooks.targets import MAX_URL_LENGTH, URL_PATTERN

_REF = "#/components/schemas/"


def _ref(name: str) -> Schema:
    return {"$ref": _REF + name}


def _map_of(schema: Schema) -> Schema:
    return {"type": "object", "additionalProperties": schema}


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


_STRING: Schema = {"type": "string"}  # in answers
_CULTURE_MAP: Schema = _map_of(_STRING)

# Request bodies: exactly the rules of repository/wire.py and repository/input_rules.py
# (every string valid text, every integer within 64 bits). What depends on other fields,
# other items or the stored data (count equal to the list's length, indices 0..n-1,
# predecessors naming items of the list, a new element's type belonging to the path's
# facet, ids that exist) is the server's alone: 400 or 404 naming it.
_ID = _nullable(ELEMENT_ID)  # null or absent: none
_NAME: Schema = {"type": "string", "pattern": PLAIN_NAME.pattern,
                 "maxLength": wire.MAX_NAME_LENGTH}
_INTEGER: Schema = {"type": "integer", "minimum": MIN_INTEGER, "maximum": MAX_INTEGER}
_FRACTION: Schema = {"type": "number", "not": {"type": "integer"}}  # JSON has no NaN
# What `x or []` reads as nothing: the body's falsy JSON values.
_FALSY: Schema = {"anyOf": [{"enum": [None, False, 0, ""]},
                            {"type": "array", "maxItems": 0},
                            {"type": "object", "maxProperties": 0}]}
_TEXT_VALUE: Schema = {**_TEXT, "maxLength": wire.MAX_ATTRIBUTE_VALUE_LENGTH}
# Any JSON the input rules allow: what a body may carry where the service reads nothing.
_VALID_JSON = _ref("ValidJson")
_OTHER_FIELDS: Schema = {"propertyNames": _TEXT, "additionalProperties": _VALID_JSON}
_ATTRIBUTE_VALUE: Schema = {"anyOf": [
    {"type": ["null", "boolean"]}, _INTEGER, _FRACTION, _TEXT_VALUE,
    {"type": "array", "description": f"A file list: at most "
                                     f"{wire.MAX_ATTRIBUTE_VALUE_LENGTH:,} characters of "
                                     "text in all, keys included",
     "items": {"anyOf": [_TEXT_VALUE, {"type": "object", **_OTHER_FIELDS}]}},
]}
_ATTRIBUTES_INPUT: Schema = {
    "type": "object", "propertyNames": _NAME,
    "additionalProperties": {"type": "object", "propertyNames": CULTURE_ID,
                             "additionalProperties": _ATTRIBUTE_VALUE}}
_REFERENCES_INPUT: Schema = {"type": "array", "items": {
    "type": "object", "required": ["id"], "properties": {"id": ELEMENT_ID},
    **_OTHER_FIELDS}}
_RELATED_INPUT: Schema = {"type": "object", "propertyNames": _NAME,
                          "additionalProperties": _REFERENCES_INPUT}

def _comparison_schema() -> Schema:
    """The compare endpoint's answer (repository/api/compare.py, renderer/compare.py)."""
    names = _map_of(_STRING)
    change: Schema = {"attributes": {"type": "array", "items": {
                  "type": "object", "required": ["name", "cultures"],
                  "properties": {"name": _STRING, "cultures": {"type": "array", "items": {"type": "integer"}}}}},
              "related": {"type": "array", "items": _STRING},
              "typeChanged": {"type": "boolean"}, "childrenChanged": {"type": "boolean"},
              "writtenSince": {"type": "boolean"}}
    shape: Schema = {"type": "object", "required": ["shapeId", "elementId", "type", "name"],
             "properties": {"shapeId": _STRING, "elementId": _STRING, "type": _STRING, "name": names}}
    element: Schema = {"type": "object", "required": ["id", "type", "name"],
               "properties": {"id": _STRING, "type": _STRING, "name": names}}
    flow: Schema = {"type": "object", "required": ["sourceShapeId", "targetShapeId"],
            "properties": {"sourceShapeId": _STRING, "targetShapeId": _STRING}}

    def listed(item: Schema) -> Schema:
        return {"type": "array", "items": item}

    def kinds(item: Schema, changed: Schema | None, *extra: str) -> Schema:
        properties = {"added": listed(item), "removed": listed(item),
                      **({"changed": listed(changed)} if changed else {}),
                      **{name: listed(item) for name in extra}}
        return {"type": "object", "required": list(properties), "properties": properties}

    changed_shape = {**shape, "properties": {**shape["properties"], **change, "elementBefore": _STRING}}
    changed_element = {**element, "properties": {**element["properties"], **change}}
    return {
        "type": "object",
        "required": ["diagramId", "fromVersionId", "toVersionId", "same", "diagram", "shapes", "elements", "flows"],
        "properties": {
            "diagramId": _STRING, "fromVersionId": _STRING, "toVersionId": _STRING,
            "same": {"type": "boolean"},
            "diagram": {"type": "object", "required": ["attributes", "related"], "properties": change},
            "shapes": kinds(shape, changed_shape, "moved"),
            "elements": kinds(element, changed_element),
            "flows": kinds(flow, None),
        },
    }


SCHEMAS: dict[str, Schema] = {
    "ValidJson": {"anyOf": [
        {"type": ["null", "boolean"]}, _INTEGER, _FRACTION, _TEXT,
        {"type": "array", "items": _VALID_JSON},
        {"type": "object", **_OTHER_FIELDS}]},
    "Reference": {
        "type": "object",
        "required": ["id", "facetName", "type", "expandUri"],
        "properties": {
            "id": _STRING, "facetName": _STRING, "type": _STRING, "expandUri": _STRING,
            "versionId": _STRING, "creationId": _STRING,
            "state": {"type": ["string", "null"]},
            "shapeId": _STRING,
            "predecessors": {"type": "array", "items": _STRING},
            "attributes": _ref("Attributes"),
            "related": _map_of({"type": "array", "items": _ref("Reference")}),
        },
    },
    "Attributes": _map_of(_map_of({})),
    "Svg": {"type": "string", "description": "An SVG document"},
    "BpmnXml": {"type": "string", "description": "A BPMN 2.0 XML document with diagram interchange"},
    "Comparison": _comparison_schema(),
    "Element": {
        "type": "object",
        "required": ["id", "creationId", "type", "facetName", "expandUri"],
        "properties": {
            "id": _STRING, "creationId": _STRING, "versionId": _STRING,
            "state": {"type": ["string", "null"]},
            "type": _STRING, "facetName": _STRING, "expandUri": _STRING,
            "setReadOnly": {"type": ["boolean", "null"]},
            "attributes": _ref("Attributes"),
            "related": _map_of({"type": "array", "items": _ref("Reference")}),
            "children": {"type": "array", "items": _ref("Reference")},
            "content": {"type": "array", "items": _ref("Reference")},
            "rootPath": {"type": "array", "items": _ref("Reference")},
            "displayNames": _CULTURE_MAP,
            "stereotype": _nullable(_ref("Reference")),
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
    "ChangeList": {
        "type": "object", "required": ["count", "values", "cursor"],
        "properties": {"count": {"type": "integer"},
                       "values": {"type": "array", "items": _ref("ChangeEvent")},
                       "cursor": {**_STRING, "description": "Pass back as `cursor` for the "
                                                            "events after this page"}},
    },
    "ChangeEvent": {
        "type": "object", "description": "A CloudEvents 1.0 event in JSON (docs/events.md)",
        "required": ["specversion", "id", "source", "type", "subject", "time", "sequence",
                     "datacontenttype", "data"],
        "properties": {
            "specversion": {"type": "string", "enum": ["1.0"]}, "id": _STRING,
            "source": _STRING, "type": _STRING, "subject": _STRING,
            "time": {"type": "string", "format": "date-time"},
            "sequence": {"type": "string", "pattern": "^[0-9]{20}$",
                         "description": "The position in the tenant's commit order"},
            "datacontenttype": {"type": "string", "enum": ["application/json"]},
            "data": {"type": "object", "required": ["element"], "properties": {
                "element": {"type": "object", "required": ["id", "facet", "type"],
                            "properties": {"id": _STRING, "facet": _STRING, "type": _STRING}},
                "versionId": _STRING, "revision": {"type": "integer"}}}},
    },
    "UpdateBody": {
        "type": "object", "required": ["elements"], **_OTHER_FIELDS,
        "properties": {
            "count": _nullable({**_INTEGER, "description": "The number of elements"}),
            "elements": {"type": "array", "maxItems": wire.MAX_ELEMENTS_PER_UPDATE,
                         "items": _ref("ElementInput")}},
    },
    "ElementInput": {
        "type": "object", **_OTHER_FIELDS,
        "properties": {
            "id": _ID, "versionId": _ID, "type": _nullable(_NAME),
            "facetName": _nullable(_NAME), "attributes": _nullable(_ATTRIBUTES_INPUT),
            "related": _nullable(_RELATED_INPUT), "children": _nullable(_REFERENCES_INPUT),
            "content": _nullable({"type": "array", "items": _ref("ContentEntry")}),
        },
    },
    "ContentEntry": {
        "type": "object", **_OTHER_FIELDS,
        "description": "An existing shape (shapeId) or a new one (id)",
        "properties": {"shapeId": _ID, "id": _ID,
                       "predecessors": _nullable({"type": "array", "items": _TEXT})},
        "anyOf": [{"required": ["shapeId"], "properties": {"shapeId": ELEMENT_ID}},
                  {"required": ["id"], "properties": {"id": ELEMENT_ID}}],
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
        "type": "object", "required": ["values"], **_OTHER_FIELDS,
        "properties": {"values": {"type": "array", "maxItems": wire.MAX_CONTENT_ITEMS,
                                  "items": _ref("ContentItem")}},
    },
    "ContentItem": {
        "type": "object", "required": ["shapeInfo"], **_OTHER_FIELDS,
        "properties": {
            "shapeInfo": {"type": "object", "required": ["index"], **_OTHER_FIELDS,
                          "properties": {
                "index": {"type": "integer", "minimum": 0,
                          "maximum": wire.MAX_CONTENT_ITEMS - 1},
                "id": _ID,
                "predecessors": {"anyOf": [
                    {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                "maximum": wire.MAX_CONTENT_ITEMS - 1}},
                    _FALSY]}}},
            "element": _nullable(_ref("NewShapeElement")),
        },
        # An existing shape (shapeInfo.id) carries no element; a new one needs one.
        "oneOf": [
            {"properties": {"shapeInfo": {"required": ["id"], "properties": {"id": ELEMENT_ID}},
                            "element": {"type": "null"}}},
            {"required": ["element"],
             "properties": {"shapeInfo": {"properties": {"id": {"type": "null"}}},
                            "element": _ref("NewShapeElement")}},
        ],
    },
    "NewShapeElement": {
        "type": "object", **_OTHER_FIELDS,
        "properties": {"id": _ID, "type": _nullable(_NAME),
                       "attributes": _nullable(_ATTRIBUTES_INPUT),
                       "related": {"anyOf": [_RELATED_INPUT, _FALSY]}},
        "anyOf": [{"required": ["id"], "properties": {"id": ELEMENT_ID}},
                  {"required": ["type"], "properties": {"type": _NAME}}],
    },
    "ContentResult": {
        "type": "object", "required": ["values"],
        "properties": {"values": {"type": "array", "items": {
            "type": "object", "required": ["id", "index"],
            "properties": {"id": _STRING, "index": {"type": "integer"}}}}},
    },
    "CallerValues": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": {"type": "array", "items": {
            "type": "object", "required": ["id", "name", "role", "permissions"],
            "properties": {
                "id": _STRING, "name": _STRING, "role": _STRING,
                "permissions": {"type": "array", "items": _STRING},
                "expiresAt": _nullable(_STRING),
            }}}},
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
    "WebhookRegistration": {
        "type": "object", "required": ["url"], "additionalProperties": False,
        "properties": {
            "url": {"type": "string", "maxLength": MAX_URL_LENGTH, "pattern": URL_PATTERN,
                    "description": "Where deliveries go: at each one, the host's every "
                                   "address must be public unless the service allows "
                                   "private ones"},
            "types": _nullable({"type": "array", "maxItems": MAX_TYPES, "items": {
                **_TEXT, "minLength": 1, "maxLength": MAX_TYPE_LENGTH}})},
    },
    "Webhook": {
        "type": "object",
        "required": ["id", "url", "types", "createdAt", "enabled", "disabledReason",
                     "failingSince"],
        "properties": {"id": _STRING, "url": _STRING,
                       "types": {"type": "array", "items": _STRING},
                       "createdAt": _STRING, "enabled": {"type": "boolean"},
                       "disabledReason": _nullable(_STRING),
                       "failingSince": _nullable(_STRING),
                       "secret": {**_STRING, "pattern": "^whsec_",
                                  "description": "Only in the answer of the POST"}},
    },
    "Webhooks": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"},
                       "values": {"type": "array", "items": {
                           "allOf": [_ref("Webhook"), {"not": {"required": ["secret"]}}]}}},
    },
    "WebhookCreated": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"},
                       "values": {"type": "array", "items": {
                           "allOf": [_ref("Webhook"), {"required": ["secret"]}]}}},
    },
    "WebhookDeliveries": {
        "type": "object", "required": ["count", "values"],
        "properties": {"count": {"type": "integer"}, "values": {"type": "array", "items": {
            "type": "object",
            "required": ["eventId", "type", "sequence", "status", "attempts", "lastStatus",
                         "lastError", "firstAttempt", "lastAttempt"],
            "properties": {
                "eventId": _STRING, "type": _STRING, "sequence": {"type": "integer"},
                "status": {"type": "string", "enum": ["delivered", "retrying", "failed"]},
                "attempts": {"type": "integer"},
                "lastStatus": _nullable({"type": "integer"}),
                "lastError": _nullable(_STRING),
                "firstAttempt": _STRING, "lastAttempt": _STRING}}}},
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
       for name, value in DRAWING_HEADERS.items()},
    "X-Bpmn-Kept": {"description": "What the BPMN export holds, counted per kind as `elrepo import` "
                                   "says what it kept of a file: nodes, flows, pools, lanes, groups, "
                                   "eventDefinitions, nonInterrupting, markers, defaultFlows, conditions, "
                                   "processNames, executableFlags (docs/api.md, 16a)", "required": True,
                    "schema": {"type": "string", "pattern": r"^[a-zA-Z]+=[0-9]+(; [a-zA-Z]+=[0-9]+)*$"}},
}

# Refusals any operation may answer (docs/contract.md, "Authentication and permissions",
# "Wire conventions" and "Limits and robustness").
_REFUSALS = (
    (400, "Bad request: malformed JSON, a bad query parameter, an invalid filter, invalid "
          "Unicode (lone surrogates, control characters but tab, line feed and carriage return, "
          "U+FFFE, U+FFFF), a number outside the 64-bit range, a culture id "
          "that is not ASCII digits"),
    (401, "No token, or an unknown, expired or revoked one"),
    (403, "Other tenant or missing permission"),
    (404, "Not found"),
    (408, "The request head did not arrive in time, or the body arrived too slowly"),
    (409, "Conflict: transition not allowed now, a stale versionId, or a webhook more than "
          "a tenant may have"),
    (413, f"Too large: a body over {MAX_BODY_BYTES // 2**20} MiB, over "
          f"{wire.MAX_CONTENT_ITEMS:,} content items, over {wire.MAX_PREDECESSOR_LINKS:,} "
          f"links in one diagram, or an attribute value over "
          f"{wire.MAX_ATTRIBUTE_VALUE_LENGTH:,} characters"),
    (414, f"Request line (method, URL, protocol) over {MAX_REQUEST_LINE:,} bytes"),
    (431, f"Request headers over {MAX_HEADER_BYTES // 1024} KiB in all, or one over "
          f"{MAX_HEADER_FIELD:,} bytes"),
    (500, "Internal error; nothing was written"),
)


_BUSY = ("Try again later (Retry-After seconds): the database is unreachable or busy, "
         "a statement or the render passed its deadline")


def _header_ref(name: str) -> Schema:
    return {"$ref": "#/components/headers/" + name}


def _parameter_ref(parameter: Parameter) -> Schema:
    return {"$ref": "#/components/parameters/" + parameter.key}


def _operation(declaration: Declaration, error_schema: str) -> Schema:
    """One method of one declaration: its api-version, query and header parameters, the
    success answer, every refusal, a conditional header's own answer, 503, and the
    service token instead of the bearer token where it asks for that."""
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
    # Every operation reads the database: lost, busy (a write lock, the pool) or past a
    # statement's deadline, it answers 503; a render or export also past its deadline.
    responses["503"] = {"description": _BUSY, "content": error_body,
                        "headers": {"Retry-After": _header_ref("Retry-After")}}
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
                    item[method.lower()] = _operation(declaration,
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
        "openapi": "3.1.0",
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
