"""The render deadline (docs/contract.md, "Limits and robustness"): a render runs in a render process of the
request worker; past its deadline that process is killed, the answer is 503 with
`Retry-After`, and the worker goes on answering."""

from __future__ import annotations

import contextlib
import gc
import json
import math
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from repository.app import create_app
from repository.errors import InvalidInput, ServiceUnavailable
from repository.render_pool import (
    RenderBusy,
    RenderJob,
    RenderPool,
    render_timeout,
)
from repository.settings import DEFAULT_RENDER_TIMEOUT_SECONDS, RENDER_TIMEOUT_ENV, Settings
from tests.repository.conftest import TENANT, Api, Prepared, assert_error, sqlite_only
from tests.repository.standin import ORDER
from tests.repository.test_cli import DEMO, Server
from tests.repository.test_render_cache import ORDER_SVG, RENDER, make_api

#: A complete DAG of this many shapes (19,900 links, within the 20,000 limit) takes
#: seconds to lay out even with bounded layout steps: far past the deadlines used here.
DENSE_SHAPES = 200
ELEMENTS = TENANT + "/_api/rest/facets/processes/views/detail/elements/"


def dense_values(size: int = DENSE_SHAPES) -> list[dict[str, Any]]:
    return [{"shapeInfo": {"index": index, "predecessors": list(range(index))},
             "element": {"type": "task", "attributes": {"name": {"1033": f"Task {index}"}}}}
            for index in range(size)]


def create_dense_diagram(api: Api) -> str:
    response = api.post(ELEMENTS, {"count": 1, "elements": [
        {"type": "mainProcess", "attributes": {"name": {"1033": "Dense"}}}]}, role="editor")
    assert response.status_code == 200, response.get_json()
    diagram_id: str = response.get_json()["elements"][0]["id"]
    response = api.post(TENANT + f"/_api/rest/facets/processes/views/diagram/elements/"
                        f"{diagram_id}/content", {"values": dense_values()}, role="editor")
    assert response.status_code == 200, response.get_json()
    return diagram_id


def assert_past_deadline(response: Any) -> dict[str, Any]:
    body = assert_error(response, 503, render=True)
    assert 0 < int(response.headers["Retry-After"]) <= 60
    assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
    return body


def past_deadline(prepared: Prepared, deadline: float = 0.2) -> tuple[Api, str]:
    """An app whose render of a dense diagram just ran past `deadline`, and that render's
    path. A first render loads a render process on a deadline that allows for start-up
    on a busy machine; the dense render takes that process next (idle processes are
    taken last in, first out)."""
    api = make_api(prepared, RENDER_TIMEOUT=60)
    assert api.get(ORDER_SVG).status_code == 200
    dense = RENDER.format(create_dense_diagram(api), 1033, "horizontal")
    api.app.config["RENDER_TIMEOUT"] = deadline
    assert f"{deadline:g} s deadline" in assert_past_deadline(api.get(dense))["message"]
    return api, dense


def assert_renders_again(api: Api) -> None:
    """A render by the killed process's replacement (another key: no cache hit)."""
    api.app.config["RENDER_TIMEOUT"] = 60
    response = api.get(RENDER.format(ORDER, 1031, "vertical"))
    assert response.status_code == 200 and b"<svg" in response.data


@sqlite_only
def test_a_render_past_its_deadline_is_503_and_the_worker_answers_on(
        prepared: Prepared) -> None:
    api, _ = past_deadline(prepared)
    assert api.element(ORDER)["id"] == ORDER
    assert_renders_again(api)


@sqlite_only
def test_a_timed_out_render_is_refused_under_the_same_deadline_in_every_culture_and_layout(
        prepared: Prepared) -> None:
    """Issue 18, item 4: the render had a little less than its deadline in its process,
    so a repeat under the same deadline was never refused; and the memory was keyed by
    culture and layout, so a new culture id rendered again."""
    api, dense = past_deadline(prepared, deadline=1)
    for repeat in (dense, dense.replace("/1033/", "/2147483647/"),
                   dense.replace("/horizontal", "/vertical"),
                   dense.replace("/horizontal", "/detailed")):
        body = assert_past_deadline(api.get(repeat))
        assert "shortly before" in body["message"], body
    assert_renders_again(api)
    api.app.config["RENDER_TIMEOUT"] = 1.5  # longer: tried again
    assert "1.5 s deadline" in assert_past_deadline(api.get(dense))["message"]


