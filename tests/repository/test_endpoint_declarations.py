"""One declaration per endpoint (repository/api/endpoint.py): the routes the application
answers are exactly the declared ones and exactly the documented ones, parameters are
described once and referred to, and the shared prelude keeps the contract's order of
checks."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask

from repository.api.endpoint import Resource
from repository.api.parameters import PATH
from repository.api.registry import RESOURCES
from repository.app import create_app
from repository.openapi import document
from tests.repository.conftest import FACETS, TENANT, Api, assert_error, sqlite_only
from tests.repository.endpoints import CALLS, UPDATE_BODY
from tests.repository.standin import ORDER
from tests.repository.test_openapi import operation_for

UNDOCUMENTED = {"/openapi.json", "/static/<path:filename>", "/"}  # "/": a redirect to the viewer
VIEWER = "viewer."  # the web page's files (docs/viewer.md), not operations of the API
SERVICE_PATHS = {"/_sysadmin/_admin/_api/rest/maintain",
                 "/_sysadmin/_admin/_api/rest/maintain/{pool}"}
UPDATE = f"{FACETS}/processes/views/detail/elements"
CONTENT = f"{FACETS}/processes/views/diagram/elements/{{}}/content"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    path = tmp_path_factory.mktemp("declarations") / "app.db"
    return create_app({"DATABASE_URL": f"sqlite:///{path}"})


def as_openapi(rule: str) -> str:
    return re.sub(r"<([^>]+)>", lambda m: "{" + PATH[m[1]].name + "}", rule)


def routed_operations(app: Flask) -> set[tuple[str, str]]:
    return {(as_openapi(rule.rule), method.lower())
            for rule in app.url_map.iter_rules()
            if rule.rule not in UNDOCUMENTED and not rule.endpoint.startswith(VIEWER)
            for method in rule.methods or () if method not in ("HEAD", "OPTIONS")}


def documented_operations() -> set[tuple[str, str]]:
    return {(path, method) for path, item in document()["paths"].items()
            for method in item if method != "parameters"}


def test_the_application_routes_exactly_the_documented_operations(app: Flask) -> None:
    assert routed_operations(app) == documented_operations()
    declared = {(as_openapi(rule), method.lower()) for resource in RESOURCES
                for declaration in resource.declarations for rule in declaration.rules
                for method in declaration.methods}
    assert declared == documented_operations()


def test_every_tenant_operation_has_a_call_in_the_sweep() -> None:
    """tests/repository/endpoints.py drives the auth, error and OpenAPI sweeps; an
    endpoint missing there would escape all three."""
    called = {(path, method) for call in CALLS for path, method in documented_operations()
              if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", path) + "/?",
                              TENANT + call.path) and call.method.lower() == method}
    assert documented_operations() - called == {(p, "get") for p in SERVICE_PATHS}


def references(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for value in node.values() for r in references(value)]
    if isinstance(node, list):
        return [r for value in node for r in references(value)]
    return []


def test_parameters_are_described_once_and_referred_to() -> None:
    paths = document()["paths"]
    listed = [p for item in paths.values() for operation in item.values()
              for p in (operation if isinstance(operation, list) else
                        operation["parameters"])]
    assert listed and all(set(p) == {"$ref"} for p in listed)
    used = {ref.rpartition("/")[2] for ref in references(paths)
            if ref.startswith("#/components/parameters/")}
    components = document()["components"]["parameters"]
    assert used == set(components)
    names = [(p["in"], p["name"], str(p["schema"].get("enum"))) for p in components.values()]
    assert len(names) == len(set(names))
    assert {"filter", "pageSize", "api-version-4.0", "If-Match", "facetId"} <= used


def test_a_rule_variable_without_a_described_parameter_fails_when_declared() -> None:
    with pytest.raises(ValueError, match="<nope>"):
        Resource("broken", __name__).endpoint("GET", "/<collection_id>/<nope>", summary="x",
                                              api_version="1.0", answer="Error")


def test_one_function_under_two_declarations_gets_two_endpoint_names() -> None:
    resource = Resource("twice", __name__)

    @resource.endpoint("GET", "/<pool>/a", summary="A", api_version="1.0", answer="Error",
                       service=True)
    @resource.endpoint("GET", "/<pool>/b", summary="B", api_version="1.0", answer="Error",
                       service=True)
    def both(_db: object, pool: str) -> str:
        return pool

    app = Flask(__name__)
    app.register_blueprint(resource.blueprint)
    assert {r.endpoint for r in app.url_map.iter_rules()} >= {"twice.both", "twice.both_2"}
    assert [d.summary for d in resource.declarations] == ["B", "A"]


@sqlite_only
def test_a_bad_body_is_refused_only_after_api_version_token_tenant_and_permission(
        api: Api) -> None:
    raw = b"{not json"
    message = assert_error(api.post_raw(UPDATE, raw, **{"api-version": "1.0"}), 400)["message"]
    assert "api-version" in message
    assert_error(api.post_raw(UPDATE, raw, role=None), 401)
    assert_error(api.post_raw(UPDATE.replace(TENANT, "/nobody/default"), raw), 403)
    assert_error(api.post_raw(UPDATE, raw, role="viewer"), 403)
    assert_error(api.post_raw(UPDATE.replace("processes", "nofacet"), raw), 404)
    assert_error(api.post_raw(UPDATE, raw), 400)
    assert api.post(UPDATE, UPDATE_BODY).status_code == 200


@sqlite_only
def test_content_create_looks_up_its_diagram_before_reading_the_body(api: Api) -> None:
    assert_error(api.post_raw(CONTENT.format("missing"), b"[1"), 404)
    assert_error(api.post_raw(CONTENT.format(ORDER), b"[1"), 400)


@sqlite_only
def test_content_create_checks_the_diagram_view_of_its_facet(api: Api) -> None:
    body = assert_error(api.post(CONTENT.format(ORDER).replace("processes", "users"),
                                 {"values": []}), 404)
    assert "has no view 'diagram'" in body["message"]


@sqlite_only
def test_the_facet_reaches_the_endpoint_by_its_catalog_entry(api: Api) -> None:
    views = api.get(f"{FACETS}/users/views").get_json()
    assert isinstance(views, dict)
    assert [v["elements"] for v in views["values"]] == [
        f"{TENANT}/_api/rest/facets/users/views/{view}/elements"
        for view in ("list", "tree", "detail")]
    assert_error(api.get(f"{FACETS}/processes/views/list/config/nope"), 404)
    assert operation_for(document(), "GET", f"{FACETS}/users/views")["summary"] == "List views"
