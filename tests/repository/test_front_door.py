"""The front door (docs/reliability.md, "Front door (issue 18)"): a request is checked
from its head (token, tenant, permission) before any byte of its body is read and
without the write lock; a body must arrive at a minimum rate; a chunked body stops at
the body limit with 413; OPTIONS and every answer, refusals of the server layer too,
carry `nosniff` and no HTML. Against a real `elrepo serve` over raw sockets, except where
an in-process app shows what the server cannot (what was parsed, which lock was taken)."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from repository.cli.serve import BODY_MIN_RATE_ENV, HEADER_TIMEOUT_ENV
from tests.repository.conftest import FACETS, Api, assert_error, sqlite_only
from tests.repository.test_cli import DEMO, START_SECONDS, Server
from tests.repository.test_server import Answer, answered, exchange, get, read_answer

HEADER_TIMEOUT = 2  # also the grace before the body rate counts
BODY_MIN_RATE = 1000  # bytes/s: a trickle of a few bytes a second is far below it
UPDATE = f"{DEMO}/views/detail/elements/"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("front_door")
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv(HEADER_TIMEOUT_ENV, str(HEADER_TIMEOUT))
        environment.setenv(BODY_MIN_RATE_ENV, str(BODY_MIN_RATE))
        running = Server(f"sqlite:///{directory / 'served.db'}", directory)
    yield running
    running.stop()


def post_head(length: int | None, token: str | None = None, target: str = UPDATE,
              chunked: bool = False) -> bytes:
    framing = ("Transfer-Encoding: chunked\r\n" if chunked
               else f"Content-Length: {length}\r\n")
    authorization = f"Authorization: Bearer {token}\r\n" if token else ""
    return (f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{authorization}"
            f"Content-Type: application/json\r\n{framing}\r\n").encode()


def closed_by_server(connection: socket.socket) -> bool:
    """Whether the server closed the connection (EOF, or a reset) within START_SECONDS (a hang's guard)."""
    connection.settimeout(START_SECONDS)
    try:
        return connection.recv(1) == b""
    except ConnectionResetError:
        return True


# ---- authentication from the head, before the body ---------------------------------

@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_post_without_a_token_is_401_before_any_body_byte_and_closed(server: Server) -> None:
    """Used to wait for the body (the server read and parsed it first): 400 after the
    header timeout, never a 401."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        connection.sendall(post_head(1_000_000))
        answer = read_answer(connection)  # with no body byte sent: nothing was awaited
        assert answer.status == 401 and answer.envelope()["type"] == "unauthorized"
        assert answer.headers["connection"] == "close"  # the body was not drained
        assert closed_by_server(connection)


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_100_tricklers_without_a_token_are_answered_at_once_and_gets_stay_fast(
        server: Server) -> None:
    """The issue's reproduction, bounded: 100 connections that would trickle a 1 MB
    update body each get their 401 with one body byte sent, and a small GET meanwhile
    is answered. A 401 is itself the proof that nothing waited for the body: a server
    that waits for it answers 400 or 408 at its header deadline, never 401."""
    tricklers = [socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS)
                 for _ in range(100)]
    try:
        for connection in tricklers:
            connection.sendall(post_head(1_000_000))
        for connection in tricklers:
            connection.sendall(b" ")  # a first trickle; answered or not, never waited for
            assert read_answer(connection).status == 401
        assert exchange(server, get(server, f"{DEMO}/views/list/elements")).status == 200
    finally:
        for connection in tricklers:
            connection.close()


@sqlite_only
def test_a_body_is_not_parsed_for_a_request_its_head_refuses(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """An 8 MB body of escaped surrogate pairs cost 5.5 s (1.65 s of worker CPU) before
    its 401; no parsing at all now, for 401 and 403 alike."""
    parsed: list[int] = []
    monkeypatch.setattr("repository.api.common.load_json", lambda raw: parsed.append(1))
    raw = b'{"count": 1, "elements": [' + b'"\\ud83d\\ude00",' * 1000 + b'1]}'
    update = f"{FACETS}/processes/views/detail/elements"
    assert_error(api.post_raw(update, raw, role=None), 401)
    assert_error(api.post_raw(update, raw, token="not-a-token"), 401)
    assert_error(api.post_raw(update, raw, token=api.other_tokens["editor"]), 403)
    assert_error(api.post_raw(update, raw, role="viewer"), 403)
    assert parsed == []


@sqlite_only
def test_the_checks_of_a_write_never_wait_for_the_write_lock(api: Api) -> None:
    """A POST refused from its head answers while another writer holds SQLite's write
    lock; it used to queue for the lock (BEGIN IMMEDIATE) for the token check and answer
    503 after the busy timeout. The lock is held until every refusal is in, so a check
    that waited for it would answer 503 here, not 401 or 403: no clock needed."""
    database = api.app.extensions["elrepo.engine"].url.database
    writer = sqlite3.connect(database, isolation_level=None)
    update = f"{FACETS}/processes/views/detail/elements"
    body = {"count": 1, "elements": [{"type": "task"}]}
    try:
        writer.execute("BEGIN IMMEDIATE")
        assert_error(api.post(update, body, role=None), 401)
        assert_error(api.post(update, body, role="viewer"), 403)
        assert_error(api.post(update, body, token=api.other_tokens["editor"]), 403)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert api.post(update, body, role="editor").status_code == 200


# ---- the body's minimum rate ------------------------------------------------------------

@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_body_trickled_with_a_valid_token_is_cut_with_408_json(server: Server) -> None:
    """The silence limit alone let a byte every few seconds hold a thread for ever."""
    stop = threading.Event()
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        connection.sendall(post_head(1_000_000, server.token) + b'{"count": 1, ')

        def trickle() -> None:
            while not stop.wait(0.3):
                try:
                    connection.sendall(b" ")
                except OSError:
                    return
        trickler = threading.Thread(target=trickle)
        trickler.start()
        started = time.monotonic()
        try:
            answer = read_answer(connection)
        finally:
            stop.set()
            trickler.join()
        waited = time.monotonic() - started
        assert answer.status == 408, answer
        assert f"{BODY_MIN_RATE:g} bytes/s" in str(answer.envelope()["message"])
        assert answer.headers["connection"] == "close"
        # Not before the grace (a deadline is a least wait); how long after is the
        # machine's business: the 408 naming the rate says the rate rule cut it, where a
        # server without it would wait for the trickle's 1 MB until the socket's timeout.
        assert waited > HEADER_TIMEOUT - 0.5
        assert closed_by_server(connection)


def pending_status(connection: socket.socket) -> int:
    """The status of the answer waiting on `connection`, left there to be read."""
    head = connection.recv(12, socket.MSG_PEEK)  # "HTTP/1.1 503"
    return int(head.split()[1]) if len(head.split()) > 1 else 0


def feed_above_the_rate(connections: list[socket.socket], stop: threading.Event) -> None:
    """Twice the minimum rate to every connection not answered yet, until `stop`: a body
    the server keeps reading, and keeps a thread for."""
    step = 0.05
    while not stop.wait(step):
        unanswered = set(connections) - answered(connections, at_least=0)
        for connection in unanswered:
            try:
                connection.sendall(b" " * int(2 * BODY_MIN_RATE * step))
            except OSError:
                pass  # cut meanwhile: the test's check of the cut says so


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_slow_bodies_with_valid_tokens_hold_at_most_half_the_threads(server: Server) -> None:
    """100 valid-token connections that trickle their bodies: they held every thread of
    both workers (other users' GETs timed out at 20 s, then took 11 s); now at most half
    of each worker's threads wait on bodies (16 × 2 workers), the rest answer 503 at
    once, the waiting ones 408 past the rate rule, and a GET meanwhile is answered.
    The waiting ones are fed above the minimum rate while the GET runs, so they hold
    their threads for as long as it takes on any machine: no clock in the claim."""
    tricklers = [socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS)
                 for _ in range(100)]
    try:
        for connection in tricklers:
            connection.sendall(post_head(1_000_000, server.token) + b"{")
        refused = answered(tricklers, at_least=100 - 2 * 16)
        waiting = [connection for connection in tricklers if connection not in refused]
        stop = threading.Event()
        feeder = threading.Thread(target=feed_above_the_rate, args=(waiting, stop))
        feeder.start()
        try:
            assert exchange(server, get(server, f"{DEMO}/views/list/elements")).status == 200
            # Answers in by now are refusals that came late, never a cut of a fed body.
            assert not [connection for connection in answered(waiting, at_least=0)
                        if pending_status(connection) != 503]
        finally:
            stop.set()
            feeder.join()
        answers = [read_answer(connection) for connection in tricklers]  # fed no more: 408
    finally:
        for connection in tricklers:
            connection.close()
    statuses = [answer.status for answer in answers]
    assert set(statuses) <= {408, 503}, statuses
    assert statuses.count(503) >= 100 - 2 * 16, statuses
    busy = next(answer for answer in answers if answer.status == 503)
    assert busy.envelope()["type"] == "critical" and busy.headers["retry-after"] == "5"


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_body_at_a_steady_rate_is_read(server: Server) -> None:
    body = json.dumps({"count": 1, "elements": [{"type": "task"}]}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        connection.sendall(post_head(len(body), server.token))
        for start in range(0, len(body), 10):  # slower than one go, far above the rate
            connection.sendall(body[start:start + 10])
            time.sleep(0.01)
        assert read_answer(connection).status == 200


# ---- chunked bodies, OPTIONS, nosniff -----------------------------------------------------

@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_chunked_body_over_10_mib_is_413_json(server: Server) -> None:
    """It used to be cut at 10 MiB and refused as invalid JSON (400)."""
    chunk = b"x" * (1024 * 1024)
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        connection.sendall(post_head(None, server.token, chunked=True))
        try:
            for _ in range(11):
                connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed before taking it all: fine
        answer = read_answer(connection)
    assert answer.status == 413 and answer.envelope()["type"] == "error"


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_chunked_body_within_the_limit_is_read(server: Server) -> None:
    body = json.dumps({"count": 1, "elements": [{"type": "task"}]}).encode()
    raw = post_head(None, server.token, chunked=True) + b"%x\r\n%s\r\n0\r\n\r\n" % (
        len(body), body)
    assert exchange(server, raw).status == 200


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_options_answers_204_with_allow_and_no_html(server: Server) -> None:
    """It answered 200 with an empty text/html page."""
    answer = exchange(server, f"OPTIONS {DEMO}/views HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Connection: close\r\n\r\n".encode())
    assert answer.status == 204 and answer.body == b""
    assert "content-type" not in answer.headers
    assert set(answer.headers["allow"].replace(" ", "").split(",")) >= {"GET", "OPTIONS"}
    assert answer.headers["x-content-type-options"] == "nosniff"


@pytest.mark.slow  # starts elrepo serve in its own processes
@pytest.mark.parametrize("raw", [
    pytest.param(lambda s: get(s, f"{DEMO}/views/list/elements"), id="200"),
    pytest.param(lambda s: get(s, "/openapi.json"), id="openapi"),
    pytest.param(lambda s: get(s, f"{DEMO}/views/list/nope"), id="404"),
    pytest.param(lambda s: post_head(10), id="401"),
    pytest.param(lambda s: b"GARBAGE\r\n\r\n", id="server-layer 400"),
])
def test_every_answer_says_nosniff(server: Server, raw: object) -> None:
    """JSON answers lacked it (only renders and the viewer had it)."""
    assert callable(raw)
    answer: Answer = exchange(server, raw(server))
    assert answer.headers["x-content-type-options"] == "nosniff", answer


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_head_that_stalls_is_a_408_envelope_with_nosniff(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        connection.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = read_answer(connection)
    assert answer.status == 408 and answer.envelope()["type"] == "error"
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_serve_refuses_a_short_maintenance_token(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from repository.cli import main

    monkeypatch.setenv("ELREPO_SERVICE_AUTH_TOKEN", "maintenance")
    database = tmp_path / "unused.db"
    assert main(["serve", "--port", "0", "--db", f"sqlite:///{database}"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "ELREPO_SERVICE_AUTH_TOKEN" in error
    assert "secrets.token_urlsafe" in error and not database.exists()


@pytest.mark.parametrize("value", ["0", "-5", "abc", "inf"])
def test_a_bad_body_min_rate_is_one_line_exit_2(tmp_path: Path, value: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from repository.cli import main

    assert main(["serve", "--body-min-rate", value, "--port", "0",
                 "--db", f"sqlite:///{tmp_path / 'unused.db'}"]) == 2
    assert "--body-min-rate" in capsys.readouterr().err
