"""The viewer's files as the service serves them: content types, security and caching
headers, nothing outside the page, the catalog derived from repository.catalog. No
browser needed."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from repository import catalog
from repository.app import create_app
from repository.viewer import CATALOG_ASSET, FONT_ASSET, STATIC_ASSETS

SVG_NAMESPACE = "http://www.w3.org/2000/svg"


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'assets.db'}"})
    return app.test_client()


@pytest.mark.parametrize(("path", "content_type"), [
    ("/ui/", "text/html; charset=utf-8"),
    ("/ui", "text/html; charset=utf-8"),
    ("/ui/viewer.js", "text/javascript; charset=utf-8"),
    ("/ui/diagram.js", "text/javascript; charset=utf-8"),
    ("/ui/viewer.css", "text/css; charset=utf-8"),
    (f"/ui/{CATALOG_ASSET}", "application/json"),
    (f"/ui/{FONT_ASSET}", "font/ttf"),
])
def test_every_asset_has_its_type_and_the_security_headers(
        client: FlaskClient, path: str, content_type: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == content_type
    policy = response.headers["Content-Security-Policy"]
    assert policy.startswith("default-src 'self';") and "'unsafe-inline'" not in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["ETag"]


def test_an_unchanged_asset_answers_304(client: FlaskClient) -> None:
    etag = client.get("/ui/viewer.js").headers["ETag"]
    again = client.get("/ui/viewer.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""


@pytest.mark.parametrize("path", ["/ui/__init__.py", "/ui/..%2f__init__.py", "/ui/nothing.js",
                                  "/ui/viewer.js/x"])
def test_only_the_page_files_are_served(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.json is not None and response.json["type"] == "error"


def test_every_module_the_page_imports_is_served(client: FlaskClient) -> None:
    package = resources.files("repository.viewer")
    modules = sorted(entry.name for entry in package.iterdir() if entry.name.endswith(".js"))
    assert [name for name in modules if name not in STATIC_ASSETS] == []
    index = client.get("/ui/").get_data(as_text=True)
    assert '<script type="module" src="/ui/viewer.js"></script>' in index
    imported = {name for module in modules
                for name in re.findall(r'\bfrom "\./([\w.]+)";',
                                       (package / module).read_text(encoding="utf-8"))}
    assert imported == set(modules) - {"viewer.js"}  # the entry imports, nothing imports it
    for name in imported:
        assert client.get(f"/ui/{name}").headers["Content-Type"] == "text/javascript; charset=utf-8"


def test_the_page_loads_nothing_from_outside_the_service() -> None:
    for name in STATIC_ASSETS:
        text = (resources.files("repository.viewer") / name).read_text(encoding="utf-8")
        text = text.replace(SVG_NAMESPACE, "")  # a name, never fetched
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.IGNORECASE), name
        assert "<script>" not in text and " style=" not in text and "innerHTML" not in text


def test_the_catalog_document_is_the_service_catalog(client: FlaskClient) -> None:
    document = client.get(f"/ui/{CATALOG_ASSET}").json
    assert document is not None
    assert document["layouts"] == list(catalog.LAYOUT_KEYS)
    assert [facet["name"] for facet in document["facets"]] == list(catalog.FACETS)
    assert document["types"]["task"] == {
        "facet": "processes", "color": catalog.TYPES["task"].color,
        "displayNames": {"1031": "Aufgabe", "1033": "Task"}}
    assert document["types"]["orgUnit"]["facet"] == "organization"
    assert {culture["id"] for culture in document["cultures"]} == {catalog.GERMAN, catalog.ENGLISH}
    names = document["names"]
    assert names["transitions"]["InProcessToInReview"]["1033"] == "Submit for review"
    assert names["transitions"]["ReleasedToRequestToExpire"]["1031"] == "Ablauf beantragen"
    assert names["related"]["changedBy"]["1033"] == "changed by"
    assert names["selectionValues"]["processMaturity"]["isMeasured"]["1031"] == "gemessen"
    assert names["states"]["inProcess"]["1033"] == "in process"
    assert "state1" in document["internalAttributes"]


def test_the_catalog_says_whose_turn_it_is_in_each_release_state(client: FlaskClient) -> None:
    """An approver has no step in review (docs/contract.md: only moves into released or
    expired need ApproveElement, the others EditElement): the panel names the editor."""
    document = client.get(f"/ui/{CATALOG_ASSET}").json
    assert document is not None
    assert document["nextStepBy"] == {
        "inProcess": ["editor", "approver"], "inReview": ["editor"], "readyForQa": ["editor"],
        "readyForRelease": ["editor", "approver"], "released": ["editor"], "requestToExpire": ["approver"]}


def test_every_key_the_service_answers_with_has_words_in_both_cultures() -> None:
    from repository import auth, release

    tables = {
        "transitions": (catalog.TRANSITION_NAMES, {t.transition_id for t in release.TRANSITIONS}),
        "states": (catalog.STATE_DISPLAY_NAMES, {t.target for t in release.TRANSITIONS} | {"show"}),
        "roles": (catalog.ROLE_NAMES, set(auth.ROLE_PERMISSIONS)),
        "facets": (catalog.FACET_NAMES, set(catalog.FACETS)),
        "layouts": (catalog.LAYOUT_NAMES, set(catalog.LAYOUT_KEYS)),
        "attributes": (catalog.ATTRIBUTE_NAMES, set(catalog.SERVER_ATTRIBUTES) - {"state1"}
                       | {key for key, *_ in catalog.COMMON_ATTRIBUTES}),
    }
    for table, (names, keys) in tables.items():
        assert keys <= set(names), (table, keys - set(names))
        assert all(set(names[key]) >= {catalog.GERMAN, catalog.ENGLISH} for key in keys), table


def test_the_service_root_leads_to_the_viewer(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 302 and response.headers["Location"] == "/ui/"
