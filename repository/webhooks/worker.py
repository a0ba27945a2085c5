"""The delivery loop (docs/events.md, "Webhooks"). For each enabled endpoint whose next
attempt is due, `Deliverer.deliver_endpoint` sends the events after its cursor one at a
time, in the feed's order, each signed afresh per attempt: a 2xx moves the cursor on; a
failure is retried after an exponential backoff with jitter, the next events waiting
behind it (order per endpoint), until the event has been tried for `retry_for` seconds:
then it is marked failed in the delivery log and the cursor moves past it. An endpoint
that has not had one success for `retry_for` seconds is disabled, and an event
`elrepo.webhook.disabled` goes into its tenant's feed.

No database connection is held while a receiver is asked: the events are read in one
short transaction, each outcome written in another. The outcome is written only when the
endpoint still is where the attempt found it (cursor, enabled) and, under a lease, only
while the lease is held: a process that lost the lease (hung past its time-to-live)
writes nothing, and the one that took over sends the event again (at least once; the
`webhook-id` tells a receiver it has seen it).

`DeliveryThread` runs passes in the background of an `elrepo serve` worker: every worker
process has one, and only the one holding the lease `LEASE_NAME` delivers, so however
many workers and hosts serve one database, each event goes out once per endpoint. A
slow receiver holds one of `CONCURRENT_ENDPOINTS` threads, not the others' deliveries.
"""

from __future__ import annotations

import json
import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from repository.settings import Settings
from repository.store.changes import WEBHOOK_DISABLED
from repository.store.db import open_session
from repository.store.leases import current_holder, holds_lease, take_lease
from repository.store.models import WebhookDelivery, WebhookEndpoint
from repository.webhooks import sender
from repository.webhooks.endpoints import trim_log, wanted_types
from repository.webhooks.signing import signed_headers
from repository.webhooks.source import EVENT_SOURCE, EventSource, FeedEvent

LEASE_NAME = "webhook-deliveries"
LEASE_SECONDS = 30.0
POLL_SECONDS = 1.0
EVENTS_PER_READ = 100
CONCURRENT_ENDPOINTS = 8
Send = Callable[..., sender.Outcome]
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    first: float  # the delay after the first failure, seconds
    longest: float  # the longest delay between two attempts
    retry_for: float  # an event is given up, an endpoint disabled, after this

    @classmethod
    def of(cls, settings: Settings) -> RetryPolicy:
        return cls(settings.webhook_backoff_first, settings.webhook_backoff_max,
                   settings.webhook_retry_for)

    def delay(self, failures: int, rng: random.Random) -> float:
        """The wait after `failures` failed attempts in a row: doubling from `first` up to
        `longest`, then a random half of it taken off, so receivers that failed together
        are not all retried at the same instant."""
        doubled = self.first * 2.0 ** min(failures - 1, 64)
        return min(self.longest, doubled) * rng.uniform(0.5, 1.0)


def event_body(event: FeedEvent) -> bytes:
    """The delivery's body: the event's CloudEvent in JSON."""
    return _json(event.cloud_event)


def sample_body(message_id: str, event_type: str, source: str) -> bytes:
    """A CloudEvent of no change, for `elrepo webhook test`."""
    return _json({"specversion": "1.0", "id": message_id, "source": source,
                  "type": event_type, "time": datetime.now(UTC).isoformat(timespec="seconds"),
                  "datacontenttype": "application/json",
                  "data": {"message": "A sample from elrepo webhook test; nothing changed"}})


def _json(cloud_event: dict[str, object]) -> bytes:
    return json.dumps(cloud_event, ensure_ascii=False, separators=(",", ":")).encode()


def event_id(event: FeedEvent) -> str:
    """The delivery's `webhook-id`: the CloudEvent's id, the same on every retry."""
    return str(event.cloud_event["id"])