def test_the_deadline_comes_from_config_then_settings_then_environment_then_default(
        prepared: Prepared, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RENDER_TIMEOUT_ENV, raising=False)
    assert render_timeout({}) == DEFAULT_RENDER_TIMEOUT_SECONDS == 10
    assert Settings.from_environment().render_timeout == 10
    monkeypatch.setenv(RENDER_TIMEOUT_ENV, "2.5")
    assert Settings.from_environment().render_timeout == 2.5
    app = create_app(prepared.config)  # the environment, read once
    monkeypatch.setenv(RENDER_TIMEOUT_ENV, "3")
    assert render_timeout(app.config) == 2.5
    assert render_timeout(create_app(prepared.config, Settings(render_timeout=5)).config) == 5
    assert render_timeout(create_app({**prepared.config, "RENDER_TIMEOUT": 4}).config) == 4
    for unusable in ("0", "-1", "soon", "nan", "inf"):
        with pytest.raises(ValueError, match="render timeout"):
            render_timeout({"RENDER_TIMEOUT": unusable})
        monkeypatch.setenv(RENDER_TIMEOUT_ENV, unusable)
        with pytest.raises(ValueError, match=RENDER_TIMEOUT_ENV):
            Settings.from_environment()


def job(key: str, tenant: str = "demo.default") -> RenderJob:
    """A job whose content key is its render key (what these tests refuse by)."""
    return RenderJob(key, key, tenant)


SMALL = {"diagram": {"id": "small", "type": "mainProcess", "attributes": {}},
         "elements": [], "values": dense_values(3)}


def test_the_pool_answers_the_engines_bytes_and_its_input_errors_as_400(
        render_pool: RenderPool) -> None:
    from renderer.api import render

    pool = render_pool
    assert pool.render(job("small"), SMALL, "horizontal", 1033, 60, default_culture=1033) == render(
        SMALL, "horizontal", 1033)
    with pytest.raises(InvalidInput, match="spiral") as refused:
        pool.render(job("spiral"), SMALL, "spiral", 1033, 60, default_culture=1033)
    assert refused.value.status == 400


def occupy(pool: RenderPool, timeout: float) -> threading.Thread:
    """A thread rendering a dense diagram (key "dense") in `pool` until its deadline
    (starting the render process first), begun 0.2 s ago."""
    dense = {**SMALL, "values": dense_values()}

    def render_past_deadline() -> None:
        with contextlib.suppress(ServiceUnavailable):
            pool.render(job("dense"), dense, "horizontal", 1033, timeout, default_culture=1033)

    occupant = threading.Thread(target=render_past_deadline)
    occupant.start()
    time.sleep(0.2)
    return occupant


def test_renders_beyond_the_pools_processes_wait_then_get_503() -> None:
    pool = RenderPool(processes=1)
    try:
        occupant = occupy(pool, 1)
        with pytest.raises(RenderBusy) as busy:
            pool.render(job("small"), SMALL, "horizontal", 1033, 0.2, default_culture=1033)
        assert busy.value.status == 503 and busy.value.retry_after == 1
        occupant.join()
        assert pool.render(job("small"), SMALL, "horizontal", 1033, 60, default_culture=1033).startswith("<")
    finally:
        pool.close()


#: Pairs of cultures, one pair a round, each round a diagram of other content: each
#: render is a new cache key and content key, so it is never just refused from memory.
CULTURE_ROUNDS = ((1033, 1031), (1036, 1040), (1034, 1043), (1049, 1053), (1044, 1035))


