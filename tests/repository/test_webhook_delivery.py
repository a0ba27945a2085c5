"""Webhooks end to end (issue 24, "Done when"): changes made through the API reach a
receiver on loopback that fails its first 3 requests and then is down for "a minute"
(scaled, with the backoff, by `SCALE`), every event exactly once per id, in the feed's
order, with valid signatures, and never another tenant's; under a real `elrepo serve` of
two workers, only one of them delivers; a receiver that hangs does not hold up the API;
`elrepo worker --deliver-webhooks` (a Celery worker) delivers too."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from kombu import Queue

from repository.app import create_app
from repository.cli import main
from repository.distributed import celery_app
from repository.settings import Settings
from repository.store import find_tenant
from repository.webhooks.source import EVENT_SOURCE, EventSource
from repository.webhooks.worker import Deliverer, DeliveryThread, RetryPolicy
from tests.repository.conftest import OTHER_TENANT, TENANT, Api, Prepared, sqlite_only
from tests.repository.test_cli import START_SECONDS, Server
from tests.repository.test_distributed import ROOT, WORKER_COMMAND, broker_url
from tests.repository.webhook_parts import Clock, Receiver, Recorder

# A minute of the "down for a minute" is `60 * SCALE` seconds here, and the
# backoff shrinks with it: the first wait 5 s * SCALE, the longest a tenth of the minute.
SCALE = 0.02
DOWN_SECONDS = 60 * SCALE
FAST = Settings(webhooks_allow_private=True, webhook_backoff_first=5 * SCALE,
                webhook_backoff_max=6 * SCALE, webhook_retry_for=3600.0)
NEW_TASK = {"count": 1, "elements": [{"type": "task", "attributes": {"name": {"1033": "n"}}}]}
ELEMENTS = "/_api/rest/facets/processes/views/detail/elements"


class FlakyThenDown:
    """Answers 500 to the first 3 requests, then drops every connection for
    `DOWN_SECONDS` from the 4th on (down), then 200."""

    def __init__(self) -> None:
        self.down_until: float | None = None

    def __call__(self, number: int) -> int | None:
        if number <= 3:
            return 500
        if self.down_until is None:
            self.down_until = time.monotonic() + DOWN_SECONDS
        return None if time.monotonic() < self.down_until else 200


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + START_SECONDS  # a bound for a stuck test, not a claim
    while not condition():
        assert time.monotonic() < deadline, f"waited {START_SECONDS} s for {what}"
        time.sleep(0.02)


def feed_ids(app: Flask, tenant: str, after: int) -> list[str]:
    source: EventSource = app.extensions[EVENT_SOURCE]
    collection, storage = tenant.strip("/").split("/")
    with app.extensions["elrepo.sessions"]() as session:
        found = find_tenant(session, collection, storage)
        assert found is not None
        return [str(e.cloud_event["id"]) for e in source.read(session, found.pk, after, 1000)]


def latest(app: Flask, tenant: str) -> int:
    source: EventSource = app.extensions[EVENT_SOURCE]
    collection, storage = tenant.strip("/").split("/")
    with app.extensions["elrepo.sessions"]() as session:
        found = find_tenant(session, collection, storage)
        assert found is not None
        return source.latest(session, found.pk)


@pytest.fixture
def fast_app(prepared: Prepared) -> Iterator[Flask]:
    app = create_app(prepared.config, FAST)  # its DATABASE_URL replaces FAST's
    yield app
    app.extensions["elrepo.engine"].dispose()


def test_a_flaky_then_down_receiver_gets_every_event_once_in_order(
        fast_app: Flask, prepared: Prepared) -> None:
    api = Api(fast_app, fast_app.test_client(), prepared.tokens, prepared.other_tokens)
    other_admin = prepared.other_tokens["administrator"]
    with Receiver(FlakyThenDown()) as receiver, Receiver() as other_receiver:
        created = api.post(TENANT + "/_api/rest/webhooks", {"url": receiver.url})
        assert created.status_code == 200, created.get_json()
        secret = created.get_json()["values"][0]["secret"]
        other = api.post(OTHER_TENANT + "/_api/rest/webhooks", {"url": other_receiver.url},
                         role=None, token=other_admin).get_json()["values"][0]
        start, other_start = latest(fast_app, TENANT), latest(fast_app, OTHER_TENANT)
        delivery = DeliveryThread(fast_app.extensions["elrepo.sessions"],
                                  fast_app.extensions[EVENT_SOURCE],
                                  fast_app.extensions["elrepo.settings"], poll=0.02).start()
        try:
            for _ in range(15):  # the two tenants' changes interleaved
                assert api.post(TENANT + ELEMENTS, NEW_TASK, role="editor").status_code == 200
                assert api.post(OTHER_TENANT + ELEMENTS, NEW_TASK, role=None,
                                token=prepared.other_tokens["editor"]).status_code == 200
            expected = feed_ids(fast_app, TENANT, start)
            other_expected = feed_ids(fast_app, OTHER_TENANT, other_start)
            assert len(expected) >= 15 and len(other_expected) >= 15
            wait_for(lambda: len(receiver.accepted()) >= len(expected)
                     and len(other_receiver.accepted()) >= len(other_expected), "deliveries")
        finally:
            delivery.stop()
    accepted = receiver.accepted()
    assert [r.headers["webhook-id"] for r in accepted] == expected  # once each, in order
    assert [r.event["id"] for r in accepted] == expected
    assert all(r.signed_by(secret) for r in accepted)
    assert all(r.event["source"] == TENANT for r in accepted)
    refused = receiver.received[:len(receiver.received) - len(accepted)]
    assert [r.status for r in refused[:3]] == [500, 500, 500] and len(refused) > 3
    assert {r.headers["webhook-id"] for r in refused} == {expected[0]}  # the rest waited
    assert [r.headers["webhook-id"] for r in other_receiver.accepted()] == other_expected
    assert all(r.signed_by(other["secret"]) for r in other_receiver.accepted())
    assert not set(other_expected) & set(expected)
    log = api.get(f"{TENANT}/_api/rest/webhooks/{created.get_json()['values'][0]['id']}"
                  "/deliveries").get_json()["values"]
    first = log[-1]
    assert (first["eventId"], first["status"], first["lastStatus"]) == (expected[0], "delivered", 200)
    assert first["attempts"] == len(refused) + 1
    assert all(entry["status"] == "delivered" for entry in log)


@pytest.mark.slow
def test_one_worker_of_elrepo_serve_delivers_and_a_hanging_receiver_does_not_hold_the_api(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ELREPO_WEBHOOK_BACKOFF_FIRST", str(5 * SCALE))
    monkeypatch.setenv("ELREPO_WEBHOOK_BACKOFF_MAX", str(6 * SCALE))
    db = f"sqlite:///{tmp_path / 'served.db'}"
    server = Server(db, tmp_path, "--webhooks-allow-private")
    try:
        assert main(["token", "create", "demo", "default", "--role", "administrator",
                     "--db", db]) == 0
        admin = capsys.readouterr().out.strip().splitlines()[-1]
        hooks = "/demo/default/_api/rest/webhooks"
        with Receiver() as receiver:
            status, _, body = server.request(hooks, "POST", {"url": receiver.url},
                                             {"Authorization": f"Bearer {admin}"})
            assert status == 200, body
            for _ in range(10):
                assert server.request("/demo/default" + ELEMENTS, "POST", NEW_TASK)[0] == 200
            wait_for(lambda: len(receiver.accepted()) >= 10, "deliveries")
            time.sleep(3 * 1.0)  # three polls more: a second deliverer would send again
            ids = [r.headers["webhook-id"] for r in receiver.accepted()]
            assert len(ids) == len(set(ids)) == 10
            removed = server.request(f"{hooks}/{_id_of(body)}", "DELETE", None,
                                     {"Authorization": f"Bearer {admin}"})
            assert removed[0] == 200
        small = "/demo/default/_api/rest/facets/processes/views"
        _latencies(server, small, 100)  # warm: the first measured run must not pay for it
        quiet = _latencies(server, small)
        release = threading.Event()
        hanging = threading.Event()

        def hang(_number: int) -> int:
            hanging.set()
            release.wait(60)
            return 200
        with Receiver(hang) as stuck:
            server.request(hooks, "POST", {"url": stuck.url}, {"Authorization": f"Bearer {admin}"})
            assert server.request("/demo/default" + ELEMENTS, "POST", NEW_TASK)[0] == 200
            wait_for(hanging.is_set, "a delivery to the hanging receiver")
            beside_hang = _latencies(server, small)
            assert stuck.requests >= 1  # every GET above was answered beside a hung delivery
            release.set()
        ratio = _p99(beside_hang) / _p99(quiet)
        print(f"p99 of {len(quiet)} small GETs: {_p99(quiet) * 1000:.1f} ms quiet, "
              f"{_p99(beside_hang) * 1000:.1f} ms beside a hanging receiver (x{ratio:.2f})")
    finally:
        server.stop()


def _id_of(body: bytes) -> str:
    return str(json.loads(body)["values"][0]["id"])


def _latencies(server: Server, path: str, count: int = 500) -> list[float]:
    taken = []
    for _ in range(count):
        started = time.perf_counter()
        status, _, _ = server.request(path)
        taken.append(time.perf_counter() - started)
        assert status == 200
    return taken


def _p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98]



@pytest.mark.slow  # a Celery worker in its own process
@sqlite_only
def test_a_celery_worker_with_deliver_webhooks_delivers(fast_app: Flask, prepared: Prepared,
                                                         tmp_path: Path) -> None:
    url = broker_url("redis")
    api = Api(fast_app, fast_app.test_client(), prepared.tokens, prepared.other_tokens)
    with Receiver() as receiver:
        created = api.post(TENANT + "/_api/rest/webhooks", {"url": receiver.url})
        start = latest(fast_app, TENANT)
        for _ in range(5):
            assert api.post(TENANT + ELEMENTS, NEW_TASK, role="editor").status_code == 200
        expected = feed_ids(fast_app, TENANT, start)
        log = tmp_path / "worker.log"
        queue = f"elrepo-test-{uuid.uuid4().hex[:12]}"
        with log.open("w", encoding="utf-8") as output:
            worker = subprocess.Popen(
                [sys.executable, "-c", WORKER_COMMAND, "worker", "--broker", url, "--queue",
                 queue, "--concurrency", "1",
                 "--deliver-webhooks", "--db", prepared.config["DATABASE_URL"]],
                stdout=output, stderr=subprocess.STDOUT, cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT), "ELREPO_WEBHOOKS_ALLOW_PRIVATE": "1"})
        try:
            wait_for(lambda: len(receiver.accepted()) >= len(expected) or worker.poll() is not None,
                     "the worker's deliveries")
        finally:
            worker.terminate()
            worker.wait(timeout=30)
            celery = celery_app(url, queue)
            with celery.connection_for_write() as connection:  # no queue of the test stays
                Queue(queue).bind(connection.default_channel).delete()
            celery.close()
        assert [r.headers["webhook-id"] for r in receiver.accepted()] == expected, log.read_text()
        secret = created.get_json()["values"][0]["secret"]
        assert all(r.signed_by(secret) for r in receiver.accepted())


def test_a_disabled_endpoint_is_an_event_of_the_feed_only_for_roles_that_manage_webhooks(
        fast_app: Flask, prepared: Prepared) -> None:
    """Its data names the URL (whose query may hold the receiver's key) and the
    receiver's error: what only the webhooks' own endpoints show, to administrators."""
    api = Api(fast_app, fast_app.test_client(), prepared.tokens, prepared.other_tokens)
    created = api.post(TENANT + "/_api/rest/webhooks", {"url": "http://receiver.test/in"})
    webhook = created.get_json()["values"][0]["id"]
    assert api.post(TENANT + ELEMENTS, NEW_TASK, role="editor").status_code == 200
    clock = Clock()
    worker = Deliverer(fast_app.extensions["elrepo.sessions"], fast_app.extensions[EVENT_SOURCE],
                       RetryPolicy(first=1.0, longest=4.0, retry_for=30.0), allow_private=True,
                       send=Recorder(*[True] * 100), clock=clock)

    def shown() -> dict[str, Any]:
        found: dict[str, Any] = next(w for w in api.get(TENANT + "/_api/rest/webhooks")
                                     .get_json()["values"] if w["id"] == webhook)
        return found
    while shown()["enabled"]:
        worker.deliver_due()
        clock.now += 4.0
    assert shown()["disabledReason"].startswith("No delivery succeeded for 30 s")
    changes = TENANT + "/_api/rest/changes"
    disabled = api.get(changes, **{"$pageSize": "1000"}).get_json()["values"][-1]
    assert (disabled["type"], disabled["subject"], disabled["source"]) == (
        "elrepo.webhook.disabled", webhook, TENANT)
    assert disabled["data"]["webhookId"] == webhook
    assert disabled["data"]["url"] == "http://receiver.test/in"
    other = api.get(OTHER_TENANT + "/_api/rest/changes", role=None,
                    token=prepared.other_tokens["administrator"]).get_json()["values"]
    assert all(event["type"] != "elrepo.webhook.disabled" for event in other)
    assert api.post(TENANT + ELEMENTS, NEW_TASK, role="editor").status_code == 200
    everything = api.get(changes, **{"$pageSize": "1000"}).get_json()["values"]
    assert everything[-2]["id"] == disabled["id"]
    assert created.get_json()["values"][0]["secret"] not in json.dumps(everything)
    readable = [e for e in everything if not e["type"].startswith("elrepo.webhook.")]
    for role in set(prepared.tokens) - {"administrator"}:
        # Left out, and their places stop no reader paging past them.
        assert _whole_feed(api, changes, role, page_size=3) == readable, role


def _whole_feed(api: Api, changes: str, role: str, page_size: int) -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = []
    cursor: dict[str, str] = {}
    while True:
        page = api.get(changes, role, **{"$pageSize": str(page_size)}, **cursor).get_json()
        if not page["values"]:
            return shown
        shown += page["values"]
        cursor = {"cursor": page["cursor"]}
