"""The render cache: memory LRU, keys from the drawn state (invalidated by every kind of
change a drawing shows), the render endpoint with the
cache (hit/miss, identical bytes, permissions first), maintenance, and Redis — against a
real server when ELREPO_TEST_REDIS_URL is set, each test in its own namespace."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from layouts.base import LayoutOptions
from layouts.sketch import Sketch
from renderer import identity
from repository.api import render as render_api
from repository.app import create_app
from repository.errors import InvalidInput
from repository.fixtures import diagram_fixture
from repository.render_cache import (
    DrawnState,
    MemoryRenderCache,
    render_key,
)
from repository.store.sketches import recorded
from tests.repository.conftest import (
    SERVICE_TOKEN,
    TENANT,
    Api,
    Prepared,
    assert_error,
    recorded_statements,
    sqlite_only,
)
from tests.repository.standin import CREDIT, FINANCE, ORDER

UNREACHABLE_REDIS = "redis://127.0.0.1:1/0"
RENDER = TENANT + "/_api/rest/diagram/{}/render/{}/{}"
ORDER_SVG = RENDER.format(ORDER, 1033, "horizontal")
MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"


class RecordingCache:
    """A memory cache that records every call, to see when the endpoint touches it."""

    def __init__(self) -> None:
        self.inner = MemoryRenderCache()
        self.calls: list[tuple[str, str | None]] = []

    def get(self, key: str) -> bytes | None:
        self.calls.append(("get", key))
        return self.inner.get(key)

    def put(self, key: str, svg: bytes) -> None:
        self.calls.append(("put", key))
        self.inner.put(key, svg)

    def clear(self, pool: str | None = None) -> int:
        self.calls.append(("clear", pool))
        return self.inner.clear(pool)


def make_api(prepared: Prepared, **config: Any) -> Api:
    """An app on the prepared database, which knows the service token (None: nobody has
    it), with `config` on top."""
    app = create_app({"SERVICE_TOKEN": SERVICE_TOKEN, **prepared.config, **config})
    return Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)


@pytest.fixture
def recording() -> RecordingCache:
    return RecordingCache()


@pytest.fixture
def cached(prepared: Prepared, recording: RecordingCache) -> Iterator[Api]:
    """The API with a recording memory cache (never ELREPO_REDIS_URL of the caller)."""
    api = make_api(prepared, RENDER_CACHE=recording)
    yield api
    api.app.extensions["elrepo.engine"].dispose()


def maintain(api: Api, pool: str | None = None) -> Any:
    response = api.client.get(MAINTAIN + (f"/{pool}" if pool else ""),
                              headers={"service-auth-token": SERVICE_TOKEN})
    assert response.status_code == 200, response.data
    return response.get_json()


def engine_svg(api: Api, diagram_id: str, layout: str = "horizontal",
               culture: int = 1033) -> bytes:
    """What the engine draws for the stored diagram now, with no cache anywhere: in a
    flow layout, from the sketch the service keeps for it (repository/store/sketches.py;
    none before its first render)."""
    from renderer.api import render

    with api.store() as store:
        fixture = diagram_fixture(store, store.reads.element(diagram_id))
        version_pk, generation = store.reads.newest_version_pk(diagram_id), store.reads.content_generation()
        record = recorded(store.session, store.tenant.pk, diagram_id, version_pk, layout, culture)
    sketch = record.sketch_for(version_pk, generation) if record else ""
    options = LayoutOptions(sketch=Sketch.from_json(sketch)) if sketch else None
    return render(fixture, layout, culture, options).encode("utf-8")


# ---- memory cache ---------------------------------------------------------------------

def test_memory_cache_evicts_least_recently_used_by_bytes() -> None:
    cache = MemoryRenderCache(max_bytes=10)
    cache.put("p.s:a", b"aaaa")
    cache.put("p.s:b", b"bbbb")
    assert cache.get("p.s:a") == b"aaaa"  # now b is the least recently used
    cache.put("p.s:c", b"cccc")
    assert cache.get("p.s:b") is None
    assert cache.get("p.s:a") == b"aaaa" and cache.get("p.s:c") == b"cccc"
    assert cache.total_bytes == 8 and len(cache) == 2
    cache.put("p.s:a", b"aaaaaaa")  # replacing counts the new size only, evicts c
    assert cache.total_bytes == 7 and cache.get("p.s:c") is None
    cache.put("p.s:huge", b"x" * 11)  # larger than the bound: not stored, nothing evicted
    assert cache.get("p.s:huge") is None and cache.get("p.s:a") == b"aaaaaaa"


def test_memory_cache_default_bound_is_64_mib() -> None:
    assert MemoryRenderCache().max_bytes == 64 * 1024 * 1024


def test_memory_cache_clears_one_pool_or_all() -> None:
    cache = MemoryRenderCache()
    for key in ("demo.default:1", "demo.default:2", "demo.default2:1", "other.default:1"):
        cache.put(key, b"<svg/>")
    assert cache.clear("demo.default") == 2
    assert cache.get("demo.default2:1") == b"<svg/>"  # a pool id that merely starts alike
    assert cache.clear() == 2 and cache.total_bytes == 0 and len(cache) == 0
    with pytest.raises(ValueError):
        cache.clear("demo:default")


def test_memory_cache_keeps_its_accounting_under_concurrent_use() -> None:
    cache = MemoryRenderCache(max_bytes=4000)
    wrong: list[tuple[str, bytes]] = []

    def value_of(key: str) -> bytes:
        return key.encode() * (1 + int(key.rsplit(":", 1)[1]) % 7)

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(2000):
            key = f"demo.default:{rng.randrange(200)}"
            if rng.random() < 0.5:
                cache.put(key, value_of(key))
            else:
                got = cache.get(key)
                if got is not None and got != value_of(key):
                    wrong.append((key, got))
            if rng.random() < 0.01:
                cache.clear("demo.default")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    held = {key: cache.get(key) for key in (f"demo.default:{n}" for n in range(200))}
    assert cache.total_bytes == sum(len(v) for v in held.values() if v is not None)
    assert cache.total_bytes <= cache.max_bytes


# ---- keys -----------------------------------------------------------------------------

def test_key_covers_tenant_diagram_generation_request_and_default_culture() -> None:
    drawn = DrawnState("d", 7, 3)
    key = render_key("demo", "default", drawn, "horizontal", 1033)
    assert key == render_key("demo", "default", DrawnState("d", 7, 3), "horizontal", 1033)
    assert key.startswith("demo.default:") and len(key.split(":")[1]) == 64
    others = {render_key("demo", "default", DrawnState("e", 7, 3), "horizontal", 1033),
              render_key("demo", "default", DrawnState("d", 8, 3), "horizontal", 1033),
              render_key("demo", "default", DrawnState("d", 7, 4), "horizontal", 1033),
              render_key("demo", "other", drawn, "horizontal", 1033),
              render_key("demo", "default", drawn, "vertical", 1033),
              render_key("demo", "default", drawn, "horizontal", 1031),
              render_key("demo", "default", drawn, "horizontal", 1033, default_culture=1031)}
    assert len(others) == 7 and key not in others


def test_engine_version_names_the_distribution_and_the_engine_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import version

    assert f"elrepo={version('elrepo')}" in identity.engine_version()
    source = identity.source_digest()
    assert f"engine-source={source}" in identity.engine_version() and len(source) == 16
    for package in ("renderer", "layouts"):  # a copy of the engine with one line changed
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "layouts" / "step.py").write_text("GAP = 10\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for package in ("renderer", "layouts"):
        monkeypatch.delitem(sys.modules, package, raising=False)
    before = identity.source_digest()
    (tmp_path / "layouts" / "step.py").write_text("GAP = 12\n")
    assert identity.source_digest() != before


# ---- the render endpoint with the cache -------------------------------------------------

def test_second_render_is_a_hit_with_the_same_bytes(cached: Api,
                                                    recording: RecordingCache) -> None:
    first = cached.get(ORDER_SVG)
    second = cached.get(ORDER_SVG, role="viewer")
    assert first.status_code == second.status_code == 200
    assert first.headers["X-Render-Cache"] == "miss"
    assert second.headers["X-Render-Cache"] == "hit"
    assert first.data == second.data == engine_svg(cached, ORDER)
    assert first.mimetype == second.mimetype == "image/svg+xml"
    assert first.headers["Content-Length"] == second.headers["Content-Length"]
    assert [call for call, _ in recording.calls] == ["get", "put", "get"]


def test_layout_and_culture_are_separate_entries(cached: Api) -> None:
    assert cached.get(ORDER_SVG).headers["X-Render-Cache"] == "miss"
    german = cached.get(RENDER.format(ORDER, 1031, "horizontal"))
    vertical = cached.get(RENDER.format(ORDER, 1033, "vertical"))
    assert german.headers["X-Render-Cache"] == vertical.headers["X-Render-Cache"] == "miss"
    assert german.data == engine_svg(cached, ORDER, culture=1031)
    assert vertical.data == engine_svg(cached, ORDER, layout="vertical")


def test_a_renamed_element_is_a_miss_and_a_new_picture(cached: Api) -> None:
    before = cached.get(ORDER_SVG)
    assert b"Credit check" in before.data
    response = cached.post(TENANT + "/_api/rest/facets/processes/views/detail/elements/", {
        "count": 1, "elements": [{"id": CREDIT, "attributes": {"name": {"1033": "Vetting"}}}]},
        role="editor")
    assert response.status_code == 200, response.get_json()
    after = cached.get(ORDER_SVG)
    assert after.headers["X-Render-Cache"] == "miss"
    assert b"Vetting" in after.data and b"Credit check" not in after.data
    assert after.data == engine_svg(cached, ORDER)
    assert cached.get(ORDER_SVG).headers["X-Render-Cache"] == "hit"


def test_a_hit_reads_the_diagram_and_the_generation_only(
        cached: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cached.get(ORDER_SVG).headers["X-Render-Cache"] == "miss"

    def no_fixture(*_: Any) -> dict[str, Any]:
        raise AssertionError("a hit must not build the fixture")

    monkeypatch.setattr(render_api, "diagram_fixture", no_fixture)
    with recorded_statements(cached.app) as statements:
        # Authentication, then the diagram's lookup, which finds none.
        assert cached.get(RENDER.format("ghost", 1033, "horizontal")).status_code == 404
        prelude = len(statements)
        statements.clear()
        hit = cached.get(ORDER_SVG)
    assert hit.headers["X-Render-Cache"] == "hit"
    # The 404's one read is the element lookup the hit makes too; then the generation and
    # the diagram's sketch record (what the key names of the drawing's previous one).
    key_reads = statements[prelude - 1:]
    assert len(key_reads) == 3, key_reads
    assert "content_generations" in key_reads[1][0] and "layout_sketches" in key_reads[2][0]


def change_and_expect_a_new_picture(cached: Api, path: str, change: Any,
                                    shown: bytes, gone: bytes | None = None) -> None:
    """`path` renders, then `change()` (a write through the API) makes its next render a
    miss showing `shown` (instead of `gone`), the same as a fresh render; then a hit."""
    before = cached.get(path)
    assert before.status_code == 200 and shown not in before.data
    assert gone is None or gone in before.data
    assert cached.get(path).headers["X-Render-Cache"] == "hit"
    response = change()
    assert response.status_code == 200, response.get_json()
    after = cached.get(path)
    assert after.headers["X-Render-Cache"] == "miss"
    assert after.headers["ETag"] != before.headers["ETag"]
    assert shown in after.data and (gone is None or gone not in after.data)
    layout = path.rsplit("/", 1)[1]
    assert after.data == engine_svg(cached, ORDER, layout=layout)
    assert cached.get(path).headers["X-Render-Cache"] == "hit"


def test_a_content_change_is_a_new_picture(cached: Api) -> None:
    change_and_expect_a_new_picture(cached, ORDER_SVG, lambda: cached.post(
        TENANT + f"/_api/rest/facets/processes/views/diagram/elements/{ORDER}/content",
        {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                                   "element": {"type": "task", "attributes": {
                                       "name": {"1033": "Invoice customer"}}}}]},
        role="editor"), shown=b"Invoice customer")


def test_a_renamed_swimlane_org_unit_is_a_new_picture(cached: Api) -> None:
    """An org unit is no shape: it is drawn as the lane of the shapes it executes."""
    change_and_expect_a_new_picture(
        cached, RENDER.format(ORDER, 1033, "verticalSwimlane"), lambda: cached.post(
            TENANT + "/_api/rest/facets/organization/views/detail/elements/", {
                "count": 1, "elements": [{"id": FINANCE,
                                          "attributes": {"name": {"1033": "Accounting"}}}]},
            role="editor"), shown=b"Accounting", gone=b"Finance")


def test_a_changed_default_culture_is_a_new_picture(cached: Api) -> None:
    before = cached.get(ORDER_SVG)
    with cached.store() as store:
        store.tenant.default_culture = 1031
        store.session.commit()
    after = cached.get(ORDER_SVG)
    assert after.headers["X-Render-Cache"] == "miss"
    assert after.headers["ETag"] != before.headers["ETag"]


@sqlite_only
def test_permissions_are_checked_before_the_cache(cached: Api,
                                                  recording: RecordingCache) -> None:
    assert cached.get(ORDER_SVG).status_code == 200
    touched = len(recording.calls)
    assert_error(cached.get(ORDER_SVG, token=cached.other_tokens["viewer"]), 403, render=True)
    assert_error(cached.get(ORDER_SVG, role=None), 401, render=True)
    assert_error(cached.get(ORDER_SVG, token="not-a-token"), 401, render=True)
    assert_error(cached.get(RENDER.format("ghost", 1033, "horizontal")), 404, render=True)
    assert_error(cached.get(RENDER.format(ORDER, 1033, "spiral")), 400, render=True)
    assert len(recording.calls) == touched
    assert cached.get(ORDER_SVG, role="viewer").headers["X-Render-Cache"] == "hit"


@sqlite_only
def test_failed_renders_are_not_cached(cached: Api, recording: RecordingCache,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any) -> str:
        raise InvalidInput("layout refused this input")

    with monkeypatch.context() as patch:
        patch.setattr(render_api, "render_fixture", refuse)
        assert_error(cached.get(ORDER_SVG), 400, render=True)
    assert [call for call, _ in recording.calls] == ["get"]
    assert cached.get(ORDER_SVG).headers["X-Render-Cache"] == "miss"


def test_maintenance_drops_the_pools_renders(cached: Api, recording: RecordingCache,
                                             service_token: str) -> None:
    cached.get(ORDER_SVG)
    recording.inner.put("other.default:" + "0" * 64, b"<svg/>")
    maintain(cached, "demo.default")
    assert ("clear", "demo.default") in recording.calls
    assert cached.get(ORDER_SVG).headers["X-Render-Cache"] == "miss"
    assert recording.inner.get("other.default:" + "0" * 64) == b"<svg/>"
    maintain(cached)
    assert len(recording.inner) == 0


@sqlite_only
def test_openapi_documents_the_cache_header(api: Api) -> None:
    document = api.get("/openapi.json", role=None).get_json()
    assert isinstance(document, dict)
    render = document["paths"]["/{collectionId}/{storageId}/_api/rest/diagram/{diagramId}/"
                               "render/{cultureId}/{layoutKey}"]
    header = render["get"]["responses"]["200"]["headers"]["X-Render-Cache"]
    if "$ref" in header:  # "#/components/headers/<name>"
        header = document["components"]["headers"][header["$ref"].rpartition("/")[2]]
    assert header["schema"]["enum"] == ["hit", "miss"]


# ---- configuration and elrepo serve ---------------------------------------------------