#: The render deadline of the test below (seconds). The claim is the small GETs' p99
#: under half of it, so it is also the slack a loaded machine has: at 1 s the GETs had
#: 0.5 s, which a machine shared by six engineers (load average 20 on two cores) passes.
#: The dense render costs 19 s of CPU, so even at 4 s every render runs into the deadline.
SHORT_DEADLINE = 4.0


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_small_requests_are_answered_while_two_renders_run_to_their_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The deadline sits well below what the dense render costs (19 s of CPU, plus a
    # render process's start-up), so the renders always run into it however fast the
    # engine gets within reason; rounds of two renders go on until some 200 small GETs
    # give a p99 (not just a maximum).
    monkeypatch.setenv(RENDER_TIMEOUT_ENV, str(SHORT_DEADLINE))
    server = Server(f"sqlite:///{tmp_path / 'served.db'}", tmp_path)
    try:
        small = served_element(server, "task")
        renders: list[tuple[int, str, bytes]] = []
        latencies: list[float] = []

        def render(dense: str, culture: int) -> None:
            renders.append(server.request(
                f"/demo/default/_api/rest/diagram/{dense}/render/{culture}/horizontal"))

        for round_number, cultures in enumerate(CULTURE_ROUNDS):
            dense = served_element(server, "mainProcess")
            status, _, _ = server.request(f"{DEMO}/views/diagram/elements/{dense}/content",
                                          "POST", {"values": dense_values(DENSE_SHAPES - round_number)})
            assert status == 200
            threads = [threading.Thread(target=render, args=(dense, culture)) for culture in cultures]
            for thread in threads:
                thread.start()
            while any(thread.is_alive() for thread in threads):
                started = time.monotonic()
                status, _, _ = server.request(f"{DEMO}/views/detail/elements/{small}")
                latencies.append(time.monotonic() - started)
                assert status == 200
                time.sleep(0.01)
            for thread in threads:
                thread.join()
            if len(latencies) >= 200:
                break
        assert {status for status, _, _ in renders} == {503}
        assert all(set(json.loads(body)) == {"message", "type", "data"}
                   for _, _, body in renders)
        latencies.sort()
        p99 = latencies[math.ceil(0.99 * len(latencies)) - 1]
        # Bounded by the configured deadline, not the clock: a GET that waited for a
        # render to end would wait out the deadline.
        assert len(latencies) >= 100 and p99 < SHORT_DEADLINE / 2, (len(latencies), latencies[-5:])
    finally:
        server.stop()


def served_element(server: Server, element_type: str) -> str:
    status, _, body = server.request(DEMO + "/views/detail/elements/", "POST", {
        "count": 1, "elements": [{"type": element_type,
                                  "attributes": {"name": {"1033": element_type}}}]})
    assert status == 200
    element_id: str = json.loads(body)["elements"][0]["id"]
    return element_id


def test_concurrent_requests_for_one_render_share_it() -> None:
    """A burst of the same render on a cold cache renders once; each caller gets the
    answer (or the refusal) of that one render."""
    from renderer.api import render

    pool = RenderPool(processes=2)
    rendered: list[tuple[Any, ...]] = []
    run = pool._run_in_a_process

    def counted(*arguments: Any) -> Any:
        rendered.append(arguments)
        time.sleep(0.3)  # long enough for every caller to arrive while it runs
        return run(*arguments)

    pool._run_in_a_process = counted  # type: ignore[method-assign,assignment]
    answers: list[str] = []
    try:
        callers = [threading.Thread(target=lambda: answers.append(pool.render(
            job("burst"), SMALL, "horizontal", 1033, 60, default_culture=1033))) for _ in range(5)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        assert len(rendered) == 1
        assert answers == [render(SMALL, "horizontal", 1033)] * 5
        pool.render(job("burst"), SMALL, "horizontal", 1033, 60, default_culture=1033)
        assert len(rendered) == 2  # nothing under way any more: rendered anew
    finally:
        pool.close()


def test_a_caller_waiting_for_a_shared_render_keeps_its_own_deadline() -> None:
    pool = RenderPool(processes=1)
    try:
        occupant = occupy(pool, 2)
        started = time.monotonic()
        with pytest.raises(RenderBusy, match="same render") as busy:
            pool.render(job("dense"), {**SMALL, "values": dense_values()}, "horizontal", 1033, 0.3,
                        default_culture=1033)
        assert time.monotonic() - started < 1.5 and busy.value.retry_after == 1
        occupant.join()
    finally:
        pool.close()


def test_an_app_owns_its_render_pool_and_stops_it_when_it_goes(tmp_path: Path) -> None:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'owned.db'}"})
    pool: RenderPool = app.extensions["elrepo.render_pool"]
    assert create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'other.db'}"}
                      ).extensions["elrepo.render_pool"] is not pool
    assert pool.render(job("owned"), SMALL, "horizontal", 1033, 60,
                       default_culture=1033).startswith("<")
    processes = [slot._process for slot in pool._slots if slot._process is not None]
    assert processes and all(process.poll() is None for process in processes)
    app.extensions["elrepo.engine"].dispose()
    del app
    gc.collect()
    assert all(process.poll() is not None for process in processes)
