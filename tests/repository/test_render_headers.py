"""Render answers (docs/contract.md, "Limits and robustness"): security headers, a strong content-addressed
ETag and 304 on If-None-Match."""

from __future__ import annotations

import pytest
from werkzeug.test import TestResponse

from repository import render_cache
from tests.repository.conftest import TENANT, Api, Prepared, assert_error, sqlite_only
from tests.repository.standin import CREDIT, ORDER
from tests.repository.test_render_cache import ORDER_SVG, RENDER, RecordingCache, make_api

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; font-src data:",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-cache",
}


def assert_secured(response: TestResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value, name


def etag_of(api: Api, path: str = ORDER_SVG) -> str:
    response = api.get(path)
    assert response.status_code == 200, response.data[:300]
    return response.headers["ETag"]


@sqlite_only
def test_render_answers_carry_security_headers_and_a_strong_etag(api: Api) -> None:
    response = api.get(ORDER_SVG)
    assert response.status_code == 200
    assert_secured(response)
    etag = response.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) > 10  # strong: no W/
    assert api.get(ORDER_SVG, role="viewer").headers["ETag"] == etag


@sqlite_only
def test_render_refusals_carry_the_security_headers_too(api: Api) -> None:
    for path, status in ((RENDER.format("ghost", 1033, "horizontal"), 404),
                         (RENDER.format(ORDER, 1033, "spiral"), 400)):
        response = api.get(path)
        assert response.status_code == status
        assert_secured(response)
    assert_secured(api.get(ORDER_SVG, role=None))


@sqlite_only
@pytest.mark.parametrize("condition", ["{etag}", 'W/{etag}', '"stale", {etag}', "*"])
def test_if_none_match_answers_304_with_the_same_etag(api: Api, condition: str) -> None:
    etag = etag_of(api)
    response = api.client.get(ORDER_SVG, headers={
        **api.headers("viewer", None), "If-None-Match": condition.format(etag=etag)})
    assert response.status_code == 304
    assert response.data == b""
    assert response.headers["ETag"] == etag
    assert_secured(response)


@sqlite_only
def test_a_matching_etag_is_answered_without_the_cache_or_a_render(
        prepared: Prepared) -> None:
    recording = RecordingCache()
    cached = make_api(prepared, RENDER_CACHE=recording)
    etag = etag_of(cached)
    calls = len(recording.calls)
    response = cached.client.get(ORDER_SVG, headers={
        **cached.headers("viewer", None), "If-None-Match": etag})
    assert response.status_code == 304 and len(recording.calls) == calls


def test_etag_changes_with_the_elements_layout_culture_and_engine(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    before = etag_of(api)
    others = {etag_of(api, RENDER.format(ORDER, 1031, "horizontal")),
              etag_of(api, RENDER.format(ORDER, 1033, "vertical"))}
    with monkeypatch.context() as patch:
        patch.setattr(render_cache, "engine_version", lambda: "another engine")
        others.add(etag_of(api))
    assert before not in others and len(others) == 3
    response = api.post(TENANT + "/_api/rest/facets/processes/views/detail/elements/", {
        "count": 1, "elements": [{"id": CREDIT, "attributes": {"name": {"1033": "Vetting"}}}]},
        role="editor")
    assert response.status_code == 200, response.get_json()
    after = api.client.get(ORDER_SVG, headers={**api.headers("viewer", None),
                                               "If-None-Match": before})
    assert after.status_code == 200 and b"Vetting" in after.data
    assert after.headers["ETag"] not in {before, *others}


@sqlite_only
def test_a_non_ascii_digit_culture_is_a_400_render_error(api: Api) -> None:
    for culture in ("\u00b2", "\u0661\u0660\u0663\u0663", "99999999999"):  # '²', ١٠٣٣
        response = api.get(RENDER.format(ORDER, culture, "horizontal"))
        assert_error(response, 400, render=True)
        assert_secured(response)
