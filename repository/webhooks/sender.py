"""One delivery: a POST of the signed body to the endpoint's URL, on the standard library's
http.client (no dependency for this), with:

- the target checked first (`targets.checked_addresses`) and the connection made to the
  checked address, the URL's host name only in `Host` and TLS's server name;
- one deadline for the whole exchange (`DEADLINE_SECONDS`): a timer shuts the socket at
  the deadline, so a receiver that answers one byte at a time cannot stretch it;
- at most `MAX_RESPONSE_BYTES` of the answer read (only its status matters);
- no redirect followed: a 3xx is a failed attempt, as is anything but 2xx."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from repository.webhooks.targets import (
    Resolver,
    Target,
    TargetRefused,
    checked_addresses,
    parse_target,
    system_resolver,
)

DEADLINE_SECONDS = 10.0
MAX_RESPONSE_BYTES = 64 * 1024
MAX_ERROR_LENGTH = 500
USER_AGENT = "elrepo-webhooks/1"


@dataclass(frozen=True, slots=True)
class Outcome:
    delivered: bool
    status: int | None  # the receiver's HTTP status; None when none came
    error: str | None  # why it failed, in a line


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to `address`, whatever the host name resolves to now."""

    def __init__(self, target: Target, address: str, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, target: Target, address: str, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout,
                         context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, body: bytes, headers: dict[str, str], *, allow_private: bool,
         deadline: float = DEADLINE_SECONDS, resolve: Resolver = system_resolver) -> Outcome:
    """POST `body` with `headers` to `url`: delivered on a 2xx answer within the
    deadline. Never raises for what the network or the receiver does."""
    try:
        target = parse_target(url)
        address = checked_addresses(target, allow_private, resolve)[0]
    except TargetRefused as error:
        return Outcome(False, None, str(error))
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target, address, deadline)
    cut = threading.Timer(deadline, _shut, (connection,))
    cut.daemon = True
    started = time.monotonic()
    cut.start()
    try:
        connection.request("POST", target.path, body, {
            "Content-Type": "application/cloudevents+json; charset=utf-8",
            "User-Agent": USER_AGENT, **headers})
        response = connection.getresponse()
        response.read(MAX_RESPONSE_BYTES)  # the rest is never read: the connection closes
    except (OSError, http.client.HTTPException) as error:
        if time.monotonic() - started >= deadline:
            return Outcome(False, None, f"no answer within {deadline:g} s")
        return Outcome(False, None, _line(f"{type(error).__name__}: {error}"))
    finally:
        cut.cancel()
        connection.close()
    if 200 <= response.status < 300:
        return Outcome(True, response.status, None)
    if 300 <= response.status < 400:
        return Outcome(False, response.status, "redirects are not followed")
    return Outcome(False, response.status, f"answered {response.status} {response.reason}")


def _shut(connection: http.client.HTTPConnection) -> None:
    """At the deadline: wake whatever read or write waits on the socket."""
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # closed meanwhile


def _line(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= MAX_ERROR_LENGTH else one[:MAX_ERROR_LENGTH - 1] + "…"
