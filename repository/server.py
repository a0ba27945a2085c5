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
the JSON envelope.
"""

from __future__ import annotations

import json
import shutil
import socket
import struct
import tempfile
import threading
import time
from concurrent.futures import Future
from http import HTTPStatus
from typing import Any

import gunicorn.http.wsgi
from gunicorn import glogging, util
from gunicorn.app.base import BaseApplication
from gunicorn.http import errors
from gunicorn.http.message import Request
from gunicorn.http.parser import RequestParser
from gunicorn.workers.gthread import TConn, ThreadWorker
from sqlalchemy import make_url

from repository.app import RENDER_PATH_PART, create_app, error_body

THREADS_PER_WORKER = 32
MAX_REQUEST_LINE = 8190  # gunicorn's ceiling; a URL up to about 8 KiB
MAX_HEADER_FIELD = 8190
MAX_HEADER_BYTES = 16 * 1024
WORKER_HEARTBEAT_TIMEOUT = 30
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
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n")
    return head.encode("latin-1") + body


def _header_bytes(headers: list[tuple[str, str]]) -> int:
    return sum(len(name) + len(value) + 4 for name, value in headers)  # "N: v\r\n"


def _limit_silence(sock: socket.socket, seconds: float) -> None:
    """The body is read and the answer sent with blocking calls: a client that stops
    sending or reading for `seconds` makes them fail instead of holding the thread for
    ever. Kernel timeouts of each read and write, unlike `settimeout`, never cut a slow
    transfer that makes progress, and survive gunicorn's `setblocking`."""
    timeval = struct.pack("ll", int(seconds), int(seconds % 1 * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)


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


class _Worker(ThreadWorker):  # type: ignore[misc]
    """gthread plus: JSON refusals, a 16 KiB header total, a deadline for the request
    head, a limit on the client's silence after it, and connections closed on a pool
    thread instead of the event loop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout: float = self.app.header_timeout
        self._heads_lock = threading.Lock()
        self._heads_due: dict[TConn, float] = {}  # connection → when its head is overdue
        self._heads_overdue: set[TConn] = set()

    def handle(self, conn: TConn) -> Any:
        if conn.parser is None and not self.cfg.is_ssl:  # new; gthread would make its own
            conn.parser = _RequestParser(self.cfg, conn.sock, conn.client)
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
        return super().handle_request(req, conn)

    def murder_pending(self) -> None:
        """Also ends the reading of heads past their deadline: shutting the read side
        wakes the thread blocked on it, which then answers 408 (see `handle`)."""
        super().murder_pending()
        now = time.monotonic()
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
        """A graceful close lingers up to 2 s for the client to close too; on the event
        loop that would stall every connection of this worker, so a thread does it."""
        if not fs.cancelled() and fs.exception() is None and fs.result() is False:
            self.nr_conns -= 1
            try:
                self.tpool.submit(conn.close, True)
            except RuntimeError:  # the pool is gone: the worker is quitting
                conn.close()
            return
        super().finish_request(conn, fs)

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
    def __init__(self, database_url: str, redis_url: str | None, render_timeout: float,
                 header_timeout: float, options: dict[str, Any], *,
                 run_directory: str | None = None) -> None:
        self.database_url = database_url
        self.redis_url = redis_url
        self.run_directory = run_directory
        self.render_timeout = render_timeout
        self.header_timeout = header_timeout  # read by `_Worker`
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app({"DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
                           "RENDER_TIMEOUT": self.render_timeout,
                           "RUN_DIRECTORY": self.run_directory})


def run(*, database_url: str, host: str, port: int, workers: int, render_timeout: float,
        header_timeout: float, redis_url: str | None = None) -> None:
    """Serve until interrupted; access log to standard error. Without `redis_url` each
    worker caches renders in its own memory. A restart (SIGHUP) and the stop say what
    they do, in words rather than gunicorn's."""

    def say_restarting(arbiter: Any) -> None:
        # New workers build a new app, but with the settings given to `run` and the code
        # this process loaded: only a new `elrepo serve` picks up other settings or code.
        arbiter.log.info("Restarting the workers (SIGHUP) with the settings elrepo serve "
                         "started with; for other settings or new code, stop elrepo serve "
                         "and start it again")

    def say_stopped(arbiter: Any) -> None:
        arbiter.log.info("elrepo serve stopped; the data stays in %s",
                         make_url(database_url))  # str() of a URL masks its password

    # What the workers share besides the database (timed-out renders without Redis:
    # repository/render_refusals.py): made before they fork, removed by the arbiter at
    # the stop (a finalizer would run in each worker that exits, too).
    run_directory = tempfile.mkdtemp(prefix="elrepo-serve-")

    def stopped(arbiter: Any) -> None:
        shutil.rmtree(run_directory, ignore_errors=True)
        say_stopped(arbiter)

    _Server(database_url, redis_url, render_timeout, header_timeout, {
        "bind": f"{host}:{port}",
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
    }, run_directory=run_directory).run()
