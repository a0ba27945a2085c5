"""Running the app under gunicorn: worker processes, each with a pool of request threads.

Each worker builds its own app (and so its own database engine and render cache client)
after the fork, so no connection is ever shared between processes. Threads rather than
sync workers because a request worker only waits (on the socket, the database, the
render pool): a slow client then holds one thread of many instead of a whole worker.
What was measured and what is left to a proxy in front: docs/service.md, "Workers and
the server layer".

`_Worker` is gunicorn's threaded worker with the limits of docs/contract.md, "Limits and
robustness": every refusal of the server layer (malformed request, request line or
headers too large, a head that does not arrive in time, a failure outside the app) is
the JSON envelope. A body must arrive at a minimum average rate (`_BodyReader`), a
chunked one stops at the body limit (`_CappedChunkedBody`), and a body the app did not
read (a request refused from its head) is never drained: its connection is closed
(`_FrontDoor`), lingering on the event loop (`_Worker._linger`). docs/reliability.md, "Front door (issue 18)".
"""

from __future__ import annotations

import json
import select
import selectors
import shutil
import socket
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from functools import partial
from http import HTTPStatus
from typing import Any

import gunicorn.http.wsgi
from gunicorn import glogging, util
from gunicorn.app.base import BaseApplication
from gunicorn.http import errors
from gunicorn.http.body import Body, ChunkedReader, EOFReader, LengthReader
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.http.unreader import SocketUnreader
from gunicorn.workers.gthread import TConn, ThreadWorker
from sqlalchemy import make_url
from werkzeug.exceptions import RequestEntityTooLarge, RequestTimeout, ServiceUnavailable

from repository.app import create_app
from repository.http_contract import (
    MAX_BODY_BYTES,
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELD,
    MAX_REQUEST_LINE,
    RENDER_PATH_PART,
    SECURITY_HEADERS,
    error_body,
)
from repository.settings import Settings
from repository.webhooks.worker import start_deliveries

THREADS_PER_WORKER = 32
WORKER_HEARTBEAT_TIMEOUT = 30
DEFAULT_BODY_MIN_RATE = 16 * 1024  # bytes/s: a 10 MiB body may take 10 min + the grace
# At most this many of a worker's threads wait for slow bodies at once (`_BodyReader`).
BODY_WAITING_THREADS = THREADS_PER_WORKER // 2
BODY_WAITS_RETRY_AFTER = 5
LINGER_SECONDS = 2.0  # a closed connection's wait for the client's own close
_LINGER_DRAIN_BYTES = 64 * 1024
_KEPT_LINE_BYTES = 1024  # of an overlong request line: the method and the path's start
SERVER_NAME = "elrepo"

# The `Server` header of every answer; gunicorn's would name the stack and its version.
gunicorn.http.wsgi.SERVER = SERVER_NAME

# Most specific first: the response-header errors are the app's fault, not the client's.
_REFUSALS: tuple[tuple[type[Exception], int, str], ...] = (
    (errors.InvalidResponseHeader, 500, "Internal error"),
    (errors.InvalidResponseHeaderName, 500, "Internal error"),
    (errors.ConfigurationProblem, 500, "Internal error"),
    (errors.LimitRequestLine, 414, f"The request line is longer than {MAX_REQUEST_LINE} "
                                   "bytes"),
    (errors.LimitRequestHeaders, 431, f"The request headers are larger than "
                                      f"{MAX_HEADER_BYTES // 1024} KiB, or one is longer "
                                      f"than {MAX_HEADER_FIELD} bytes"),
    (errors.ExpectationFailed, 417, "Only Expect: 100-continue is supported"),
    (errors.UnsupportedTransferCoding, 501, "Only the chunked transfer coding is "
                                            "supported"),
    (errors.ForbiddenProxyRequest, 403, "Forbidden"),
    (errors.ParseException, 400, "Malformed HTTP request"),
)


def refusal_of(exc: BaseException) -> tuple[int, str]:
    """Status and message for a request the server layer refuses or fails on."""
    return next(((status, message) for kind, status, message in _REFUSALS
                 if isinstance(exc, kind)), (500, "Internal error"))


