"""/openapi.json describes every endpoint, and real responses validate against it."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest

from repository.app import create_app
from tests.repository.conftest import FACETS, TENANT, Api, sqlite_only
from tests.repository.endpoints import CALLS, Call
from tests.repository.standin import HIRE, ORDER


def to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema → JSON Schema: `nullable` becomes a null alternative."""
    if isinstance(node, list):
        return [to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    converted = {k: to_json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [{"type": "null"}, converted]}
    return converted


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("openapi") / "doc.db"
    response = create_app({"DATABASE_URL": f"sqlite:///{path}"}).test_client().get(
        "/openapi.json")
    assert response.status_code == 200
    return response.json  # type: ignore[no-any-return]


def operation_for(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    for template, item in document["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "/?$"
        if re.match(pattern, path) and method.lower() in item:
            return item[method.lower()]  # type: ignore[no-any-return]
    raise AssertionError(f"{method} {path} is not in /openapi.json")


def validate(document: dict[str, Any], method: str, path: str, status: int,
             body: Any) -> None:
    operation = operation_for(document, method, path.split("?")[0])
    media = operation["responses"][str(status)]["content"]
    schema = next(iter(media.values()))["schema"]
    root = to_json_schema({**schema, "components": document["components"]})
    jsonschema.validate(body, root)


def test_document_is_openapi_3_with_every_endpoint(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.")
    for call in CALLS:
        operation_for(document, call.method, TENANT + call.path)
    operation_for(document, "GET", "/_sysadmin/_admin/_api/rest/maintain")
    operation_for(document, "GET", "/_sysadmin/_admin/_api/rest/maintain/demo.default")


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=[f"{c.method} {c.path}" for c in CALLS])
def test_success_responses_match_the_document(api: Api, document: dict[str, Any],
                                              call: Call) -> None:
    path = TENANT + call.path
    response = api.get(path) if call.method == "GET" else api.post(path, call.body)
    if "/render/" in path:
        assert response.status_code in (200, 400)
        if response.status_code == 400:
            validate(document, call.method, path, 400, response.json)
        return
    assert response.status_code == 200, response.json
    validate(document, call.method, path, 200, response.json)


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
    validate(document, method, url, status, response.json)


@sqlite_only
def test_rich_responses_match_the_document(api: Api, document: dict[str, Any]) -> None:
    path = f"{FACETS}/processes/views/detail/elements/{ORDER}"
    for params in ({"$resources": "rootPath,stereotype,attributes"},
                   {"$expandRelated": "executedBy"}):
        validate(document, "GET", path, 200, api.get(path, **params).json)
