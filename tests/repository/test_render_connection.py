"""A render or BPMN export reads what it draws, then gives its database connection back
before it waits on the render pool (issue 18, item 13): a render of up to the whole
deadline held a pooled connection and an open transaction, so renders alone could take
every connection of a worker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from repository.render_cache import MemoryRenderCache
from repository.render_pool import RenderPool
from tests.repository.conftest import Api, Prepared
from tests.repository.standin import ORDER
from tests.repository.test_bpmn_export_deadline import BPMN
from tests.repository.test_render_cache import ORDER_SVG, make_api

DRAWINGS = [ORDER_SVG, BPMN.format(ORDER, 1033, "vertical")]


def wrap_pool_runs(monkeypatch: pytest.MonkeyPatch, api: Api,
                   before: Callable[[], None]) -> None:
    """Calls `before` in the request, as each render or export reaches the app's pool."""
    pool: RenderPool = api.app.extensions["elrepo.render_pool"]
    run = pool._run

    def wrapped(*arguments: Any, **keywords: Any) -> Any:
        before()
        return run(*arguments, **keywords)

    monkeypatch.setattr(pool, "_run", wrapped)


@pytest.mark.parametrize("path", DRAWINGS)
def test_a_render_holds_no_database_connection_while_it_renders(
        prepared: Prepared, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    api = make_api(prepared, RENDER_CACHE=MemoryRenderCache(), RENDER_TIMEOUT=60)
    engine = api.app.extensions["elrepo.engine"]
    checked_out: list[int] = []
    wrap_pool_runs(monkeypatch, api, lambda: checked_out.append(engine.pool.checkedout()))
    try:
        response = api.get(path)
        assert response.status_code == 200, response.data[:300]
        assert checked_out == [0]
    finally:
        engine.dispose()


@pytest.mark.parametrize("path", DRAWINGS)
def test_with_one_connection_another_request_reads_while_a_render_runs(
        prepared: Prepared, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    api = make_api(prepared, RENDER_CACHE=MemoryRenderCache(), RENDER_TIMEOUT=60,
                   ENGINE_OPTIONS={**prepared.config.get("ENGINE_OPTIONS", {}),
                                   "pool_size": 1, "max_overflow": 0, "pool_timeout": 2})
    rendering, finish = threading.Event(), threading.Event()

    def hold() -> None:
        rendering.set()
        finish.wait(timeout=30)

    wrap_pool_runs(monkeypatch, api, hold)
    answers: list[tuple[int, bytes]] = []

    def draw() -> None:
        response = api.get(path)
        answers.append((response.status_code, response.data[:300]))

    drawing = threading.Thread(target=draw)
    drawing.start()
    try:
        assert rendering.wait(timeout=30), answers
        assert api.element(ORDER)["id"] == ORDER  # before: no connection for 2 s, 503
    finally:
        finish.set()
        drawing.join(timeout=60)
        api.app.extensions["elrepo.engine"].dispose()
    assert [status for status, _ in answers] == [200], answers
