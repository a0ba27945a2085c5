"""The `elrepo` commands: tenant and token create, render, export (in process), and
`elrepo serve` as a real gunicorn process over HTTP."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from layouts.keys import LAYOUT_KEYS
from repository.app import create_app
from repository.cli import main
from repository.demo import load_demo
from repository.fixtures import diagram_fixture
from repository.store import Store
from tests.conftest import RENDER_SECONDS
from tests.repository.conftest import in_schema, postgres_schema
from tests.repository.standin import ORDER, standin_tenant


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def test_tenant_and_token_create(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tenant", "create", "acme", "main", "--db", db]) == 0
    assert main(["tenant", "create", "acme", "main", "--db", db]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["token", "create", "acme", "main", "--role", "editor", "--db", db]) == 0
    out, err = capsys.readouterr()
    token = out.strip().splitlines()[-1]
    assert len(token) > 30 and "shown only once" in err
    client = create_app({"DATABASE_URL": db}).test_client()
    response = client.get("/acme/main/_api/rest/facets/processes/views/list/elements",
                          headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200 and response.get_json() == {"count": 0, "elements": []}


@pytest.mark.parametrize("name", ["a.b", "with space", "x" * 65, "../up", ""])
def test_tenant_create_refuses_unusable_ids(db: str, name: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tenant", "create", name, "main", "--db", db]) == 2
    assert "Tenant ids use" in capsys.readouterr().err


def test_token_create_for_unknown_tenant_fails_cleanly(db: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["token", "create", "no", "body", "--role", "viewer", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def printed_command(err: str, command: str, **values: str) -> list[str]:
    """The arguments of the first `elrepo <command> ...` a hint printed (to the end of
    its line), placeholders (ROLE) filled in."""
    found = re.search(rf"elrepo ({re.escape(command)}.*)$", err, re.MULTILINE)
    assert found is not None, err
    return [values.get(word, word) for word in shlex.split(found.group(1))]


def test_hints_run_as_printed_with_the_database_they_were_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'with space.db'}"
    assert main(["token", "create", "new", "tenant", "--role", "viewer", "--db", db]) == 2
    assert main(printed_command(capsys.readouterr().err, "tenant create")) == 0
    assert main(printed_command(capsys.readouterr().err, "token create",
                                ROLE="viewer")) == 0
    assert "shown only once" in capsys.readouterr().err


def test_token_create_honours_the_database_environment_variable(
        db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ELREPO_DATABASE_URL", db)
    assert main(["tenant", "create", "env", "tenant"]) == 0
    assert main(["token", "create", "env", "tenant", "--role", "viewer"]) == 0


@pytest.fixture
def fixture_file(tmp_path: Path, db: str) -> Path:
    app = create_app({"DATABASE_URL": db})
    with app.extensions["elrepo.sessions"]() as session:
        tenant = load_demo(session, elements=standin_tenant())
        session.commit()
        store = Store(session, tenant)
        fixture = diagram_fixture(store, store.reads.element(ORDER))
    path = tmp_path / "order.json"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    return path


def test_render_writes_svg_to_a_file_and_to_stdout(fixture_file: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "order.svg"
    assert main(["render", str(fixture_file), "--layout", "horizontal", "-o", str(out)]) == 0
    assert "<svg" in out.read_text(encoding="utf-8")
    assert main(["render", str(fixture_file), "--layout", "vertical", "--culture", "1031"]) == 0
    assert "<svg" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["{not json", "[]", '{"diagram": 5}', "\udcff"])
def test_render_bad_input_is_one_line_exit_2(tmp_path: Path, content: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    assert main(["render", str(path), "--layout", "horizontal"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_render_missing_file_and_unknown_layout(fixture_file: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "/nonexistent.json", "--layout", "horizontal"]) == 2
    assert main(["render", str(fixture_file), "--layout", "spiral"]) == 2
    assert "spiral" in capsys.readouterr().err


@pytest.mark.parametrize("content", ['{"values": []}', "{}"])
def test_render_of_a_diagram_without_shapes_is_one_line_exit_2(
        tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.json"
    path.write_text(content, encoding="utf-8")
    assert main(["render", str(path), "--layout", "horizontal"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "has no shapes" in captured.err


@pytest.mark.parametrize("culture", ["abc", "0", "-5", "01033", "99999999999"])
def test_render_and_export_refuse_what_is_not_a_culture_id(
        fixture_file: Path, db: str, tmp_path: Path, culture: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", str(fixture_file), "--layout", "horizontal",
                 "--culture", culture]) == 2
    assert main(["export", "--db", db, "demo", "default", "-o", str(tmp_path / "out"),
                 "--culture", culture]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and err.count("elrepo: --culture: culture ") == 2
    assert not (tmp_path / "out").exists()


COMMANDS = [["serve"], ["db", "upgrade"], ["tenant", "create"], ["token", "create"],
            ["render"], ["export"], ["webhook", "test"]]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_of_every_command_shows_the_defaults_and_layout_keys(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_status:
        main([*command, "--help"])
    assert exit_status.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())  # unwrapped
    if "--db URL" in shown:
        assert "(default: ELREPO_DATABASE_URL, else sqlite:///elrepo.db)" in shown
        assert "pip install -e '.[postgres]'" in shown
    if "--layout" in shown:
        assert f"layout key: {', '.join(LAYOUT_KEYS)}" in shown
    expected = {"serve": ["--port PORT port to listen on (default: 8080)",
                          "(default: 127.0.0.1)", "(default: 2)", "pip install -e '.[redis]'"],
                "render": ["(default: 1033)", "(default: standard output)"],
                "export": ["(default: svg)", "(default: 1033)", "(default: horizontal)",
                           "renders in parallel (default: 1)"],
                "token": ["viewer, analyzer, editor, architect, approver, administrator"]}
    for wanted in expected.get(command[0], []):
        assert wanted in shown, wanted


def test_help_and_light_commands_load_no_database_web_or_engine_module() -> None:
    probe = (
        "import sys\n"
        "from repository.cli import main\n"
        "for argv in (['--help'], ['serve', '--help'], ['render', '--help'],"
        " ['export', '--help'], ['db', 'upgrade', '--help'], ['worker', '--help'],"
        " ['webhook', 'test', '--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = {'sqlalchemy', 'alembic', 'flask', 'werkzeug', 'gunicorn', 'scipy', 'highspy', 'numpy',"
        " 'fontTools', 'lark', 'redis', 'celery', 'lxml', 'pyphen', 'interchange', 'celery', 'kombu'}\n"
        # The renderer's name and culture tables are plain dicts; its engine modules are not.
        "engine = {'renderer.api', 'renderer.text', 'renderer.svg', 'layouts.registry'}\n"
        "loaded = {name.split('.')[0] for name in sys.modules} & heavy | set(sys.modules) & engine\n"
        "print(sorted(loaded), file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2], timeout=60, check=True)
    assert result.stderr.strip() == "[]"


def test_a_second_serve_on_the_same_database_says_it_serves_the_data_already_there(
        db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("repository.server.run", lambda **_: None)
    assert main(["serve", "--port", "0", "--db", db]) == 0
    first = capsys.readouterr()
    assert len(first.out.strip()) > 30 and "Loaded the demo tenant" in first.err
    assert main(["serve", "--port", "0", "--db", db]) == 0
    again = capsys.readouterr()
    assert again.out == "" and "Loaded" not in again.err
    assert "Serving the data already in the database; earlier tokens stay valid." in again.err
    # paste-ready: the demo's names and a role, nothing to fill in
    pasted = printed_command(again.err, "token create")
    assert pasted[:6] == ["token", "create", "demo", "default", "--role", "editor"]
    assert main(pasted) == 0
    assert len(capsys.readouterr().out.strip()) > 30  # the token, alone on standard output


def test_a_postgresql_url_without_its_driver_gets_a_one_line_hint(
        capsys: pytest.CaptureFixture[str]) -> None:
    # pg8000 stands for any driver this venv lacks (psycopg is installed for the tests)
    assert main(["tenant", "create", "a", "b", "--db", "postgresql+pg8000://u@127.0.0.1:1/x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -e '.[postgres]'" in err and "pg8000" in err


def test_serve_with_no_demo_on_an_empty_database_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("repository.server.run", lambda **_: None)
    db = f"sqlite:///{tmp_path / 'no demo.db'}"
    assert main(["serve", "--no-demo", "--port", "0", "--db", db]) == 0
    err = capsys.readouterr().err
    assert "Empty database, no demo loaded (--no-demo)" in err
    assert main(printed_command(err, "tenant create", COLLECTION="acme", STORAGE="main")) == 0
    assert main(printed_command(err, "token create", COLLECTION="acme", STORAGE="main",
                                ROLE="viewer")) == 0


def test_export_writes_every_diagram(fixture_file: Path, db: str, tmp_path: Path) -> None:
    out = tmp_path / "export"
    assert main(["export", "--db", db, "demo", "default", "-o", str(out),
                 "--layout", "horizontal", "--layout", "vertical"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "Order_to_cash-mp-order.horizontal.svg", "Order_to_cash-mp-order.vertical.svg"]


def test_export_unknown_tenant_or_layout_is_exit_2(db: str, tmp_path: Path) -> None:
    assert main(["export", "--db", db, "no", "body", "-o", str(tmp_path / "x")]) == 2
    assert main(["export", "--db", db, "no", "body", "-o", str(tmp_path / "x"),
                 "--layout", "spiral"]) == 2


# ---- elrepo serve over HTTP -----------------------------------------------------------

#: How long `elrepo serve` may take to start listening: generous, since a loaded machine
#: is slow to start Python processes (two servers on PostgreSQL beside five engineers' work,
#: load average 23 on two cores, missed 120 s), and a server that starts never waits it out.
START_SECONDS = 300
VIEWER_LINE = re.compile(r"^Viewer: http://127\.0\.0\.1:(\d+)/ui/", re.MULTILINE)


def served_port(log_path: Path, process: subprocess.Popen[Any]) -> int:
    """The port `elrepo serve --port 0` listens on, as its Viewer line in the log names it."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        found = VIEWER_LINE.search(log_path.read_text(encoding="utf-8")) if log_path.exists() else None
        if found:
            return int(found.group(1))
        assert process.poll() is None, log_path.read_text(encoding="utf-8")
        time.sleep(0.1)
    raise AssertionError(f"elrepo serve named no port in {START_SECONDS} s")


