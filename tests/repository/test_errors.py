"""docs/api.md, "Errors" on every path: the error envelope, never a 500 or a traceback."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from repository.errors import ServiceUnavailable
from tests.repository.conftest import FACETS, TENANT, Api, assert_error, sqlite_only
from tests.repository.endpoints import CALLS, Call
from tests.repository.standin import ORDER

HOSTILE_IDS = ["..", "%2e%2e", "..%2F..%2Fetc%2Fpasswd", "%00", "'; DROP TABLE elements;--",
               "x" * 300, "%F0%9F%92%A5", "%25"]


@sqlite_only
@pytest.mark.parametrize("element_id", HOSTILE_IDS)
@pytest.mark.parametrize("suffix", ["", "/children", "/versions", "/attributes", "/info",
                                    "/attributes/name", "/related/owner"])
def test_hostile_ids_are_404_with_the_envelope(api: Api, element_id: str, suffix: str) -> None:
    response = api.get(f"{FACETS}/processes/views/detail/elements/{element_id}{suffix}")
    assert response.status_code in (404, 400), response.data[:300]
    assert_error(response, response.status_code)


@sqlite_only
@pytest.mark.parametrize("path", [
    "/nothing", TENANT, TENANT + "/_api", TENANT + "/_api/rest/facets",  # "/" leads to the viewer
    TENANT + "/_api/rest/facets/processes/views/list/elements/a/b/c/d",
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
])
def test_unknown_paths_are_404_envelopes(api: Api, path: str) -> None:
    assert_error(api.get(path), 404)


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=[f"{c.method} {c.path}" for c in CALLS])
def test_wrong_methods_are_405_envelopes(api: Api, call: Call) -> None:
    path = TENANT + call.path
    wrong = "PUT" if call.method == "DELETE" else "DELETE"
    response = api.client.open(path, method=wrong, headers=api.headers("administrator", None))
    assert_error(response, 405, render="/_api/rest/diagram/" in path)
    assert call.method in response.headers["Allow"].split(", ")


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=[f"{c.method} {c.path}" for c in CALLS])
def test_wrong_api_version_is_400_everywhere(api: Api, call: Call) -> None:
    path = TENANT + call.path
    assert_error(api.send(call.method, path, call.body, **{"api-version": "9.9"}), 400,
                 render="/_api/rest/diagram/" in path)


@sqlite_only
@pytest.mark.parametrize("params", [
    {"$filter": "((((((((((" * 50}, {"$filter": "name eq '" + "x" * 20000 + "'"},
    {"$select": "," * 100}, {"$expandRelated": "nothing"}, {"$pageSelectionKey": ""},
    {"$page": "1e9"}, {"$page": "-1"}, {"$pageSize": "99999999999999999999"},
    {"$filter": "name eq 'a' and " * 200 + "name eq 'b'"},
    {"$filter": "(" * 1000 + "name eq 'x'" + ")" * 1000}, {"$filter": "not " * 1500 + "id eq 'x'"},
    {"$filter": "x" * 9000}, {"$page": str(10**12)}, {"$page": "999999999"},
    {"$filter": "priority gt 1" + "0" * 400},
])
def test_odd_query_parameters_never_500(api: Api, params: dict[str, str]) -> None:
    response = api.get(FACETS + "/processes/views/list/elements", **params)
    assert response.status_code in (200, 400), response.data[:300]
    if response.status_code == 400:
        assert_error(response, 400)


@sqlite_only
@pytest.mark.parametrize("body", [
    b"[]", b"1", b'"x"', b'{"count": "1", "elements": []}', b'{"elements": [null]}',
    b'{"elements": [{"id": 5}]}', b'{"elements": [{"attributes": {"name": {"1033": 1e999}}}]}',
    b'{"elements": [{"type": "task", "attributes": {"": {"1033": "x"}}}]}',
    b'{"elements": [{"type": "task", "related": {"owner": [null]}}]}',
    b'{"elements": [{"type": "task", "children": "abc"}]}',
    b'{"elements": [{"type": "task", "content": [{}]}]}',
    b'{"elements": [{"type": ["task"]}]}',
    b'{"elements": [{"type": "task", "attributes": {"name": {"99999999999": "x"}}}]}',
    b'{"elements": [{"type": "task", "attributes": {"n": {"127": 1' + b"0" * 400 + b'}}}]}',
    b"[" * 100000 + b"]" * 100000,
])
def test_malformed_update_bodies_are_400(api: Api, body: bytes) -> None:
    response = api.post_raw(FACETS + "/processes/views/detail/elements", body, role="editor")
    assert_error(response, 400)


def test_errors_never_leak_internals(api: Api) -> None:
    body = assert_error(api.get(f"{FACETS}/processes/views/detail/elements/{ORDER}",
                                **{"$filter": "x eq"}), 400)
    text = str(body)
    assert "sqlalchemy" not in text.lower() and "File \"" not in text


@sqlite_only
def test_a_commit_the_database_does_not_confirm_is_503_not_500(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 18: a PostgreSQL connection lost during COMMIT answered 500. The store turns
    a lost connection into ServiceUnavailable (repository/store/db.py); the commit that
    meets it answers 503 with Retry-After and does not claim that nothing was written."""
    def lost(_session: Session) -> None:
        raise ServiceUnavailable("The database cannot be reached", retry_after=2)

    monkeypatch.setattr(Session, "commit", lost)
    body = {"count": 1, "elements": [{"type": "task", "attributes": {"name": {"1033": "x"}}}]}
    response = api.post(f"{FACETS}/processes/views/detail/elements", body, role="editor")
    refusal = assert_error(response, 503)
    assert response.headers["Retry-After"] == "2"
    assert "Idempotency-Key" in refusal["message"]
    assert "nothing was written" not in refusal["message"]
