"""Webhooks (issue 24, item 2; docs/events.md, "Webhooks"): the signature against the
Standard Webhooks test vector, the deny-list of targets, one delivery's rules (no
redirects, a deadline, a capped answer), the delivery loop's order, backoff, giving up and
disabling on a clock of the test's, the lease, and the API's registration, listing,
removal and delivery log with their refusals and tenant checks."""

from __future__ import annotations

import http.server
import random
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from repository.app import create_app
from repository.cli import main
from repository.settings import Settings
from repository.store import find_tenant
from repository.store.changes import WEBHOOK_DISABLED
from repository.store.db import open_session
from repository.store.leases import take_lease
from repository.store.models import WebhookDelivery, WebhookEndpoint
from repository.webhooks import sender, signing
from repository.webhooks.endpoints import LOG_LENGTH, register
from repository.webhooks.targets import (
    TargetRefused,
    checked_addresses,
    is_denied,
    parse_target,
)
from repository.webhooks.worker import LEASE_NAME, Deliverer, DeliveryThread, RetryPolicy
from tests.repository.conftest import (
    OTHER_TENANT,
    TENANT,
    Api,
    Prepared,
    assert_error,
    recorded_statements,
    sqlite_only,
)
from tests.repository.standin import STANDIN_WEBHOOK
from tests.repository.webhook_parts import Clock, ListSource, Receiver, Recorder

WEBHOOKS = TENANT + "/_api/rest/webhooks"

# The Standard Webhooks specification's published example (its reference libraries test
# against it): this secret, id, timestamp and body sign to this signature.
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TIMESTAMP = 1614265330
VECTOR_BODY = b'{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_the_signature_is_the_specifications_test_vector() -> None:
    assert signing.signature(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP,
                             VECTOR_BODY) == VECTOR_SIGNATURE
    headers = signing.signed_headers(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY)
    assert headers == {"webhook-id": VECTOR_ID, "webhook-timestamp": str(VECTOR_TIMESTAMP),
                       "webhook-signature": VECTOR_SIGNATURE}