class Deliverer:
    """Delivers what is due; `clock` gives epoch seconds (tests pass their own)."""

    def __init__(self, sessions: sessionmaker[Session], source: EventSource,
                 policy: RetryPolicy, *, allow_private: bool, send: Send = sender.post,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None,
                 lease_holder: str | None = None) -> None:
        self.sessions = sessions
        self.source = source
        self.policy = policy
        self.allow_private = allow_private
        self.send = send
        self.clock = clock
        self.rng = rng or random.Random()
        self.lease_holder = lease_holder  # None: no lease guards the writes

    def due_endpoints(self) -> list[int]:
        with self.sessions() as session:
            return list(session.scalars(select(WebhookEndpoint.pk).where(
                WebhookEndpoint.enabled.is_(True),
                WebhookEndpoint.next_attempt_at <= self.clock()).order_by(WebhookEndpoint.pk)))

    def deliver_due(self) -> None:
        """One pass, one endpoint after the other (the thread runs them side by side)."""
        for endpoint_pk in self.due_endpoints():
            self.deliver_endpoint(endpoint_pk)

    def deliver_endpoint(self, endpoint_pk: int) -> None:
        """The endpoint's events after its cursor, in order, until one fails or none
        is left of one read."""
        with self.sessions() as session:
            endpoint = session.get(WebhookEndpoint, endpoint_pk)
            if endpoint is None or not endpoint.enabled or endpoint.next_attempt_at > self.clock():
                return
            session.expunge(endpoint)  # a snapshot: the session ends before any send
            events = self.source.read(session, endpoint.tenant_pk, endpoint.cursor,
                                      EVENTS_PER_READ)
        types = wanted_types(endpoint)
        cursor = endpoint.cursor
        for event in events:
            if event.tenant_id != endpoint.tenant_pk:  # never another tenant's event
                raise RuntimeError(f"The feed gave tenant {event.tenant_id}'s event for "
                                   f"tenant {endpoint.tenant_pk}")
            if types and event.event_type not in types:
                continue  # not asked for: the cursor passes it with the next write
            body = event_body(event)
            headers = signed_headers(endpoint.secret, event_id(event), int(self.clock()), body)
            outcome = self.send(endpoint.url, body, headers, allow_private=self.allow_private)
            moved = self._write_outcome(endpoint_pk, cursor, event, outcome)
            if moved is None:
                return
            cursor = moved
            if not outcome.delivered and cursor != event.sequence:
                return  # retried later; the events behind it wait
        if events and cursor != events[-1].sequence:
            self._skip_to(endpoint_pk, cursor, events[-1].sequence)

    def _write_outcome(self, endpoint_pk: int, cursor: int, event: FeedEvent,
                       outcome: sender.Outcome) -> int | None:
        """Record one attempt; the endpoint's cursor after it, None when the endpoint
        moved on meanwhile (removed, disabled, delivered by another) or the lease is lost."""
        with open_session(self.sessions, write=True) as session:
            now = self.clock()
            endpoint = self._unchanged(session, endpoint_pk, cursor, now)
            if endpoint is None:
                return None
            delivery = session.scalar(select(WebhookDelivery).where(
                WebhookDelivery.endpoint_pk == endpoint_pk,
                WebhookDelivery.sequence == event.sequence))
            if delivery is None:
                delivery = WebhookDelivery(
                    endpoint_pk=endpoint_pk, sequence=event.sequence, event_id=event_id(event),
                    event_type=event.event_type, status="retrying", attempts=0,
                    first_attempt_at=now, last_attempt_at=now)
                session.add(delivery)
            delivery.attempts += 1
            delivery.last_status, delivery.last_error = outcome.status, outcome.error
            delivery.last_attempt_at = now
            if outcome.delivered:
                delivery.status = "delivered"
                endpoint.cursor, endpoint.failing_since, endpoint.next_attempt_at = (
                    event.sequence, None, 0.0)
            else:
                self._failed(session, endpoint, delivery, event, now)
            session.flush()
            trim_log(session, endpoint_pk)
            session.commit()
            return endpoint.cursor

    def _failed(self, session: Session, endpoint: WebhookEndpoint, delivery: WebhookDelivery,
                event: FeedEvent, now: float) -> None:
        if endpoint.failing_since is None:
            endpoint.failing_since = now
        if now - delivery.first_attempt_at >= self.policy.retry_for:
            delivery.status = "failed"  # given up: the next event goes out next
            endpoint.cursor, endpoint.next_attempt_at = event.sequence, now
        else:
            delivery.status = "retrying"
            endpoint.next_attempt_at = now + self.policy.delay(delivery.attempts, self.rng)
        if now - endpoint.failing_since >= self.policy.retry_for:
            endpoint.enabled = False
            endpoint.disabled_reason = (
                f"No delivery succeeded for {self.policy.retry_for:g} s; the last attempt: "
                f"{delivery.last_error}")
            self.source.record(session, endpoint.tenant_pk, WEBHOOK_DISABLED, endpoint.id, {
                "webhookId": endpoint.id, "url": endpoint.url,
                "reason": endpoint.disabled_reason})

    def _skip_to(self, endpoint_pk: int, cursor: int, sequence: int) -> None:
        """Move the cursor over events the endpoint did not ask for."""
        with open_session(self.sessions, write=True) as session:
            endpoint = self._unchanged(session, endpoint_pk, cursor, self.clock())
            if endpoint is not None:
                endpoint.cursor = sequence
                session.commit()

    def _unchanged(self, session: Session, endpoint_pk: int, cursor: int,
                   now: float) -> WebhookEndpoint | None:
        endpoint = session.get(WebhookEndpoint, endpoint_pk)
        if endpoint is None or not endpoint.enabled or endpoint.cursor != cursor:
            return None
        if self.lease_holder is not None and not holds_lease(session, LEASE_NAME,
                                                             self.lease_holder, now):
            return None
        return endpoint


