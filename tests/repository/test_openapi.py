"""/openapi.json describes every endpoint, and real responses validate against it."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import jsonschema
import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator
from werkzeug.test import TestResponse

from repository.app import create_app
from tests.repository.conftest import FACETS, TENANT, Api, Prepared, sqlite_only
from tests.repository.endpoints import CALLS, Call
from tests.repository.standin import DRAFT, HIRE, ORDER
from tests.repository.test_render_cache import RENDER, make_api
from tests.repository.test_render_deadline import create_dense_diagram


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("openapi") / "doc.db"
    response = create_app({"DATABASE_URL": f"sqlite:///{path}"}).test_client().get(
        "/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert isinstance(document, dict)
    return document


def operation_for(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    for template, item in document["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "/?$"
        if re.match(pattern, path) and method.lower() in item:
            operation: dict[str, Any] = item[method.lower()]
            return operation
    raise AssertionError(f"{method} {path} is not in /openapi.json")


def validate(document: dict[str, Any], method: str, path: str, status: int,
             body: Any) -> None:
    operation = operation_for(document, method, path.split("?")[0])
    media = operation["responses"][str(status)]["content"]
    schema = next(iter(media.values()))["schema"]
    # OpenAPI 3.1's schemas are JSON Schema 2020-12.
    jsonschema.Draft202012Validator({**schema, "components": document["components"]}
                                    ).validate(body)


def test_document_is_openapi_3_with_every_endpoint(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    for call in CALLS:
        operation_for(document, call.method, TENANT + call.path)
    operation_for(document, "GET", "/_sysadmin/_admin/_api/rest/maintain")
    operation_for(document, "GET", "/_sysadmin/_admin/_api/rest/maintain/demo.default")


def test_document_passes_the_openapi_spec_validator(document: dict[str, Any]) -> None:
    assert [error.message for error in OpenAPIV31SpecValidator(document).iter_errors()] == []


def test_document_describes_limits_conditions_and_busy_answers(document: dict[str, Any]) -> None:
    element = f"{FACETS}/processes/views/detail/elements/{ORDER}"
    content = f"{FACETS}/processes/views/diagram/elements/{ORDER}/content"
    render = f"{TENANT}/_api/rest/diagram/{ORDER}/render/1033/horizontal"
    for call in CALLS:
        responses = operation_for(document, call.method, TENANT + call.path)["responses"]
        assert {"400", "413", "414", "431", "503"} <= set(responses), call
        assert set(header_names(document, call.method, TENANT + call.path, "503")) == {
            "Retry-After"}, call
    assert set(header_names(document, "GET", element, "200")) == {"ETag"}
    for method, path in (("POST", f"{FACETS}/processes/views/detail/elements"),
                         ("POST", content)):
        assert "If-Match" in request_headers(document, method, path)
        assert "412" in operation_for(document, method, path)["responses"]
    assert set(header_names(document, "GET", render, "200")) == {
        "ETag", "Content-Security-Policy", "X-Content-Type-Options", "Cache-Control",
        "X-Render-Cache"}
    assert "If-None-Match" in request_headers(document, "GET", render)
    not_modified = operation_for(document, "GET", render)["responses"]["304"]
    assert "content" not in not_modified and set(not_modified["headers"]) == {"ETag"}
    assert set(header_names(document, "GET", render, "503")) == {"Retry-After"}


def header_names(document: dict[str, Any], method: str, path: str, status: str) -> list[str]:
    response = operation_for(document, method, path)["responses"][status]
    return list(response.get("headers", {}))


def request_headers(document: dict[str, Any], method: str, path: str) -> list[str]:
    parameters = [resolved(document, p)
                  for p in operation_for(document, method, path)["parameters"]]
    return [p["name"] for p in parameters if p["in"] == "header"]


def resolved(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """A `#/components/...` reference replaced by what it names."""
    if "$ref" not in node:
        return node
    _, section, name = node["$ref"].removeprefix("#/").split("/")
    component: dict[str, Any] = document["components"][section][name]
    return component


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=[f"{c.method} {c.path}" for c in CALLS])
def test_success_responses_match_the_document(api: Api, document: dict[str, Any],
                                              call: Call) -> None:
    path = TENANT + call.path
    response = api.send(call.method, path, call.body)
    if "/render/" in path:
        assert response.status_code == 200, response.data[:300]
        assert response.mimetype == "image/svg+xml"
        return
    if "/bpmn/" in path:
        assert response.status_code == 200, response.data[:300]
        assert response.mimetype == "application/xml"
        return
    assert response.status_code == 200, response.get_json()
    validate(document, call.method, path, 200, response.get_json())


@sqlite_only
@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", f"{FACETS}/processes/views/detail/elements/nope", 404),
    ("GET", f"{FACETS}/processes/views/list/elements?$filter=x", 400),
    ("POST", f"{TENANT}/_api/release/{HIRE}/transitions/ReleasedToRequestToExpire", 409),
    ("GET", f"{TENANT}/_api/rest/diagram/{ORDER}/render/1033/nope", 400),
])
def test_error_responses_match_the_document(api: Api, document: dict[str, Any], method: str,
                                            path: str, status: int) -> None:
    url, _, query = path.partition("?")
    params = dict(p.split("=", 1) for p in query.split("&")) if query else {}
    response = api.get(url, **params) if method == "GET" else api.post(url)
    assert response.status_code == status
    validate(document, method, url, status, response.get_json())


def assert_conforms(document: dict[str, Any], method: str, path: str,
                    response: TestResponse) -> None:
    """What schemathesis checks, for answers it does not provoke: the status is
    documented, the headers it requires are there and valid, the body matches."""
    responses = operation_for(document, method, path)["responses"]
    documented = responses.get(str(response.status_code))
    assert documented is not None, (response.status_code, sorted(responses))
    for name, reference in documented.get("headers", {}).items():
        header = document["components"]["headers"][reference["$ref"].rpartition("/")[2]]
        value = response.headers.get(name)
        assert value is not None or not header["required"], f"{name} is missing"
        if value is not None:
            schema = header["schema"]
            jsonschema.validate(int(value) if schema["type"] == "integer" else value, schema)
    if "content" not in documented:
        assert response.data == b""
        return
    assert response.mimetype in documented["content"]
    if response.mimetype == "application/json":
        validate(document, method, path, response.status_code, response.get_json())


UPDATE = f"{FACETS}/processes/views/detail/elements"
CONTENT = f"{FACETS}/processes/views/diagram/elements/{DRAFT}/content"
ORDER_SVG = RENDER.format(ORDER, 1033, "horizontal")


def touch(attributes: dict[str, Any]) -> dict[str, Any]:
    return {"count": 1, "elements": [{"id": DRAFT, "attributes": attributes}]}


@sqlite_only
@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), [
    ("GET", f"{FACETS}/processes/views/detail/elements/{ORDER}", None, {}, 200),
    ("POST", UPDATE, touch({"authorNote": {"1033": "x" * 100_001}}), {}, 413),
    ("POST", UPDATE, touch({"name": {"1033": "nul \u0000"}}), {}, 400),
    ("POST", UPDATE, touch({"name": {"1033": "late"}}), {"If-Match": '"stale"'}, 412),
    ("POST", CONTENT, {"values": []}, {"If-Match": '"stale"'}, 412),
    ("GET", ORDER_SVG, None, {}, 200),
    ("GET", ORDER_SVG, None, {"If-None-Match": "*"}, 304),
], ids=["element ETag", "attribute too long", "NUL", "stale If-Match update",
        "stale If-Match content", "render headers", "render 304"])
def test_limit_and_condition_answers_match_the_document(
        api: Api, document: dict[str, Any], method: str, path: str, body: Any,
        headers: dict[str, str], status: int) -> None:
    response = api.client.open(path, method=method, json=body,
                               headers={**api.headers("administrator", None), **headers})
    assert response.status_code == status, response.data[:300]
    assert_conforms(document, method, path, response)


@sqlite_only
def test_a_render_past_its_deadline_matches_the_document(prepared: Prepared,
                                                         document: dict[str, Any]) -> None:
    # A diagram that takes seconds against a deadline of 0.2 s (a small one could beat a
    # deadline of a millisecond while a loaded machine keeps the request thread waiting).
    api = make_api(prepared, RENDER_TIMEOUT=0.2)
    path = RENDER.format(create_dense_diagram(api), 1033, "horizontal")
    response = api.get(path)
    assert response.status_code == 503, response.data[:300]
    assert_conforms(document, "GET", path, response)


@sqlite_only
def test_a_write_that_cannot_get_the_lock_matches_the_document(
        prepared: Prepared, document: dict[str, Any]) -> None:
    api = make_api(prepared, ENGINE_OPTIONS={"connect_args": {"timeout": 0.1}})
    holder = sqlite3.connect(prepared.config["DATABASE_URL"].removeprefix("sqlite:///"),
                             isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        response = api.post(UPDATE, touch({"authorNote": {"1033": "waits"}}))
    finally:
        holder.close()
    assert response.status_code == 503, response.data[:300]
    assert_conforms(document, "POST", UPDATE, response)


@sqlite_only
def test_rich_responses_match_the_document(api: Api, document: dict[str, Any]) -> None:
    path = f"{FACETS}/processes/views/detail/elements/{ORDER}"
    for params in ({"$resources": "rootPath,stereotype,attributes"},
                   {"$expandRelated": "executedBy"}):
        validate(document, "GET", path, 200, api.get(path, **params).get_json())
