"""The server layer of `elrepo serve`, over raw sockets against a real process: request
line and header limits, malformed requests, `//` paths, the `Server` header and slow
clients (docs/contract.md, "Limits and robustness"). Plus `--render-timeout` (in process)."""

from __future__ import annotations

import json
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from repository.app import create_app
from repository.cli import main
from repository.cli.serve import HEADER_TIMEOUT_ENV
from repository.server import _Server, envelope_answer, refusal_of
from repository.settings import Settings
from tests.repository.test_cli import DEMO, START_SECONDS, Server

HEADER_TIMEOUT = 2
ENVELOPE_KEYS = {"message", "output", "type", "data"}


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def envelope(self) -> dict[str, object]:
        assert self.headers.get("content-type", "").startswith("application/json"), self
        body: dict[str, object] = json.loads(self.body)
        assert set(body) == ENVELOPE_KEYS, body
        return body


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("server")
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv(HEADER_TIMEOUT_ENV, str(HEADER_TIMEOUT))
        running = Server(f"sqlite:///{directory / 'served.db'}", directory)
    yield running
    running.stop()


def read_answer(connection: socket.socket) -> Answer:
    """One HTTP/1.1 response: head, then Content-Length bytes (or up to EOF)."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(65536)
        assert chunk, f"connection closed before a response head: {received!r}"
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip()
               for name, _, value in (line.partition(":") for line in header_lines)}
    length = int(headers.get("content-length", -1))
    while length < 0 or len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            break
        body += chunk
    return Answer(int(status_line.split()[1]), headers, body)


def exchange(server: Server, raw: bytes) -> Answer:
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        connection.sendall(raw)
        return read_answer(connection)


def get(server: Server, target: str, extra_headers: str = "") -> bytes:
    return (f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            f"{server.token}\r\nConnection: close\r\n{extra_headers}\r\n").encode()


RENDER = "/demo/default/_api/rest/diagram/x/render/1033/horizontal"
RENDER_ENVELOPE_KEYS = {"message", "type", "data"}


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_url_over_8_kib_is_414_json_and_a_7_kib_filter_is_answered(server: Server) -> None:
    long_literal = "x" * 9 * 1024
    answer = exchange(server, get(server, f"{DEMO}/views/list/elements?$filter=name%20eq%20"
                                          f"'{long_literal}'"))
    assert answer.status == 414
    assert answer.envelope()["type"] == "error"
    answer = exchange(server, get(server, f"{RENDER}?x={long_literal}"))
    assert answer.status == 414 and set(json.loads(answer.body)) == RENDER_ENVELOPE_KEYS
    literal = "x" * 7 * 1024
    answer = exchange(server, get(server, f"{DEMO}/views/list/elements?$filter=name%20eq%20"
                                          f"'{literal}'"))
    assert answer.status == 200 and json.loads(answer.body)["count"] == 0


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_headers_over_16_kib_are_431_json(server: Server) -> None:
    many = "".join(f"X-Padding-{n}: {'p' * 1000}\r\n" for n in range(17))
    answer = exchange(server, get(server, "/openapi.json", many))
    assert answer.status == 431 and answer.envelope()["type"] == "error"
    one_long = f"X-Padding: {'p' * 9000}\r\n"
    answer = exchange(server, get(server, "/openapi.json", one_long))
    assert answer.status == 431 and answer.envelope()["type"] == "error"
    within = "".join(f"X-Padding-{n}: {'p' * 1000}\r\n" for n in range(14))
    assert exchange(server, get(server, "/openapi.json", within)).status == 200
    for headers in (many, one_long):
        answer = exchange(server, get(server, RENDER, headers))
        assert answer.status == 431 and set(json.loads(answer.body)) == RENDER_ENVELOPE_KEYS


def test_a_failure_outside_the_app_is_a_500_envelope() -> None:
    status, message = refusal_of(SystemExit(1))  # what a worker timeout raises
    head, _, body = envelope_answer(status, message).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 500 Internal Server Error\r\n")
    assert b"Content-Type: application/json" in head
    assert json.loads(body) == {"message": "Internal error", "output": "dialog",
                                "type": "critical", "data": [{"error": "Internal error"}]}


@pytest.mark.slow  # starts elrepo serve in its own processes
@pytest.mark.parametrize("raw", [
    b"GARBAGE\r\n\r\n",
    b"GET /openapi.json HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /openapi.json HTTP/1.1\r\nBad Header Name: x\r\n\r\n",
])
def test_a_malformed_request_is_400_json(server: Server, raw: bytes) -> None:
    answer = exchange(server, raw)
    assert answer.status == 400 and answer.envelope()["type"] == "error"


@pytest.mark.slow  # starts elrepo serve in its own processes
@pytest.mark.parametrize("path", ["/demo/default//_api/rest/facets/processes/views/list/"
                                  "elements", "/openapi.json//"])
def test_a_double_slash_path_is_a_404_envelope_that_does_not_echo_host(server: Server,
                                                                     path: str) -> None:
    raw = (f"GET {path} HTTP/1.1\r\nHost: attacker.example\r\nAuthorization: Bearer "
           f"{server.token}\r\nConnection: close\r\n\r\n").encode()
    answer = exchange(server, raw)
    assert answer.status == 404 and answer.envelope()["type"] == "error"
    assert b"attacker.example" not in answer.body
    assert not any("attacker.example" in value for value in answer.headers.values())


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_the_server_header_does_not_name_the_stack(server: Server) -> None:
    for raw in (get(server, "/openapi.json"), b"GARBAGE\r\n\r\n"):
        answer = exchange(server, raw)
        software = answer.headers.get("server", "").lower()
        assert not any(name in software for name in ("gunicorn", "werkzeug", "python"))


SLOW_STARTS = {
    # sends its head one line at a time
    "trickling": b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    # sends a whole request, then neither reads the answer nor closes
    "lingering": b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
}


def answered(connections: list[socket.socket], at_least: int) -> set[socket.socket]:
    """The connections with an answer (or the server's close) to read, once at least
    `at_least` have one: 0 asks without waiting. START_SECONDS guards a hang only."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        readable, _, _ = select.select(connections, [], [], 0 if at_least == 0 else 0.1)
        if len(readable) >= at_least:
            return set(readable)
        assert time.monotonic() < deadline, f"{len(readable)} of {at_least} answered"


@pytest.mark.slow  # starts elrepo serve in its own processes
@pytest.mark.parametrize("kind", SLOW_STARTS)
def test_16_slow_clients_leave_a_small_get_answered(server: Server, kind: str) -> None:
    """Each small GET is answered while the slow clients are still held: the trickling
    ones before their head deadline let any of them go, the lingering ones with their
    whole answers still unread. Ordered by events, not timed: a loaded machine passes."""
    stop = threading.Event()
    slow: list[socket.socket] = []

    def trickle() -> None:  # one header line per slow client every half second
        for _ in range(20):
            if stop.wait(0.5) or kind != "trickling":
                return
            for connection in slow:
                try:
                    connection.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    pass  # dropped by the server's head deadline: that is fine

    trickler = threading.Thread(target=trickle)
    try:
        for _ in range(16):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS)
            slow.append(connection)
            connection.sendall(SLOW_STARTS[kind])
        trickler.start()
        for _ in range(4):
            time.sleep(0.1)  # a few probes spread while the slow clients are busy
            with socket.create_connection(("127.0.0.1", server.port),
                                          timeout=START_SECONDS) as probe:
                probe.sendall(get(server, "/openapi.json"))
                assert read_answer(probe).status == 200
            if kind == "trickling":
                assert not answered(slow, at_least=0), "a slow head was cut before the GET"
        if kind == "lingering":  # no thread gave up on them: their answers are whole
            for connection in slow:
                answer = read_answer(connection)
                assert answer.status == 200
                assert len(answer.body) == int(answer.headers["content-length"])
    finally:
        stop.set()
        if trickler.is_alive():
            trickler.join()
        for connection in slow:
            connection.close()


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_client_that_stalls_in_its_head_gets_408_json(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        started = time.monotonic()
        connection.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = read_answer(connection)
        waited = time.monotonic() - started
    assert answer.status == 408 and answer.envelope()["type"] == "error"
    assert waited > HEADER_TIMEOUT - 0.5  # a deadline is a least wait; the rest is load


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_client_that_stalls_in_its_body_is_answered_and_let_go(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=START_SECONDS) as connection:
        started = time.monotonic()
        connection.sendall((f"POST {DEMO}/views/detail/elements/ HTTP/1.1\r\nHost: 127.0.0.1"
                            f"\r\nAuthorization: Bearer {server.token}\r\nContent-Type: "
                            "application/json\r\nContent-Length: 100\r\n\r\n{\"count\"")
                           .encode())
        answer = read_answer(connection)
        waited = time.monotonic() - started
    # 408 (the body's minimum rate, repository/server.py); it was a 400 "disconnected".
    assert answer.status == 408 and answer.envelope()["type"] == "error"
    assert waited > HEADER_TIMEOUT - 0.5  # a deadline is a least wait; the rest is load


# ---- --render-timeout ------------------------------------------------------------------

@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_says_what_a_restart_and_a_stop_do_and_opens_no_shared_control_socket(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir()
    # gunicorn's control socket would be $XDG_RUNTIME_DIR/gunicorn.ctl, else under $HOME.
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    running = Server(f"sqlite:///{tmp_path / 'restarted.db'}", tmp_path)
    try:
        running.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + START_SECONDS  # a restart boots as a start does
        while "Booting worker" not in running.log_path.read_text().partition(
                "Restarting the workers")[2]:
            assert time.monotonic() < deadline, running.log_path.read_text()
            time.sleep(0.1)
        assert running.request(DEMO + "/views/list/elements")[0] == 200
        assert list(home.iterdir()) == [] and list(runtime.iterdir()) == []
    finally:
        running.stop()
    log = running.log_path.read_text()
    assert ("Restarting the workers (SIGHUP) with the settings elrepo serve started with; "
            "for other settings or new code, stop elrepo serve and start it again") in log
    assert f"elrepo serve stopped; the data stays in sqlite:///{tmp_path}/restarted.db" in log


@pytest.mark.parametrize("option", ["--render-timeout", "--header-timeout"])
@pytest.mark.parametrize("value", ["0", "-1", "abc", "nan", "inf"])
def test_a_bad_timeout_is_one_line_exit_2(tmp_path: Path, option: str, value: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "unused.db"
    assert main(["serve", option, value, "--db", f"sqlite:///{database}"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and option in captured.err
    assert captured.out == "" and not database.exists()


def test_a_bad_render_timeout_from_the_environment_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ELREPO_RENDER_TIMEOUT", "soon")
    assert main(["serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 'unused.db'}"]) == 2
    assert "ELREPO_RENDER_TIMEOUT" in capsys.readouterr().err


@pytest.mark.slow  # starts elrepo serve in its own processes
@pytest.mark.parametrize(("flag", "environment", "expected"), [
    (["--render-timeout", "2.5"], "7", 2.5), ([], "7", 7.0), ([], None, 10.0)])
def test_the_render_timeout_reaches_the_app_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: list[str],
        environment: str | None, expected: float) -> None:
    if environment is None:
        monkeypatch.delenv("ELREPO_RENDER_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("ELREPO_RENDER_TIMEOUT", environment)
    served: dict[str, object] = {}
    monkeypatch.setattr("repository.server.run", lambda **options: served.update(options))
    assert main(["serve", "--no-demo", "--port", "0", *flag,
                 "--db", f"sqlite:///{tmp_path / 'config.db'}"]) == 0
    settings = served["settings"]
    assert isinstance(settings, Settings) and settings.render_timeout == expected
    app = _Server(settings, 1.0, {}).load().app
    assert app.config["RENDER_TIMEOUT"] == expected


# ---- more request threads than database connections ------------------------------------

def test_a_request_that_gets_no_database_connection_is_503_with_retry_after(
        tmp_path: Path) -> None:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'pool.db'}",
                      "ENGINE_OPTIONS": {"pool_size": 1, "max_overflow": 0,
                                         "pool_timeout": 0.1}})
    engine = app.extensions["elrepo.engine"]
    with engine.connect():  # another request thread holds the worker's only connection
        response = app.test_client().get(DEMO + "/views/list/elements",
                                          headers={"Authorization": "Bearer x"})
    engine.dispose()
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert set(response.get_json()) == ENVELOPE_KEYS


def test_access_lines_are_gunicorns_default_lines() -> None:
    """The trimmed access fields give the line gunicorn's own logger writes."""
    from datetime import timedelta

    from gunicorn import glogging
    from gunicorn.config import Config

    from repository.server import _Logger

    class Sent:
        status = "200 OK"
        sent = 9283
        headers = [("Content-Type", "application/json")]

    environ = {"REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": "GET",
               "RAW_URI": "/demo/default/_api/rest/facets?$page=2", "SERVER_PROTOCOL": "HTTP/1.1",
               "HTTP_USER_AGENT": "wrk", "HTTP_AUTHORIZATION": "Basic dXNlcjpwdw=="}
    request = [("USER-AGENT", "wrk")]
    elapsed = timedelta(microseconds=1500)
    config = Config()
    for response in (Sent(), type("Unsent", (), {"status": 404, "headers": []})()):
        expected = glogging.Logger(config)
        ours = _Logger(config)
        expected.now = ours.now = lambda: "[23/Nov/2026:19:45:00 +0000]"
        lines = [config.access_log_format % logger.atoms_wrapper_class(
            logger.atoms(response, request, environ, elapsed)) for logger in (expected, ours)]
        assert lines[0] == lines[1]
        assert '"GET /demo/default/_api/rest/facets?$page=2 HTTP/1.1"' in lines[1]