def start_deliveries(app: Flask) -> DeliveryThread:
    """The delivery thread of an app's process (each `elrepo serve` worker's)."""
    return DeliveryThread(app.extensions["elrepo.sessions"], app.extensions[EVENT_SOURCE],
                          app.extensions["elrepo.settings"]).start()


def process_name() -> str:
    """A lease holder's name: unique per process, readable in the table."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class DeliveryThread:
    """Passes in the background, `poll` seconds apart: when an endpoint is due, take (or
    renew) the lease, then hand each due endpoint not already being delivered to one of
    the pool's threads."""

    def __init__(self, sessions: sessionmaker[Session], source: EventSource,
                 settings: Settings, *, poll: float = POLL_SECONDS,
                 lease_seconds: float = LEASE_SECONDS, send: Send = sender.post) -> None:
        self.holder = process_name()
        self.deliverer = Deliverer(sessions, source, RetryPolicy.of(settings),
                                   allow_private=settings.webhooks_allow_private, send=send,
                                   lease_holder=self.holder)
        self.poll = poll
        self.lease_seconds = lease_seconds
        self._held_until = 0.0  # when the lease this process last took or renewed expires
        self._stop = threading.Event()
        self._busy: set[int] = set()
        self._busy_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(CONCURRENT_ENDPOINTS, thread_name_prefix="webhook")
        self._thread = threading.Thread(target=self._run, name="webhook-deliveries",
                                        daemon=True)

    def start(self) -> DeliveryThread:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                due = self.deliverer.due_endpoints()
                # None enabled: no write (most services have no webhooks at all).
                if due and self._take_lease():
                    self._hand_out(due)
            except Exception:  # a lost database: try again at the next pass
                _log.exception("Webhook delivery pass failed")
            self._stop.wait(self.poll)

    def _take_lease(self) -> bool:
        """Whether this process holds the lease. It writes only to take it or to renew it
        with a third of its time left: while an endpoint stays due (a hung receiver), a
        write each pass in every process that also answers requests was a cost to them."""
        now = self.deliverer.clock()
        if now < self._held_until - self.lease_seconds / 3:
            return True  # the deliverer's writes still check the lease (`holds_lease`)
        with open_session(self.deliverer.sessions, write=False) as session:
            holder = current_holder(session, LEASE_NAME, now)
        if holder is not None and holder != self.holder:
            return False  # another process's, unexpired: read, no write
        with open_session(self.deliverer.sessions, write=True) as session:
            held = take_lease(session, LEASE_NAME, self.holder, now, self.lease_seconds)
            session.commit()
        self._held_until = now + self.lease_seconds if held else 0.0
        return held

    def _hand_out(self, due: list[int]) -> None:
        for endpoint_pk in due:
            with self._busy_lock:
                if endpoint_pk in self._busy:
                    continue
                self._busy.add(endpoint_pk)
            self._pool.submit(self._deliver, endpoint_pk)

    def _deliver(self, endpoint_pk: int) -> None:
        try:
            self.deliverer.deliver_endpoint(endpoint_pk)
        except Exception:
            _log.exception("Webhook delivery to endpoint %s failed", endpoint_pk)
        finally:
            with self._busy_lock:
                self._busy.discard(endpoint_pk)