def test_a_signature_verifies_and_nothing_else_does() -> None:
    secret = signing.new_secret()
    assert secret.startswith("whsec_") and len(signing.signing_key(secret)) == 32
    headers = signing.signed_headers(secret, "evt-1", 1_000_000, b'{"a":1}')
    assert signing.verify(secret, headers, b'{"a":1}', now=1_000_000)
    assert signing.verify(secret, {**headers, "webhook-signature": "v1,bm9wZQ== "
                                   + headers["webhook-signature"]}, b'{"a":1}', now=1_000_100)
    assert not signing.verify(secret, headers, b'{"a":2}', now=1_000_000)  # another body
    assert not signing.verify(signing.new_secret(), headers, b'{"a":1}', now=1_000_000)
    assert not signing.verify(secret, {**headers, "webhook-id": "evt-2"}, b'{"a":1}',
                              now=1_000_000)
    assert not signing.verify(secret, headers, b'{"a":1}', now=1_000_000 + 301)  # too old
    assert not signing.verify(secret, {}, b'{"a":1}', now=1_000_000)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1",
    "fe80::1%eth0", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "ff02::1",
])
def test_private_loopback_and_link_local_addresses_are_denied(address: str) -> None:
    assert is_denied(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_are_not_denied(address: str) -> None:
    assert not is_denied(address)


def test_every_resolved_address_is_checked() -> None:
    target = parse_target("https://hooks.example.com/in")
    assert checked_addresses(target, False, lambda _h, _p: ["93.184.216.34"]) == ["93.184.216.34"]
    with pytest.raises(TargetRefused, match="10.0.0.7"):  # one private among public ones
        checked_addresses(target, False, lambda _h, _p: ["93.184.216.34", "10.0.0.7"])
    assert checked_addresses(target, True, lambda _h, _p: ["10.0.0.7"]) == ["10.0.0.7"]

    def unknown(_host: str, _port: int) -> list[str]:
        raise OSError("Name or service not known")
    with pytest.raises(TargetRefused, match="does not resolve"):
        checked_addresses(target, True, unknown)


@pytest.mark.parametrize("url", [
    "ftp://hooks.example.com/", "hooks.example.com/in", "https:///in", "https://u:p@example.com/",
    "https://example.com/#x", "https://example.com:99999/", "https://exa mple.com/",
    "https://example.com/" + "x" * 2048, "https://example.com:080/", "https://example.com:/",
    "https://[2001:db8::1]/", "https://example.com/é", "https://example.com/\n\n",
])
def test_unusable_urls_are_refused(url: str) -> None:
    with pytest.raises(TargetRefused):
        parse_target(url)


def test_a_delivery_to_loopback_is_refused_unless_allowed() -> None:
    with Receiver() as receiver:
        refused = sender.post(receiver.url, b"{}", {}, allow_private=False)
        assert not refused.delivered and "127.0.0.1" in (refused.error or "")
        assert receiver.received == []
        assert sender.post(receiver.url, b"{}", {}, allow_private=True) == sender.Outcome(
            True, 200, None)
        failed = sender.post(receiver.url.replace("/hook", "/other"), b"{}", {},
                             allow_private=True)
        assert failed.delivered  # any path: the receiver answers 200 to all
        with Receiver(lambda _n: 503) as failing:
            outcome = sender.post(failing.url, b"{}", {}, allow_private=True)
        assert outcome == sender.Outcome(False, 503, "answered 503 Service Unavailable")


class _Scripted(http.server.BaseHTTPRequestHandler):
    """Answers what the server's `script` says: a redirect, a huge answer, or nothing."""

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.hits += 1  # type: ignore[attr-defined]
        self.server.script(self)  # type: ignore[attr-defined]

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def scripted() -> Iterator[http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    server.daemon_threads = True
    server.hits = 0  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: http.server.ThreadingHTTPServer, path: str = "/hook") -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def test_a_redirect_is_not_followed(scripted: http.server.ThreadingHTTPServer) -> None:
    def redirect(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(307)
        handler.send_header("Location", _url(scripted, "/elsewhere"))
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    scripted.script = redirect  # type: ignore[attr-defined]
    outcome = sender.post(_url(scripted), b"{}", {}, allow_private=True)
    assert outcome == sender.Outcome(False, 307, "redirects are not followed")
    assert scripted.hits == 1  # type: ignore[attr-defined]


def test_an_endless_answer_is_read_only_up_to_the_cap(
        scripted: http.server.ThreadingHTTPServer) -> None:
    written: list[int] = []

    def endless(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.end_headers()  # no length: the answer ends when the connection does
        chunk = b"x" * 65536
        try:
            for _ in range(10_000):  # 640 MiB, far more than the sender reads
                handler.wfile.write(chunk)
                written.append(len(chunk))
        except OSError:
            pass  # the sender closed the connection
    scripted.script = endless  # type: ignore[attr-defined]
    outcome = sender.post(_url(scripted), b"{}", {}, allow_private=True)
    assert outcome == sender.Outcome(True, 200, None)


def test_a_receiver_that_never_answers_fails_at_the_deadline(
        scripted: http.server.ThreadingHTTPServer) -> None:
    release = threading.Event()
    scripted.script = lambda _handler: release.wait(60)  # type: ignore[attr-defined]
    try:
        outcome = sender.post(_url(scripted), b"{}", {}, allow_private=True, deadline=0.2)
    finally:
        release.set()
    assert outcome == sender.Outcome(False, None, "no answer within 0.2 s")


# The delivery loop, on a `Clock`: seconds pass only when the test says so.

@pytest.fixture
def app(prepared: Prepared) -> Iterator[Flask]:
    source = ListSource()
    app = create_app({**prepared.config, "EVENT_SOURCE": source})
    yield app
    app.extensions["elrepo.engine"].dispose()


@pytest.fixture
def loop(app: Flask) -> Flask:
    """The app without the stand-in's webhook: each test of the loop registers its own."""
    with open_session(app.extensions["elrepo.sessions"], write=True) as session:
        session.execute(delete(WebhookEndpoint))
        session.commit()
    return app


def tenant_pk(app: Flask, path: str = TENANT) -> int:
    collection, storage = path.strip("/").split("/")
    with app.extensions["elrepo.sessions"]() as session:
        tenant = find_tenant(session, collection, storage)
        assert tenant is not None
        return tenant.pk


def add_endpoint(app: Flask, tenant: int, url: str, types: list[str] | None = None) -> WebhookEndpoint:
    with open_session(app.extensions["elrepo.sessions"], write=True) as session:
        endpoint = register(session, tenant, url, types or [], 0)
        session.commit()
        return endpoint


POLICY = RetryPolicy(first=1.0, longest=8.0, retry_for=100.0)


def deliverer(app: Flask, send: Recorder, clock: Clock, **options: Any) -> Deliverer:
    return Deliverer(app.extensions["elrepo.sessions"], app.extensions["elrepo.event_source"],
                     options.pop("policy", POLICY), allow_private=True, send=send,
                     clock=clock, rng=random.Random(7), **options)


def log(app: Flask, endpoint: WebhookEndpoint) -> list[WebhookDelivery]:
    with app.extensions["elrepo.sessions"]() as session:
        return list(session.scalars(select(WebhookDelivery).where(
            WebhookDelivery.endpoint_pk == endpoint.pk).order_by(WebhookDelivery.sequence)))


def state(app: Flask, endpoint: WebhookEndpoint) -> WebhookEndpoint:
    session: Session
    with app.extensions["elrepo.sessions"]() as session:
        found = session.get(WebhookEndpoint, endpoint.pk)
        assert found is not None
        return found


def test_failures_back_off_and_the_events_behind_wait_in_order(loop: Flask) -> None:
    source: ListSource = loop.extensions["elrepo.event_source"]
    tenant = tenant_pk(loop)
    endpoint = add_endpoint(loop, tenant, "http://receiver.test/in")
    for _ in range(3):
        source.add(tenant)
    send, clock = Recorder(True, True), Clock()
    worker = deliverer(loop, send, clock)
    worker.deliver_due()
    assert [s[2]["webhook-id"] for s in send.sent] == [f"t{tenant}-1"]
    first_wait = state(loop, endpoint).next_attempt_at - clock.now
    assert 0.5 <= first_wait <= 1.0  # the first delay, jittered by up to a half
    worker.deliver_due()  # not due yet: nothing sent
    assert len(send.sent) == 1
    clock.now += first_wait
    worker.deliver_due()  # fails again: the wait doubles
    second_wait = state(loop, endpoint).next_attempt_at - clock.now
    assert 1.0 <= second_wait <= 2.0
    clock.now += second_wait
    worker.deliver_due()  # delivers the first, then the two behind it
    assert [s[2]["webhook-id"] for s in send.sent] == [
        f"t{tenant}-1", f"t{tenant}-1", f"t{tenant}-1", f"t{tenant}-2", f"t{tenant}-3"]
    for _url, body, headers in send.sent:
        assert signing.verify(endpoint.secret, headers, body, clock.now)
    assert [(d.sequence, d.status, d.attempts, d.last_status) for d in log(loop, endpoint)] == [
        (1, "delivered", 3, 200), (2, "delivered", 1, 200), (3, "delivered", 1, 200)]
    assert state(loop, endpoint).cursor == 3 and state(loop, endpoint).failing_since is None


def test_the_wait_between_attempts_is_capped() -> None:
    rng = random.Random(1)
    waits = [POLICY.delay(failures, rng) for failures in range(1, 200)]
    assert all(0.5 <= w <= 8.0 for w in waits) and max(waits) > 4.0


def test_an_event_failing_past_the_retry_time_is_given_up_and_the_endpoint_disabled(
        loop: Flask) -> None:
    source: ListSource = loop.extensions["elrepo.event_source"]
    tenant = tenant_pk(loop)
    endpoint = add_endpoint(loop, tenant, "http://receiver.test/in")
    watcher = add_endpoint(loop, tenant, "http://watcher.test/in", [WEBHOOK_DISABLED])
    source.add(tenant)
    send, clock = Recorder(*[True] * 1000), Clock()
    worker = deliverer(loop, send, clock)
    while state(loop, endpoint).enabled:
        worker.deliver_endpoint(endpoint.pk)
        clock.now = max(clock.now, state(loop, endpoint).next_attempt_at)
    gone = state(loop, endpoint)
    assert gone.cursor == 1 and "No delivery succeeded for 100 s" in (gone.disabled_reason or "")
    [delivery] = log(loop, endpoint)
    assert delivery.status == "failed" and delivery.attempts == len(send.sent) > 5
    assert clock.now - delivery.first_attempt_at >= POLICY.retry_for
    disabled = source.events[tenant][-1]
    assert (disabled.event_type, disabled.subject) == (WEBHOOK_DISABLED, endpoint.id)
    send.failures.clear()
    worker.deliver_due()  # the watcher asked for that type only; the disabled one gets nothing
    assert [s[0] for s in send.sent[-1:]] == ["http://watcher.test/in"]
    assert state(loop, watcher).cursor == 2


def test_an_endpoint_gets_only_the_types_it_asked_for_and_only_its_tenants(loop: Flask) -> None:
    source: ListSource = loop.extensions["elrepo.event_source"]
    tenant, other = tenant_pk(loop), tenant_pk(loop, OTHER_TENANT)
    updates = add_endpoint(loop, tenant, "http://updates.test/", ["elrepo.element.updated"])
    everything = add_endpoint(loop, tenant, "http://all.test/")
    others = add_endpoint(loop, other, "http://other.test/")
    source.add(tenant, "elrepo.element.created")
    source.add(other, "elrepo.element.updated", "secret-of-other")
    source.add(tenant, "elrepo.element.updated")
    send = Recorder()
    deliverer(loop, send, Clock()).deliver_due()
    got: dict[str, list[str]] = {}
    for url, _body, headers in send.sent:
        got.setdefault(url, []).append(headers["webhook-id"])
    assert got == {"http://updates.test/": [f"t{tenant}-2"],
                   "http://all.test/": [f"t{tenant}-1", f"t{tenant}-2"],
                   "http://other.test/": [f"t{other}-1"]}
    assert [state(loop, e).cursor for e in (updates, everything, others)] == [2, 2, 1]


@sqlite_only
def test_the_delivery_log_keeps_the_newest_deliveries(loop: Flask) -> None:
    source: ListSource = loop.extensions["elrepo.event_source"]
    tenant = tenant_pk(loop)
    endpoint = add_endpoint(loop, tenant, "http://receiver.test/in")
    for _ in range(LOG_LENGTH + 5):
        source.add(tenant)
    worker = deliverer(loop, Recorder(), Clock())
    worker.deliver_due()
    worker.deliver_due()  # one read is 100 events
    kept = log(loop, endpoint)
    assert [d.sequence for d in kept] == list(range(6, LOG_LENGTH + 6))


def test_only_the_lease_holder_writes_an_outcome(loop: Flask) -> None:
    source: ListSource = loop.extensions["elrepo.event_source"]
    tenant = tenant_pk(loop)
    endpoint = add_endpoint(loop, tenant, "http://receiver.test/in")
    source.add(tenant)
    clock = Clock()
    sessions = loop.extensions["elrepo.sessions"]
    with open_session(sessions, write=True) as session:
        assert take_lease(session, LEASE_NAME, "holder-a", clock.now, 30)
        assert not take_lease(session, LEASE_NAME, "holder-b", clock.now, 30)
        session.commit()
    deliverer(loop, Recorder(), clock, lease_holder="holder-b").deliver_due()
    assert state(loop, endpoint).cursor == 0 and log(loop, endpoint) == []
    deliverer(loop, Recorder(), clock, lease_holder="holder-a").deliver_due()
    assert state(loop, endpoint).cursor == 1
    clock.now += 31  # a's lease expired: b takes it over
    with open_session(sessions, write=True) as session:
        assert take_lease(session, LEASE_NAME, "holder-b", clock.now, 30)
        session.commit()


def test_delivery_passes_write_the_lease_only_to_take_or_renew_it(loop: Flask) -> None:
    """While an endpoint stays due (a hung receiver), each process passes every second:
    the holder writes only when a third of the lease is left, the others only read."""
    clock = Clock()
    holder, other = (DeliveryThread(loop.extensions["elrepo.sessions"],
                                    loop.extensions["elrepo.event_source"], Settings(),
                                    lease_seconds=30) for _ in range(2))
    try:
        for thread in (holder, other):
            thread.deliverer.clock = clock

        def lease_writes(thread: DeliveryThread) -> tuple[bool, int]:
            with recorded_statements(loop) as statements:
                held = thread._take_lease()
            return held, sum(1 for sql, _ in statements
                             if "leases" in sql and not sql.lstrip().upper().startswith("SELECT"))

        held, writes = lease_writes(holder)
        assert held and writes >= 1  # taken: an update that finds no row, then the insert
        for _ in range(19):  # 19 passes, a second apart: held, no write, by either
            clock.now += 1
            assert lease_writes(holder) == (True, 0)
            assert lease_writes(other) == (False, 0)
        clock.now += 1  # 10 s of the 30 left: renewed
        assert lease_writes(holder) == (True, 1)
        clock.now += 31  # the holder stopped passing: the lease expired, the other takes it
        assert lease_writes(other) == (True, 1)
        assert lease_writes(holder) == (False, 0)
    finally:
        for thread in (holder, other):
            thread._pool.shutdown()


# The API.

@pytest.fixture
def hooks(app: Flask, prepared: Prepared) -> Api:
    return Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)


@sqlite_only
def test_a_registered_webhook_shows_its_secret_once(hooks: Api) -> None:
    source: ListSource = hooks.app.extensions["elrepo.event_source"]
    tenant = tenant_pk(hooks.app)
    source.add(tenant)
    source.add(tenant)
    created = hooks.post(WEBHOOKS, {"url": "https://hooks.example.com/in",
                                    "types": ["elrepo.element.updated"]})
    assert created.status_code == 200, created.get_json()
    body = created.get_json()
    assert body["count"] == 1
    [webhook] = body["values"]
    assert webhook["secret"].startswith("whsec_")
    assert (webhook["url"], webhook["types"], webhook["enabled"]) == (
        "https://hooks.example.com/in", ["elrepo.element.updated"], True)
    listed = hooks.get(WEBHOOKS).get_json()
    assert [w["id"] for w in listed["values"]] == [STANDIN_WEBHOOK, webhook["id"]]
    assert all("secret" not in w for w in listed["values"])
    with hooks.app.extensions["elrepo.sessions"]() as session:
        stored = session.scalar(select(WebhookEndpoint).where(WebhookEndpoint.id == webhook["id"]))
        assert stored is not None and stored.cursor == 2  # from the next change on
    assert hooks.get(f"{WEBHOOKS}/{webhook['id']}/deliveries").get_json() == {
        "count": 0, "values": []}
    removed = hooks.send("DELETE", f"{WEBHOOKS}/{webhook['id']}")
    assert removed.status_code == 200 and removed.get_json()["values"][0]["id"] == webhook["id"]
    assert_error(hooks.send("DELETE", f"{WEBHOOKS}/{webhook['id']}"), 404)
    assert [w["id"] for w in hooks.get(WEBHOOKS).get_json()["values"]] == [STANDIN_WEBHOOK]


@sqlite_only
@pytest.mark.parametrize("body", [
    None, [], {"url": 5}, {"types": []}, {"url": "https://a.example/", "types": "all"},
    {"url": "https://a.example/", "types": [""]}, {"url": "https://a.example/", "other": 1},
    {"url": "gopher://a.example/"}, {"url": "https://user:pw@a.example/"},
    {"url": "http://[::1]/"}, {"url": "https://a.example:0/"}, {"url": "https://a.example/#top"},
    {"url": "https://a.example/\u0000"}, {"url": "https://a.example/ä"},
    {"url": "https://bücher.example/"}, {"url": "https://a.example/" + "x" * 2048},
    {"url": "https://a.example/", "types": ["t"] * 51},
    {"url": "https://a.example/", "types": ["\u0000"]},
])
def test_bad_registrations_are_400(hooks: Api, body: Any) -> None:
    assert_error(hooks.post(WEBHOOKS, body), 400)


@sqlite_only
def test_a_url_is_checked_by_the_documented_pattern_alone(hooks: Api) -> None:
    """Its addresses are checked at each delivery (where they may have changed), so a
    private one registers and its deliveries fail (test_a_delivery_to_loopback_...)."""
    for url in ("http://127.0.0.1:9/", "HTTPS://xn--bcher-kva.example:8443/in?x=\"1\"",
                "http://localhost/"):
        assert hooks.post(WEBHOOKS, {"url": url}).status_code == 200, url
    assert hooks.post(WEBHOOKS, {"url": "https://a.example/in\n"}).get_json()["values"][0][
        "url"] == "https://a.example/in"  # the final line feed a pattern's `$` allows


@sqlite_only
def test_only_administrators_manage_webhooks_and_only_their_tenants(hooks: Api) -> None:
    for role in ("viewer", "editor", "approver", "architect"):
        for method, path in (("GET", WEBHOOKS), ("POST", WEBHOOKS),
                             ("DELETE", f"{WEBHOOKS}/{STANDIN_WEBHOOK}"),
                             ("GET", f"{WEBHOOKS}/{STANDIN_WEBHOOK}/deliveries")):
            body = assert_error(hooks.send(method, path, {"url": "https://a.example/"},
                                           role=role), 403)
            assert "ManageWebhooks" in body["message"]
    other_admin = hooks.other_tokens["administrator"]
    assert_error(hooks.get(WEBHOOKS, role=None, token=other_admin), 403)
    other_path = OTHER_TENANT + "/_api/rest/webhooks"
    assert hooks.get(other_path, role=None, token=other_admin).get_json()["values"] == []
    assert_error(hooks.send("DELETE", f"{other_path}/{STANDIN_WEBHOOK}", role=None,
                            token=other_admin), 404)
    assert_error(hooks.get(f"{other_path}/{STANDIN_WEBHOOK}/deliveries", role=None,
                           token=other_admin), 404)
    assert_error(hooks.get(WEBHOOKS, **{"api-version": "1.0"}), 400)


@sqlite_only
def test_a_tenant_has_at_most_twenty_webhooks(hooks: Api) -> None:
    for number in range(19):  # the stand-in tenant has one already
        assert hooks.post(WEBHOOKS, {"url": f"https://a.example/{number}"}).status_code == 200
    assert "at most 20" in assert_error(hooks.post(WEBHOOKS, {"url": "https://a.example/x"}),
                                        409)["message"]


def test_settings_read_the_webhook_variables() -> None:
    settings = Settings.from_environment({"ELREPO_WEBHOOKS_ALLOW_PRIVATE": "1",
                                          "ELREPO_WEBHOOK_RETRY_FOR": "60",
                                          "ELREPO_WEBHOOK_BACKOFF_FIRST": "0.5",
                                          "ELREPO_WEBHOOK_BACKOFF_MAX": "4"})
    assert settings == replace(Settings(), webhooks_allow_private=True, webhook_retry_for=60.0,
                               webhook_backoff_first=0.5, webhook_backoff_max=4.0)
    assert not Settings.from_environment({}).webhooks_allow_private
    with pytest.raises(ValueError, match="ELREPO_WEBHOOKS_ALLOW_PRIVATE"):
        Settings.from_environment({"ELREPO_WEBHOOKS_ALLOW_PRIVATE": "maybe"})


# `elrepo webhook test`.

def test_the_cli_sends_a_signed_sample_to_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    secret = signing.new_secret()
    with Receiver() as receiver:
        assert main(["webhook", "test", receiver.url, "--secret", secret]) == 1
        assert "127.0.0.1: private, loopback and link-local addresses are refused" in (
            capsys.readouterr().err)
        assert main(["webhook", "test", receiver.url, "--secret", secret,
                     "--allow-private"]) == 0
    [sample] = receiver.received
    assert sample.signed_by(secret) and sample.event["type"] == "elrepo.webhook.test"
    assert sample.headers["webhook-id"] == sample.event["id"]
    assert sample.headers["content-type"].startswith("application/cloudevents+json")
    assert main(["webhook", "test", receiver.url, "--secret", "whsec_%%"]) == 2
    assert main(["webhook", "test", receiver.url]) == 2
    assert main(["webhook", "test", "some-id"]) == 2
    assert "--tenant" in capsys.readouterr().err


@sqlite_only
def test_the_cli_sends_a_sample_to_a_registered_webhook(
        loop: Flask, prepared: Prepared, capsys: pytest.CaptureFixture[str]) -> None:
    db = prepared.config["DATABASE_URL"]
    with Receiver() as receiver:
        endpoint = add_endpoint(loop, tenant_pk(loop), receiver.url)
        assert main(["webhook", "test", endpoint.id, "--tenant", "demo", "default",
                     "--allow-private", "--db", db]) == 0
        assert main(["webhook", "test", endpoint.id, "--tenant", "other", "default",
                     "--allow-private", "--db", db]) == 2
        assert "not found in other/default" in capsys.readouterr().err
    [sample] = receiver.received
    assert sample.signed_by(endpoint.secret) and sample.event["source"] == "/demo/default"