class Server:
    """A real `elrepo serve` on port 0 (a free port it names). Its standard error goes to
    `log_name` in `cwd`, and so does its output after the token line (copied by a thread,
    because a pipe nobody reads fills up after some hundred access-log lines and then
    blocks every worker). `token`: the one a server that loaded the demo printed, for
    another server on the same database (which prints none)."""

    def __init__(self, db: str, cwd: Path, *options: str, token: str | None = None,
                 log_name: str = "serve.log") -> None:
        self.log_path = cwd / log_name
        self._log = self.log_path.open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "repository.cli", "serve", "--port", "0",
             "--db", db, "--workers", "2", *options],
            stdout=subprocess.PIPE, stderr=self._log, text=True, cwd=cwd,
            env={**os.environ, "ELREPO_SERVICE_AUTH_TOKEN": SERVICE_TOKEN,
                 "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        assert self.process.stdout is not None
        self.token = token or self.process.stdout.readline().strip()
        self._copier = threading.Thread(target=self._copy_output, args=(self.process.stdout,),
                                        daemon=True)
        self._copier.start()
        self.port = served_port(self.log_path, self.process)
        self._wait_until_listening()

    def _copy_output(self, stream: IO[str]) -> None:
        for line in stream:
            self._log.write(line)
        self._log.flush()

    def _wait_until_listening(self) -> None:
        """Until a worker answers HTTP: `elrepo serve` binds its socket before gunicorn
        starts, so a connection alone is accepted before the server runs (and a SIGHUP
        sent then would reach a process that does not handle it yet)."""
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=START_SECONDS):
                    return
            except urllib.error.HTTPError:
                return  # any answer is from a worker
            except OSError:
                assert self.process.poll() is None, self.log_path.read_text()
                time.sleep(0.1)
        raise AssertionError("elrepo serve did not start answering")

    def request(self, path: str, method: str = "GET", body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json", **(headers or {})})
        try:
            # the server answers first: a render past its deadline is a 503
            with urllib.request.urlopen(request, timeout=RENDER_SECONDS + START_SECONDS) as response:
                return response.status, response.headers["Content-Type"], response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers["Content-Type"], error.read()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self._copier.join(timeout=30)
        self._log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("serve")
    running = Server(f"sqlite:///{directory / 'served.db'}", directory)
    yield running
    running.stop()


DEMO = "/demo/default/_api/rest/facets/processes"
SERVICE_TOKEN = "test-maintenance-token-0123456789"  # `Server`'s; serve refuses short ones


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_prints_a_working_demo_token(server: Server) -> None:
    status, content_type, body = server.request(DEMO + "/views/diagram/elements")
    assert status == 200 and content_type.startswith("application/json")
    assert json.loads(body)["count"] >= 5


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_create_content_release_and_render_over_http(server: Server) -> None:
    status, _, body = server.request(DEMO + "/views/detail/elements/", "POST", {
        "count": 1, "elements": [{"type": "mainProcess",
                                  "attributes": {"name": {"1033": "Served"}}}]})
    assert status == 200
    new_id = json.loads(body)["elements"][0]["id"]
    status, _, body = server.request(f"{DEMO}/views/diagram/elements/{new_id}/content", "POST", {
        "values": [{"shapeInfo": {"index": 0, "predecessors": []},
                    "element": {"type": "evStart", "attributes": {"name": {"1033": "Go"}}}},
                   {"shapeInfo": {"index": 1, "predecessors": [0]},
                    "element": {"type": "evEnd", "attributes": {"name": {"1033": "Done"}}}}]})
    assert status == 200 and len(json.loads(body)["values"]) == 2
    status, _, body = server.request(
        f"/demo/default/_api/release/{new_id}/transitions/InProcessToReadyForRelease", "POST")
    assert status == 200 and json.loads(body)["elements"][0]["state"] == "readyForRelease"
    status, content_type, body = server.request(
        f"/demo/default/_api/rest/diagram/{new_id}/render/1033/horizontal")
    assert status == 200 and content_type.startswith("image/svg+xml") and b"<svg" in body


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_takes_concurrent_writes_without_losing_any(server: Server) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def create(n: int) -> int:
        status, _, _ = server.request(DEMO + "/views/detail/elements/", "POST", {
            "count": 1,
            "elements": [{"type": "task", "attributes": {"name": {"1033": f"Concurrent {n}"}}}]})
        return status

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(create, range(24))) == {200}
    status, _, body = server.request(
        DEMO + "/views/list/elements?$filter=startswith(name,%20'Concurrent%20')")
    assert status == 200 and json.loads(body)["count"] == 24


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_errors_are_json_envelopes(server: Server) -> None:
    for path, expected in ((DEMO + "/views/detail/elements/..%2F..", 404), ("/nothing", 404),
                           (DEMO + "/views/list/elements?$filter=name%20-like%20x", 400),
                           ("/_sysadmin/_admin/_api/rest/maintain", 401)):
        status, content_type, body = server.request(path)
        assert status == expected, (path, body)
        assert content_type.startswith("application/json")
        assert set(json.loads(body)) == {"message", "output", "type", "data"}


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_maintenance_with_the_service_token(server: Server) -> None:
    status, _, body = server.request("/_sysadmin/_admin/_api/rest/maintain",
                                     headers={"service-auth-token": SERVICE_TOKEN})
    assert status == 200 and json.loads(body)["values"] == [
        {"item1": "demo.default", "item2": True}]


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_serve_on_postgresql(tmp_path: Path) -> None:
    with postgres_schema("serve") as (url, schema):
        running = Server(in_schema(url, schema), tmp_path)
        try:
            status, _, body = running.request(DEMO + "/views/diagram/elements")
            assert status == 200 and json.loads(body)["count"] >= 5
            status, _, _ = running.request(DEMO + "/views/list/elements?api-version=1.0")
            assert status == 400
        finally:
            running.stop()


def test_serve_on_a_taken_port_says_so_and_loads_nothing(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "taken.db"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", f"sqlite:///{database}"]) == 2
    captured = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1:{port}" in captured.err
    assert captured.out == "" and not database.exists()