def envelope_answer(status: int, message: str, *, render: bool = False) -> bytes:
    body = json.dumps(error_body(status, "critical" if status >= 500 else "error", message,
                                 None, render=render)).encode()
    security = "".join(f"{name}: {value}\r\n" for name, value in SECURITY_HEADERS.items())
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"{security}Connection: close\r\n\r\n")
    return head.encode("latin-1") + body


def _header_bytes(headers: list[tuple[str, str]]) -> int:
    return sum(len(name) + len(value) + 4 for name, value in headers)  # "N: v\r\n"


def _limit_silence(sock: socket.socket, seconds: float) -> None:
    """The body is read and the answer sent with blocking calls: a client that stops
    sending or reading for `seconds` makes them fail instead of holding the thread for
    ever. Kernel timeouts of each read and write, unlike `settimeout`, never cut a slow
    transfer that makes progress, and survive gunicorn's `setblocking`."""
    _set_kernel_timeout(sock, socket.SO_RCVTIMEO, seconds)
    _set_kernel_timeout(sock, socket.SO_SNDTIMEO, seconds)


def _set_kernel_timeout(sock: socket.socket, option: int, seconds: float) -> None:
    seconds = max(seconds, 0.001)  # 0 would mean "no timeout"
    timeval = struct.pack("ll", int(seconds), int(seconds % 1 * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, option, timeval)


class BodyTooSlow(RequestTimeout):
    """408 from the body reader; an HTTP error rather than an OSError, so the app's
    stream passes it on instead of calling it a disconnected client (400)."""


class BodyWaitsBusy(ServiceUnavailable):
    """503 from the body reader: as many threads as may wait for bodies already do."""


class _BodyReader(SocketUnreader):  # type: ignore[misc]
    """gunicorn's socket reader that, while a body is read, holds the client to a minimum
    average rate: by `grace + n / min_rate` seconds after the head, n bytes must have
    arrived (Apache's mod_reqtimeout `MinRate`, in one rule). Each read waits at most
    until then, so a client that trickles a byte now and then is cut like a silent one,
    with 408. Heads are not read under this rule: their deadline is `_Worker`'s.

    A read that has to wait for the client takes one of the worker's `waiting_slots`
    for the wait (bytes already there are read without one); with none left the answer
    is 503 at once. So slow bodies, even with a valid token, hold at most that many
    threads and the others stay free for everyone else."""

    def __init__(self, sock: socket.socket, min_rate: float, grace: float,
                 waiting_slots: threading.BoundedSemaphore) -> None:
        super().__init__(sock)
        self.min_rate = min_rate
        self.grace = grace
        self.waiting_slots = waiting_slots
        self._body_started: float | None = None
        self._body_bytes = 0

    def start_body(self) -> None:
        self._body_started = time.monotonic()
        self._body_bytes = 0

    def end_body(self) -> None:
        self._body_started = None

    def chunk(self, size_hint: int | None = None) -> bytes:
        if self._body_started is None or self._has_bytes():
            return self._counted(super().chunk(size_hint))
        if not self.waiting_slots.acquire(blocking=False):
            raise BodyWaitsBusy(
                "Too many request bodies are arriving slowly; nothing was read or written, "
                "try again", retry_after=BODY_WAITS_RETRY_AFTER)
        try:
            return self._counted(self._waited_chunk(size_hint))
        finally:
            self.waiting_slots.release()

    def _has_bytes(self) -> bool:
        """Whether a read returns at once: bytes are there, or the client closed. (A
        poll: the socket may carry a Python timeout, which a non-blocking recv obeys.)"""
        readiness = select.poll()
        readiness.register(self.sock, select.POLLIN)
        return bool(readiness.poll(0))

    def _counted(self, data: bytes) -> bytes:
        self._body_bytes += len(data)
        return data

    def _waited_chunk(self, size_hint: int | None) -> bytes:
        assert self._body_started is not None
        while True:
            due = self._body_started + self.grace + self._body_bytes / self.min_rate
            left = due - time.monotonic()
            if left <= 0:
                raise BodyTooSlow(
                    f"The body arrived slower than {self.min_rate:g} bytes/s on average "
                    f"(after {self.grace:g} s)")
            _set_kernel_timeout(self.sock, socket.SO_RCVTIMEO, left)
            try:
                data: bytes = super().chunk(size_hint)
            except BlockingIOError:  # the kernel timeout: the loop decides
                continue
            return data


def _read_to_its_end(body: Body) -> bool:
    """Whether the app read the request's body to its end, so the next request on the
    connection starts right after it (no body is read to its end at once)."""
    reader = body.reader
    if isinstance(reader, LengthReader):
        return reader.length == 0  # type: ignore[no-any-return]
    if isinstance(reader, ChunkedReader):
        return reader.parser is None
    return isinstance(reader, EOFReader) and reader.finished


class _CappedChunkedBody:
    """A chunked body (its length unknown until its end) as the app reads it, held to
    MAX_BODY_BYTES: Flask's stream stops at the limit without a word, which cut a larger
    body and made it invalid JSON (400); here one byte past the limit is 413."""

    def __init__(self, body: Body, limit: int) -> None:
        self._body = body
        self._limit = limit
        self._read = 0

    def read(self, size: int | None = None) -> bytes:
        return self._counted(self._body.read(size))

    def readline(self, size: int | None = None) -> bytes:
        return self._counted(self._body.readline(size))

    def readlines(self, size: int | None = None) -> list[bytes]:
        return [self._counted(line) for line in self._body.readlines(size)]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def _counted(self, data: bytes) -> bytes:
        self._read += len(data)
        if self._read > self._limit or (self._read == self._limit and self._body.read(1)):
            raise RequestEntityTooLarge()
        return data


class _FrontDoor:
    """The app as the server runs it (`app`): a chunked body held to the body limit,
    and a connection whose body the app left unread (a request refused from its head:
    401, 403, 404, 408) answered with `Connection: close` and closed. Draining that body,
    as gunicorn would before the next request, would cost the time the app just saved."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., Any]) -> Iterable[bytes]:
        body = environ.get("wsgi.input")
        if not isinstance(body, Body):
            return self.app(environ, start_response)
        if isinstance(body.reader, ChunkedReader):
            environ["wsgi.input"] = _CappedChunkedBody(body, MAX_BODY_BYTES)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            response = getattr(start_response, "__self__", None)  # gunicorn's Response
            if not _read_to_its_end(body) and response is not None:
                response.force_close()
            return start_response(status, headers, exc_info)
        return self.app(environ, start)


class _Request(Request):  # type: ignore[misc]
    """gunicorn's request that puts on its parse errors what it read of the target
    (`exc.target`): a refused render URL gets the render form of the envelope."""

    def read_line(self, unreader: Any, buf: bytearray, limit: int = 0) -> Any:
        try:
            return super().read_line(unreader, buf, limit)
        except errors.LimitRequestLine as exc:
            exc.target = bytes(buf[:_KEPT_LINE_BYTES]).decode("latin-1")
            raise

    def parse(self, unreader: Any) -> Any:
        try:
            return super().parse(unreader)
        except errors.ParseException as exc:
            if self.path is not None:  # the request line was read
                exc.target = self.path
            raise


class _RequestParser(RequestParser):  # type: ignore[misc]
    mesg_class = _Request

    def __init__(self, cfg: Any, sock: socket.socket, client: Any, min_rate: float,
                 grace: float, waiting_slots: threading.BoundedSemaphore) -> None:
        super().__init__(cfg, sock, client)
        self.unreader: _BodyReader = _BodyReader(sock, min_rate, grace, waiting_slots)


class _Worker(ThreadWorker):  # type: ignore[misc]
    """gthread plus: JSON refusals, a 16 KiB header total, a deadline for the request
    head, a minimum rate for the body, a limit on the client's silence after it, and
    connections closed on the event loop without holding a thread (`_linger`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout: float = self.app.header_timeout
        self.body_min_rate: float = self.app.body_min_rate
        self._body_waiting_slots = threading.BoundedSemaphore(BODY_WAITING_THREADS)
        self._heads_lock = threading.Lock()
        self._heads_due: dict[TConn, float] = {}  # connection → when its head is overdue
        self._heads_overdue: set[TConn] = set()
        self._lingering: dict[socket.socket, float] = {}  # → when it is closed anyway

    def handle(self, conn: TConn) -> Any:
        if conn.parser is None and not self.cfg.is_ssl:  # new; gthread would make its own
            conn.parser = _RequestParser(self.cfg, conn.sock, conn.client,
                                         self.body_min_rate, self.header_timeout,
                                         self._body_waiting_slots)
        with self._heads_lock:
            self._heads_due[conn] = time.monotonic() + self.header_timeout
        try:
            result = super().handle(conn)
        finally:
            with self._heads_lock:
                self._heads_due.pop(conn, None)
                overdue = conn in self._heads_overdue
                self._heads_overdue.discard(conn)
        if not overdue:
            return result
        self._send(conn.sock, envelope_answer(
            408, f"The request head did not arrive within {self.header_timeout:g} s"))
        return False

    def handle_request(self, req: Any, conn: TConn) -> Any:
        with self._heads_lock:  # the head is in: the deadline no longer applies
            self._heads_due.pop(conn, None)
            self._heads_overdue.discard(conn)
        _limit_silence(conn.sock, self.header_timeout)
        if _header_bytes(req.headers) > MAX_HEADER_BYTES:
            raise errors.LimitRequestHeaders("request headers over the total limit")
        reader: _BodyReader | None = getattr(conn.parser, "unreader", None)
        if not isinstance(reader, _BodyReader):  # TLS: gunicorn's own parser
            return super().handle_request(req, conn)
        reader.start_body()
        try:
            return super().handle_request(req, conn)
        finally:
            reader.end_body()
            _limit_silence(conn.sock, self.header_timeout)

    def murder_pending(self) -> None:
        """Also ends the reading of heads past their deadline: shutting the read side
        wakes the thread blocked on it, which then answers 408 (see `handle`); and closes
        connections that lingered long enough."""
        super().murder_pending()
        now = time.monotonic()
        for sock in [sock for sock, due in self._lingering.items() if due <= now]:
            self._end_linger(sock)
        with self._heads_lock:
            overdue = [conn for conn, due in self._heads_due.items() if due <= now]
            for conn in overdue:
                del self._heads_due[conn]
                self._heads_overdue.add(conn)
                try:
                    conn.sock.shutdown(socket.SHUT_RD)
                except OSError:
                    pass  # already gone

    def finish_request(self, conn: TConn, fs: Future[Any]) -> None:
        """A closed connection lingers (`_linger`) on the event loop: gunicorn's graceful
        close waits up to 2 s in a blocking call, which on the loop would stall every
        connection of this worker and on a pool thread holds the thread."""
        if not fs.cancelled() and fs.exception() is None and fs.result() is False:
            self.nr_conns -= 1
            self._linger(conn.sock)
            return
        super().finish_request(conn, fs)

    def _linger(self, sock: socket.socket) -> None:
        """RFC 9112 9.6: send our FIN, then read and drop what the client still sends
        until it closes too, LINGER_SECONDS pass or _LINGER_DRAIN_BYTES came, then close;
        closing at once with unread bytes would send a reset that can destroy the answer
        before the client read it."""
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.setblocking(False)
            self.poller.register(sock, selectors.EVENT_READ,
                                 partial(self._on_lingering_readable, [0]))
        except (OSError, ValueError, KeyError):
            util.close(sock)
            return
        self._lingering[sock] = time.monotonic() + LINGER_SECONDS

    def _on_lingering_readable(self, drained: list[int], sock: socket.socket) -> None:
        try:
            data = sock.recv(_LINGER_DRAIN_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        drained[0] += len(data)
        if not data or drained[0] >= _LINGER_DRAIN_BYTES:
            self._end_linger(sock)

    def _end_linger(self, sock: socket.socket) -> None:
        self._lingering.pop(sock, None)
        try:
            self.poller.unregister(sock)
        except (OSError, ValueError, KeyError):
            pass  # never registered, or the poller is closed: the worker is quitting
        util.close(sock)

    def handle_error(self, req: Any, client: socket.socket, addr: Any,
                     exc: BaseException) -> None:
        status, message = refusal_of(exc)
        if status >= 500:
            self.log.exception("Error handling request %s", getattr(req, "uri", ""))
        else:
            self.log.warning("Refused a request from %s: %s", (addr or ("",))[0], exc)
        target: str = getattr(req, "path", "") or getattr(exc, "target", "")
        self._send(client, envelope_answer(status, message,
                                           render=RENDER_PATH_PART in target))

    def _send(self, client: socket.socket, answer: bytes) -> None:
        try:
            util.write_nonblock(client, answer)
        except OSError:
            self.log.debug("Could not send a refusal: the client is gone")


class _Logger(glogging.Logger):  # type: ignore[misc]
    """gunicorn's logger with the access line's fields cut to those of its default format,
    the one `elrepo serve` writes (no option changes it): gunicorn's own puts every request
    header, response header and WSGI variable into each line's fields, which cost a tenth
    of a cached answer's time. The line is the same."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any],
              request_time: Any) -> dict[str, Any]:
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        return {
            "h": environ.get("REMOTE_ADDR", "-"),
            "l": "-",
            "u": self._get_user(environ) or "-",
            "t": self.now(),
            "r": f"{environ['REQUEST_METHOD']} {environ['RAW_URI']} {environ['SERVER_PROTOCOL']}",
            "s": status,
            "b": str(sent) if sent is not None else "-",
            "f": environ.get("HTTP_REFERER", "-"),
            "a": environ.get("HTTP_USER_AGENT", "-"),
        }


class _Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, header_timeout: float, options: dict[str, Any], *,
                 run_directory: str | None = None,
                 body_min_rate: float = DEFAULT_BODY_MIN_RATE) -> None:
        self.settings = settings
        self.run_directory = run_directory
        self.header_timeout = header_timeout  # read by `_Worker`
        self.body_min_rate = body_min_rate  # read by `_Worker`
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        app = create_app({"RUN_DIRECTORY": self.run_directory}, self.settings)
        # In every worker, after the fork; the lease lets one of them deliver at a time.
        start_deliveries(app)
        return _FrontDoor(app)


def run(*, settings: Settings, listener: socket.socket, workers: int, header_timeout: float,
        body_min_rate: float = DEFAULT_BODY_MIN_RATE) -> None:
    """Serve on `listener`, a bound socket (`elrepo serve` binds it first: a taken port is
    refused before anything starts, port 0 picks a free one), until interrupted; access
    log to standard error. Every worker's app gets `settings` (without a Redis URL each
    worker caches renders in its own memory). A restart (SIGHUP) and the stop say what
    they do, in words rather than gunicorn's."""

    def say_restarting(arbiter: Any) -> None:
        # New workers build a new app, but with the settings given to `run` and the code
        # this process loaded: only a new `elrepo serve` picks up other settings or code.
        arbiter.log.info("Restarting the workers (SIGHUP) with the settings elrepo serve "
                         "started with; for other settings or new code, stop elrepo serve "
                         "and start it again")

    def say_stopped(arbiter: Any) -> None:
        arbiter.log.info("elrepo serve stopped; the data stays in %s",
                         make_url(settings.database_url))  # str() of a URL masks its password

    # What the workers share besides the database (timed-out renders without Redis:
    # repository/render_refusals.py): made before they fork, removed by the arbiter at
    # the stop (a finalizer would run in each worker that exits, too).
    run_directory = tempfile.mkdtemp(prefix="elrepo-serve-")

    def stopped(arbiter: Any) -> None:
        shutil.rmtree(run_directory, ignore_errors=True)
        say_stopped(arbiter)

    options = {
        "bind": f"fd://{listener.detach()}",  # gunicorn owns the socket from now on
        "workers": max(1, workers),
        "worker_class": _Worker,
        "threads": THREADS_PER_WORKER,
        "accesslog": "-",
        "logger_class": _Logger,
        "timeout": WORKER_HEARTBEAT_TIMEOUT,
        "limit_request_line": MAX_REQUEST_LINE,
        "limit_request_field_size": MAX_HEADER_FIELD,
        "http_parser": "python",  # the one `_Request` extends
        # gunicorn's runtime control socket is one path per user ($HOME/.gunicorn): every
        # `elrepo serve` on a host would take it over from the others. Not offered.
        "control_socket_disable": True,
        "on_reload": say_restarting,
        "on_exit": stopped,
    }
    _Server(settings, header_timeout, options,
            run_directory=run_directory, body_min_rate=body_min_rate).run()
