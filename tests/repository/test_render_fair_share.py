"""Render processes shared fairly between tenants (repository/render_pool.py, `_FairShare`;
issue 18, item 4): a tenant holds at most its share of a worker's render processes,
has at most a few renders waiting, and a freed process goes to the tenant served least
recently; against a real `elrepo serve`, one tenant's viewers asking slow renders leave
another tenant's small renders answering."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from repository.auth import create_token
from repository.cli.common import session_on
from repository.render_pool import RenderBusy, _FairShare, _RenderProcess
from repository.settings import RENDER_TIMEOUT_ENV
from repository.store import create_tenant
from tests.repository.test_cli import DEMO, Server
from tests.repository.test_render_deadline import dense_values, served_element

LONG = 30.0  # a deadline no waiter here reaches unless the test fails


class Acquiring:
    """`share.acquire(tenant)` on a thread: what it got, once it got it."""

    def __init__(self, share: _FairShare, tenant: str, timeout: float = LONG) -> None:
        self.slot: _RenderProcess | None = None
        self.refusal: RenderBusy | None = None
        self._thread = threading.Thread(target=self._acquire, args=(share, tenant, timeout))
        self._thread.start()

    def _acquire(self, share: _FairShare, tenant: str, timeout: float) -> None:
        try:
            self.slot = share.acquire(tenant, time.monotonic() + timeout, timeout)
        except RenderBusy as busy:
            self.refusal = busy

    def join(self) -> _RenderProcess:
        self._thread.join(timeout=LONG)
        assert self.slot is not None, self.refusal
        return self.slot

    def waiting(self) -> bool:
        """Still waiting a while after it started (nothing it waits for happens meanwhile)."""
        self._thread.join(timeout=0.3)
        return self._thread.is_alive()


def acquire_now(share: _FairShare, tenant: str) -> _RenderProcess:
    return share.acquire(tenant, time.monotonic() + LONG, LONG)


@pytest.fixture
def two_processes() -> _FairShare:
    return _FairShare([_RenderProcess(), _RenderProcess()], share=1, waiting=2)


def test_a_tenant_at_its_share_waits_while_another_tenant_gets_a_process(
        two_processes: _FairShare) -> None:
    held = acquire_now(two_processes, "a")
    second_of_a = Acquiring(two_processes, "a")
    assert second_of_a.waiting()
    other = acquire_now(two_processes, "b")  # at once, though a asked first
    assert other is not held
    two_processes.release("b", other)
    assert second_of_a.waiting()  # a free process, but a holds its share
    two_processes.release("a", held)
    second_of_a.join()


def test_a_tenant_with_its_renders_waiting_is_refused_at_once(two_processes: _FairShare) -> None:
    held = acquire_now(two_processes, "a")
    waiters = [Acquiring(two_processes, "a") for _ in range(2)]
    assert all(waiter.waiting() for waiter in waiters)
    started = time.monotonic()
    with pytest.raises(RenderBusy, match="2 renders of this tenant are waiting") as busy:
        two_processes.acquire("a", time.monotonic() + LONG, 4)
    assert time.monotonic() - started < LONG / 2 and busy.value.retry_after == 4
    acquire_now(two_processes, "b")  # another tenant is not refused
    for waiter in waiters:
        two_processes.release("a", held)
        held = waiter.join()


def test_a_freed_process_goes_to_the_tenant_served_least_recently() -> None:
    share = _FairShare([_RenderProcess()], share=1, waiting=4)
    held = acquire_now(share, "a")
    again = Acquiring(share, "a")
    assert again.waiting()
    newcomer = Acquiring(share, "b")  # asked after a's second render
    assert newcomer.waiting()
    share.release("a", held)
    held = newcomer.join()
    assert again.waiting()
    share.release("b", held)
    again.join()


def test_a_tenant_past_its_share_gets_503_naming_its_share_at_its_deadline(
        two_processes: _FairShare) -> None:
    acquire_now(two_processes, "a")
    with pytest.raises(RenderBusy, match=r"share of the render processes \(1 of 2\)") as busy:
        two_processes.acquire("a", time.monotonic() + 0.2, 0.2)
    assert busy.value.status == 503 and busy.value.retry_after == 1


# ---- against elrepo serve -----------------------------------------------------------

#: A complete DAG of this many shapes renders (within the deadline) in about a second:
#: each of tenant A's requests, with a culture never asked before, keeps a render
#: process busy that long.
SLOW_SHAPES = 60
OTHER = "/other/main"


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    monkeypatch.setenv(RENDER_TIMEOUT_ENV, "30")
    server = Server(f"sqlite:///{tmp_path / 'served.db'}", tmp_path)
    yield server
    server.stop()


def other_tenant_token(tmp_path: Path) -> str:
    """An editor token of a second tenant, made beside the running server."""
    with session_on(f"sqlite:///{tmp_path / 'served.db'}") as session:
        return create_token(session, create_tenant(session, "other", "main"), "editor")


def loop_until(stop: threading.Event, action: Callable[[], object]) -> threading.Thread:
    def run() -> None:
        while not stop.is_set():
            action()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_one_tenants_slow_renders_leave_another_tenants_small_renders_answering(
        served: Server, tmp_path: Path) -> None:
    token = other_tenant_token(tmp_path)
    slow = served_element(served, "mainProcess")
    status, _, _ = served.request(f"{DEMO}/views/diagram/elements/{slow}/content", "POST",
                                  {"values": dense_values(SLOW_SHAPES)})
    assert status == 200
    as_other = {"Authorization": f"Bearer {token}"}
    status, _, body = served.request(f"{OTHER}/_api/rest/facets/processes/views/detail/elements/",
                                     "POST", {"count": 1, "elements": [{
                                         "type": "mainProcess",
                                         "attributes": {"name": {"1033": "Small"}}}]},
                                     headers=as_other)
    assert status == 200, body
    small = json.loads(body)["elements"][0]["id"]
    status, _, _ = served.request(
        f"{OTHER}/_api/rest/facets/processes/views/diagram/elements/{small}/content", "POST",
        {"values": dense_values(3)}, headers=as_other)
    assert status == 200
    cultures = iter(range(1000, 10**6))

    def render(tenant: str, diagram: str, headers: dict[str, str] | None = None) -> int:
        status, _, _ = served.request(f"{tenant}/_api/rest/diagram/{diagram}/render/"
                                      f"{next(cultures)}/horizontal", headers=headers)
        return status

    for _ in range(4):  # every worker's render processes loaded
        assert render(OTHER, small, as_other) == 200
    stop = threading.Event()
    slow_seconds: list[float] = []

    def slow_render() -> None:
        started = time.monotonic()
        if render("/demo/default", slow) == 200:  # a refusal answers at once: no measure
            slow_seconds.append(time.monotonic() - started)

    viewers = [loop_until(stop, slow_render) for _ in range(6)]
    try:
        time.sleep(0.5)  # the slow renders hold the render processes
        latencies: list[float] = []
        while len(latencies) < 10:
            started = time.monotonic()
            assert render(OTHER, small, as_other) == 200
            latencies.append(time.monotonic() - started)
    finally:
        stop.set()
        for viewer in viewers:
            viewer.join()
    latencies.sort()
    # Against the slow renders of the same run, not the clock (a loaded machine slows
    # both): a small render that waited behind a slow one would take as long as it.
    slow_seconds.sort()
    assert slow_seconds, "no slow render was drawn"
    assert latencies[len(latencies) // 2] < slow_seconds[len(slow_seconds) // 2] / 2, (latencies, slow_seconds)
