"""What the webhook tests share: an event source kept in a list (`ListSource`, the
`EventSource` of repository/webhooks/source.py without the feed), a receiver on
loopback, port 0, whose behaviour a test scripts (`Receiver`), and for the delivery loop
without a network, a clock that moves when the test says (`Clock`) and a `send` that
answers from a script (`Recorder`)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from repository.webhooks import sender
from repository.webhooks.signing import verify


@dataclass(frozen=True)
class ListEvent:
    sequence: int
    tenant_id: int
    event_type: str
    subject: str
    cloud_event: dict[str, object]


@dataclass
class ListSource:
    """Each tenant's events in a list; `record` appends (the session is not used)."""

    events: dict[int, list[ListEvent]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, tenant_pk: int, event_type: str = "elrepo.element.updated",
            subject: str = "mp-order", data: dict[str, object] | None = None) -> ListEvent:
        with self.lock:
            kept = self.events.setdefault(tenant_pk, [])
            sequence = len(kept) + 1
            event = ListEvent(sequence, tenant_pk, event_type, subject, {
                "specversion": "1.0", "id": f"t{tenant_pk}-{sequence}",
                "source": f"/tenant/{tenant_pk}", "type": event_type, "subject": subject,
                "data": data or {}})
            kept.append(event)
            return event

    def read(self, session: Session, tenant_pk: int, after: int,
             limit: int) -> Sequence[ListEvent]:
        with self.lock:
            return [e for e in self.events.get(tenant_pk, []) if e.sequence > after][:limit]

    def latest(self, session: Session, tenant_pk: int) -> int:
        with self.lock:
            return len(self.events.get(tenant_pk, []))

    def record(self, session: Session, tenant_pk: int, event_type: str, subject: str,
               data: dict[str, object]) -> None:
        self.add(tenant_pk, event_type, subject, data)


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes
    status: int  # what the receiver answered

    @property
    def event(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.body)
        return parsed

    def signed_by(self, secret: str) -> bool:
        return verify(secret, self.headers, self.body, time.time())


class Receiver:
    """An HTTP server on 127.0.0.1, port 0, that records every POST. `answer(n)` gives the
    status of the n-th request (1-based): an int to answer, None to drop the connection
    unanswered (the receiver is "down"), or it may block (a hanging receiver)."""

    def __init__(self, answer: Callable[[int], int | None] = lambda _n: 200) -> None:
        self.answer = answer
        self.received: list[Received] = []
        self.requests = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.requests += 1
                    number = receiver.requests
                status = receiver.answer(number)  # may block: outside the lock
                with receiver.lock:
                    receiver.received.append(Received(
                        {k.lower(): v for k, v in self.headers.items()}, body, status or 0))
                if status is None:
                    self.close_connection = True
                    self.connection.close()  # down: no answer at all
                    return
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def accepted(self) -> list[Received]:
        with self.lock:
            return [r for r in self.received if 200 <= r.status < 300]


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    """A `send` that records and answers from a script of outcomes (then delivers)."""

    def __init__(self, *failures: bool) -> None:
        self.failures = list(failures)
        self.sent: list[tuple[str, bytes, dict[str, str]]] = []

    def __call__(self, url: str, body: bytes, headers: dict[str, str], *,
                 allow_private: bool) -> sender.Outcome:
        self.sent.append((url, body, headers))
        if self.failures and self.failures.pop(0):
            return sender.Outcome(False, 500, "answered 500 Internal Server Error")
        return sender.Outcome(True, 200, None)
