"""The render cache with Redis: configuration, outages, namespaces, and workers sharing
renders (each test in its own key namespace; skipped without ELREPO_TEST_REDIS_URL)."""
from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from repository import render_cache
from repository.app import create_app
from repository.cli import main
from repository.render_cache import (
    KEY_PREFIX,
    MemoryRenderCache,
    RedisRenderCache,
)
from repository.settings import REDIS_URL_ENV
from tests.repository.conftest import Prepared, assert_error
from tests.repository.standin import ORDER
from tests.repository.test_render_cache import (
    ORDER_SVG,
    UNREACHABLE_REDIS,
    engine_svg,
    maintain,
    make_api,
)


def test_memory_is_the_default_and_redis_comes_from_config_or_environment(
        prepared: Prepared, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REDIS_URL_ENV, raising=False)
    apps = [create_app(prepared.config)]
    assert isinstance(apps[0].extensions["elrepo.render_cache"], MemoryRenderCache)
    apps.append(create_app({**prepared.config, "REDIS_URL": UNREACHABLE_REDIS}))
    monkeypatch.setenv(REDIS_URL_ENV, UNREACHABLE_REDIS)
    apps.append(create_app(prepared.config))
    for app in apps[1:]:
        cache = app.extensions["elrepo.render_cache"]
        assert isinstance(cache, RedisRenderCache)
        assert cache.prefix == KEY_PREFIX + "default:"
        assert cache.ttl_seconds == 24 * 60 * 60
    for app in apps:
        app.extensions["elrepo.engine"].dispose()


@pytest.mark.parametrize("prepared", ["sqlite"], indirect=True)
def test_unreachable_redis_still_renders_and_warns_once(
        prepared: Prepared, caplog: pytest.LogCaptureFixture) -> None:
    api = make_api(prepared, REDIS_URL=UNREACHABLE_REDIS)
    with caplog.at_level(logging.WARNING, logger=render_cache.__name__):
        responses = [api.get(ORDER_SVG), api.get(ORDER_SVG)]
    assert [r.status_code for r in responses] == [200, 200]
    assert {r.headers["X-Render-Cache"] for r in responses} == {"miss"}
    assert all(r.data == engine_svg(api, ORDER) for r in responses)
    assert len(caplog.records) == 1
    assert "rendering without the cache" in caplog.records[0].getMessage()
    api.app.extensions["elrepo.engine"].dispose()


def test_redis_outage_pauses_redis_and_warns_once_per_outage(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "demo.default:" + "0" * 64
    paused = RedisRenderCache(UNREACHABLE_REDIS)
    retrying = RedisRenderCache(UNREACHABLE_REDIS, retry_seconds=0)
    with caplog.at_level(logging.WARNING, logger=render_cache.__name__):
        assert paused.get(key) is None
        attempts: list[str] = []
        monkeypatch.setattr(paused._client, "set", lambda *_, **__: attempts.append("set"))
        paused.put(key, b"<svg/>")
        assert paused.get(key) is None and attempts == []  # within the pause: no attempt
        for _ in range(3):
            assert retrying.get(key) is None
            retrying.put(key, b"<svg/>")
        assert retrying.clear("demo.default") == 0
    assert len(caplog.records) == 2  # one per cache, however often Redis failed
    for cache in (paused, retrying):
        cache.close()


def test_serve_takes_redis_from_option_or_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import repository.server

    started: list[str | None] = []
    monkeypatch.setattr(repository.server, "run",
                        lambda **options: started.append(options["settings"].redis_url))
    monkeypatch.delenv(REDIS_URL_ENV, raising=False)
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    assert main(["serve", "--port", "0", "--db", db, "--no-demo"]) == 0
    assert main(["serve", "--port", "0", "--db", db, "--no-demo", "--redis", UNREACHABLE_REDIS]) == 0
    assert "Redis does not answer now" in capsys.readouterr().err
    monkeypatch.setenv(REDIS_URL_ENV, UNREACHABLE_REDIS)
    assert main(["serve", "--port", "0", "--db", db, "--no-demo"]) == 0
    assert started == [None, UNREACHABLE_REDIS, UNREACHABLE_REDIS]


def test_serve_refuses_an_unusable_redis_url(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "never.db"
    assert main(["serve", "--port", "0", "--db", f"sqlite:///{db}", "--redis", "http://x"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("elrepo: render cache:") and error.count("\n") == 1
    assert not db.exists()


# ---- Redis ----------------------------------------------------------------------------

@pytest.fixture
def redis_cache(redis_url: str, namespace: str) -> Iterator[RedisRenderCache]:
    cache = RedisRenderCache(redis_url, namespace, ttl_seconds=120)
    yield cache
    cache.clear()
    cache.close()


def redis_client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)


def test_redis_round_trip_with_prefix_and_ttl(redis_cache: RedisRenderCache, redis_url: str,
                                              namespace: str) -> None:
    key = "demo.default:" + "a" * 64
    assert redis_cache.get(key) is None
    redis_cache.put(key, "<svg>ü</svg>".encode())
    assert redis_cache.get(key) == "<svg>ü</svg>".encode()
    client = redis_client(redis_url)
    try:
        stored = f"elrepo:render:{namespace}:{key}"
        assert client.exists(stored) == 1 and 0 < client.ttl(stored) <= 120
    finally:
        client.close()


def test_redis_clear_deletes_only_its_namespace_and_pool(redis_cache: RedisRenderCache,
                                                         redis_url: str) -> None:
    neighbour = RedisRenderCache(redis_url, f"{uuid.uuid4().hex[:12]}-neighbour")
    client = redis_client(redis_url)
    foreign = f"not-elrepo:{uuid.uuid4().hex}"
    try:
        client.set(foreign, b"keep", ex=120)
        for n in range(3):
            redis_cache.put(f"demo.default:{n}", b"<svg/>")
        redis_cache.put("demo.default2:0", b"<svg/>")
        redis_cache.put("other.default:0", b"<svg/>")
        neighbour.put("demo.default:0", b"<svg/>")
        assert redis_cache.clear("demo.default") == 3
        assert redis_cache.get("demo.default2:0") == b"<svg/>"
        assert redis_cache.clear() == 2
        assert neighbour.get("demo.default:0") == b"<svg/>"
        assert client.get(foreign) == b"keep"
    finally:
        neighbour.clear()
        neighbour.close()
        client.delete(foreign)
        client.close()


def test_workers_share_renders_through_redis(prepared: Prepared, redis_url: str,
                                             namespace: str, service_token: str) -> None:
    config = {"REDIS_URL": redis_url, "RENDER_CACHE_NAMESPACE": namespace}
    first, second = make_api(prepared, **config), make_api(prepared, **config)
    try:
        miss = first.get(ORDER_SVG)
        hit = second.get(ORDER_SVG, role="viewer")
        assert (miss.headers["X-Render-Cache"], hit.headers["X-Render-Cache"]) == (
            "miss", "hit")
        assert miss.data == hit.data == engine_svg(first, ORDER)
        assert_error(second.get(ORDER_SVG, token=second.other_tokens["viewer"]), 403,
                     render=True)
        maintain(second, "demo.default")
        assert first.get(ORDER_SVG).headers["X-Render-Cache"] == "miss"
    finally:
        for api in (first, second):
            api.app.extensions["elrepo.render_cache"].clear()
            api.app.extensions["elrepo.render_cache"].close()
            api.app.extensions["elrepo.engine"].dispose()

