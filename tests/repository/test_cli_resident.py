"""The resident renderer of `elrepo render` (repository/cli/resident.py, docs/cli.md):
real client processes against real servers, each test in its own socket directory,
every server it started stopped at the end."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from repository.cli.resident import LOST_RENDER
from tests.conftest import FIXTURES, ROOT

# Every test here starts the service, its workers or the resident renderer in their own
# processes: seconds each on an idle machine (docs/testing.md).
pytestmark = pytest.mark.slow

JSON_FIXTURE = FIXTURES / "corpus" / "LoanApp_simplified.json"
BPMN_FIXTURE = FIXTURES / "bpmn" / "collaboration.message-flows.bpmn"
#: Runs `elrepo ARGS` as the console script does, then notes in PROBE_FILE whether this
#: process ran the command itself (loading the command modules) or the resident renderer
#: did. Started with -P: the working directory is not on the path (nor is it for the
#: console script), so PYTHONPATH decides which tree is loaded.
PROBE = (
    "import os, sys\n"
    "try:\n"
    "    from repository.cli import main\n"
    "    status = main()\n"
    "finally:\n"
    "    with open(os.environ['PROBE_FILE'], 'w') as probe:\n"
    "        probe.write('in-process' if 'repository.cli.common' in sys.modules else 'resident')\n"
    "sys.exit(status)\n")
PYTHON = [sys.executable, "-P"]
SERVER_START_SECONDS = 300.0  # a hang guard: a loaded two-core machine (load 20) missed 60 s


@dataclass(frozen=True)
class Run:
    status: int
    out: bytes
    err: bytes
    where: str  # "resident" or "in-process"


@dataclass(frozen=True)
class Resident:
    """A socket directory and how to run `elrepo` with it."""

    directory: Path
    python_path: Path = ROOT

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.python_path), "ELREPO_RESIDENT": "1",
                "ELREPO_RUNTIME_DIR": str(self.directory), "ELREPO_RESIDENT_IDLE": "120", **extra}

    def elrepo(self, *args: str | Path, cwd: Path = ROOT, **extra: str) -> Run:
        with tempfile.NamedTemporaryFile("r") as probe:
            result = subprocess.run([*PYTHON, "-c", PROBE, *map(str, args)], cwd=cwd,
                                    env=self.env(PROBE_FILE=probe.name, **extra),
                                    capture_output=True, timeout=120, check=False)
            return Run(result.returncode, result.stdout, result.stderr, probe.read())

    def in_process(self, *args: str | Path, cwd: Path = ROOT) -> Run:
        run = self.elrepo(*args, cwd=cwd, ELREPO_RESIDENT="0")
        assert run.where == "in-process"
        return run

    def identity(self) -> str:
        return subprocess.run(
            [*PYTHON, "-c", "from repository.cli.resident import build_identity; "
             "print(build_identity())"], env=self.env(), capture_output=True, text=True,
            check=True, timeout=60).stdout.strip()

    def wait_for_server(self, identity: str | None = None) -> int:
        """The process id of the server (of `identity`) once it takes connections."""
        deadline = time.monotonic() + SERVER_START_SECONDS
        pattern = f"render-{identity or '*'}.sock"
        while time.monotonic() < deadline:
            for path in self.directory.glob(pattern):
                pid_file = path.with_suffix(".pid")
                with socket.socket(socket.AF_UNIX) as probe:
                    try:
                        probe.connect(str(path))
                        return int(pid_file.read_text())
                    except (OSError, ValueError):
                        pass
            time.sleep(0.1)
        raise AssertionError(f"no server in {self.directory}")

    def servers(self) -> list[int]:
        """Every process started with this socket directory in its environment."""
        wanted = f"ELREPO_RUNTIME_DIR={self.directory}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid() and is_running(int(entry.name)):
                try:
                    if wanted in (entry / "environ").read_bytes().split(b"\0"):
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found


def is_running(pid: int) -> bool:
    """Alive and not a zombie (an orphaned server waits for an init that may not reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait_until_gone(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while is_running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def stop_servers(resident: Resident) -> None:
    for pid in resident.servers():
        os.kill(pid, signal.SIGTERM)
        assert wait_until_gone(pid), f"server {pid} did not stop"


@pytest.fixture
def resident() -> Iterator[Resident]:
    # Under /tmp, not pytest's tmp_path: a Unix socket's path has at most 107 bytes.
    directory = Path(tempfile.mkdtemp(prefix="elr-", dir="/tmp"))
    made = Resident(directory)
    try:
        yield made
    finally:
        stop_servers(made)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def warm() -> Iterator[Resident]:
    """One running server for the tests that only need one to be there."""
    directory = Path(tempfile.mkdtemp(prefix="elr-", dir="/tmp"))
    made = Resident(directory)
    try:
        made.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", os.devnull)
        made.wait_for_server()
        yield made
    finally:
        stop_servers(made)
        shutil.rmtree(directory, ignore_errors=True)


def test_the_first_render_starts_a_server_and_the_next_ones_are_served_by_it(
        resident: Resident, tmp_path: Path) -> None:
    expected = resident.in_process("render", JSON_FIXTURE, "--layout", "horizontal", "-o",
                                   tmp_path / "in-process.svg")
    assert expected.status == 0 and not list(resident.directory.iterdir())
    first = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / "first.svg")
    assert (first.status, first.where) == (0, "in-process")
    server = resident.wait_for_server()
    for name in ("second.svg", "third.svg"):
        served = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / name)
        assert (served.status, served.out, served.err, served.where) == (0, b"", b"", "resident")
        assert (tmp_path / name).read_bytes() == (tmp_path / "in-process.svg").read_bytes()
    assert (tmp_path / "first.svg").read_bytes() == (tmp_path / "in-process.svg").read_bytes()
    assert resident.wait_for_server() == server and resident.servers() == [server]
    assert (resident.directory.stat().st_mode & 0o777) == 0o700


def test_served_bpmn_relative_paths_and_stdout_are_the_in_process_bytes(
        warm: Resident, tmp_path: Path) -> None:
    shutil.copy(BPMN_FIXTURE, tmp_path / "model.bpmn")
    (tmp_path / "out").mkdir()
    for args in (["render", "model.bpmn", "--layout", "horizontalSwimlane"],
                 ["render", "model.bpmn", "--layout", "vertical", "--culture", "1031"]):
        expected = warm.in_process(*args, cwd=tmp_path)
        served = warm.elrepo(*args, cwd=tmp_path)
        assert served.where == "resident"
        assert (served.status, served.out, served.err) == (expected.status, expected.out, expected.err)
        assert expected.out.startswith(b"<svg") or expected.out.startswith(b"<?xml")
    served = warm.elrepo("render", "../model.bpmn", "--layout", "horizontal", "-o", "model.svg",
                         cwd=tmp_path / "out")
    assert (served.status, served.where) == (0, "resident")
    assert (tmp_path / "out" / "model.svg").read_bytes() == warm.in_process(
        "render", "model.bpmn", "--layout", "horizontal", cwd=tmp_path).out


ERROR_CASES = {
    "missing file": ["render", "missing.json", "--layout", "horizontal", "-o", "out.svg"],
    "not JSON": ["render", "bad.json", "--layout", "horizontal", "-o", "out.svg"],
    "no shapes": ["render", "empty.json", "--layout", "horizontal", "-o", "out.svg"],
    "unknown layout": ["render", str(JSON_FIXTURE), "--layout", "spiral", "-o", "out.svg"],
    "bad culture": ["render", str(JSON_FIXTURE), "--layout", "horizontal", "--culture", "abc",
                    "-o", "out.svg"],
    "no --layout (argparse)": ["render", str(JSON_FIXTURE), "-o", "out.svg"],
    "bad BPMN": ["render", "bad.bpmn", "--layout", "horizontal", "-o", "out.svg"],
}


@pytest.mark.parametrize("args", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_served_errors_are_the_in_process_lines_and_statuses(
        warm: Resident, tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "empty.json").write_text('{"values": []}', encoding="utf-8")
    (tmp_path / "bad.bpmn").write_text("<definitions", encoding="utf-8")
    expected = warm.in_process(*args, cwd=tmp_path)
    served = warm.elrepo(*args, cwd=tmp_path)
    assert served.where == "resident"
    assert (served.status, served.out, served.err) == (expected.status, expected.out, expected.err)
    assert expected.status == 2 and expected.err.startswith((b"elrepo: ", b"usage: elrepo"))
    assert b"Traceback" not in served.err and not (tmp_path / "out.svg").exists()


def test_concurrent_clients_are_all_served(warm: Resident, tmp_path: Path) -> None:
    expected = warm.in_process("render", BPMN_FIXTURE, "--layout", "horizontal").out
    probes = [tmp_path / f"probe{index}" for index in range(6)]
    clients = [subprocess.Popen([*PYTHON, "-c", PROBE, "render", str(BPMN_FIXTURE), "--layout",
                                 "horizontal", "-o", str(tmp_path / f"{index}.svg")],
                                env=warm.env(PROBE_FILE=str(probe)), cwd=ROOT)
               for index, probe in enumerate(probes)]
    assert [client.wait(timeout=120) for client in clients] == [0] * len(clients)
    assert {probe.read_text() for probe in probes} == {"resident"}
    assert all((tmp_path / f"{index}.svg").read_bytes() == expected for index in range(len(probes)))


def test_the_server_runs_nothing_but_render(warm: Resident, tmp_path: Path) -> None:
    """A request for another command, made by hand on the socket, is refused before it
    runs: no reply, no database file."""
    database = tmp_path / "made.db"
    script = (
        "import socket, sys\n"
        "from pathlib import Path\n"
        "from repository.cli import resident\n"
        "path = next(Path(sys.argv[1]).glob('render-*.sock'))\n"
        "request = resident._request(['tenant', 'create', 'a', 'b', '--db', sys.argv[2]])\n"
        "with socket.socket(socket.AF_UNIX) as connection:\n"
        "    connection.connect(str(path))\n"
        "    socket.send_fds(connection, [request], [0, 1, 2])\n"
        "    print(repr(connection.recv(100)))\n")
    reply = subprocess.run([*PYTHON, "-c", script, str(warm.directory), f"sqlite:///{database}"],
                           env=warm.env(), capture_output=True, text=True, timeout=60, check=True)
    assert reply.stdout.strip() == "b''" and not database.exists()


def test_resident_off_starts_no_server(resident: Resident, tmp_path: Path) -> None:
    for name in ("a.svg", "b.svg"):
        run = resident.in_process("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / name)
        assert run.status == 0
    time.sleep(1)
    assert not list(resident.directory.iterdir()) and resident.servers() == []


def test_a_stale_socket_is_replaced_by_a_new_server(resident: Resident, tmp_path: Path) -> None:
    stale = resident.directory / f"render-{resident.identity()}.sock"
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(stale))  # closed without unlinking: what a killed server leaves
    first = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / "a.svg")
    assert (first.status, first.err, first.where) == (0, b"", "in-process")
    resident.wait_for_server()
    second = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / "b.svg")
    assert (second.status, second.where) == (0, "resident")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o701])
def test_a_directory_others_may_enter_is_refused(resident: Resident, tmp_path: Path, mode: int) -> None:
    resident.directory.chmod(mode)
    expected = resident.in_process("render", JSON_FIXTURE, "--layout", "horizontal").out
    for _ in range(2):
        run = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal")
        assert (run.status, run.out, run.err, run.where) == (0, expected, b"", "in-process")
        time.sleep(0.5)
    assert not list(resident.directory.iterdir()) and resident.servers() == []


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the directory to another user takes root")
def test_a_directory_of_another_user_is_refused(resident: Resident) -> None:
    os.chown(resident.directory, 65534, -1)
    run = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", os.devnull)
    assert (run.status, run.where) == (0, "in-process")
    assert not list(resident.directory.iterdir()) and resident.servers() == []


def test_a_changed_build_gets_a_new_server_and_the_old_one_leaves(tmp_path: Path) -> None:
    tree = Path(tempfile.mkdtemp(prefix="elr-tree-", dir="/tmp"))
    resident = Resident(Path(tempfile.mkdtemp(prefix="elr-", dir="/tmp")), python_path=tree)
    try:
        for package in ("renderer", "layouts", "interchange", "repository"):
            shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
        resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", os.devnull)
        old = resident.wait_for_server()
        old_identity = resident.identity()
        with (tree / "renderer" / "api.py").open("a", encoding="utf-8") as module:
            module.write("# changed\n")
        new_identity = resident.identity()
        assert new_identity != old_identity
        changed = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / "a.svg")
        assert (changed.status, changed.where) == (0, "in-process")
        new = resident.wait_for_server(new_identity)
        assert new != old and wait_until_gone(old)
        assert [path.name for path in resident.directory.iterdir() if path.suffix == ".sock"] == [
            f"render-{new_identity}.sock"]
        served = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / "b.svg")
        assert (served.status, served.where) == (0, "resident")
        assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    finally:
        stop_servers(resident)
        shutil.rmtree(resident.directory, ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)


def test_an_idle_server_leaves_and_removes_its_socket(resident: Resident) -> None:
    resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", os.devnull,
                    ELREPO_RESIDENT_IDLE="3")
    # Followed by its process, which exists once the client that started it has exited:
    # its socket lives for the warm-up's end and 3 idle seconds, which a test starved of
    # CPU (load 25 on 2 cores) can miss entirely and then wait for in vain.
    servers = resident.servers()
    assert len(servers) == 1
    assert wait_until_gone(servers[0], seconds=SERVER_START_SECONDS)  # a hang guard
    assert not list(resident.directory.iterdir())


@pytest.mark.parametrize("reply", [b"", b"ready 1\n"], ids=["hangs up at once", "hangs up after ready"])
def test_a_server_hanging_up_before_the_go_falls_back_and_after_it_fails_without_rendering_twice(
        resident: Resident, tmp_path: Path, reply: bytes) -> None:
    """A server that goes away before the client's "go" leaves the render to the client;
    one that goes away after it may have begun writing: one line, exit 1, no second render."""
    with socket.socket(socket.AF_UNIX) as fake:
        fake.bind(str(resident.directory / f"render-{resident.identity()}.sock"))
        fake.listen()
        after_reply: list[bytes] = []

        def hang_up() -> None:
            connection, _ = fake.accept()
            with connection:
                connection.recv(65536)
                connection.sendall(reply)
                if reply:
                    after_reply.append(connection.recv(16))

        answering = threading.Thread(target=hang_up)
        answering.start()
        run = resident.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", tmp_path / "a.svg")
        answering.join(timeout=60)
    if reply:
        assert after_reply == [b"go\n"] and (run.status, run.out) == (1, b"")
        assert run.err.decode() == LOST_RENDER and not (tmp_path / "a.svg").exists()
    else:
        expected = resident.in_process("render", JSON_FIXTURE, "--layout", "horizontal").out
        assert (run.status, run.err, run.where) == (0, b"", "in-process")
        assert (tmp_path / "a.svg").read_bytes() == expected
    assert resident.servers() == []  # a server answered: none was started


def test_a_directory_too_deep_for_a_socket_renders_in_process_and_leaves_nothing(resident: Resident) -> None:
    deep = Resident(resident.directory / ("d" * 100))
    run = deep.elrepo("render", JSON_FIXTURE, "--layout", "horizontal", "-o", os.devnull)
    assert (run.status, run.err, run.where) == (0, b"", "in-process")
    time.sleep(0.5)
    assert not list(deep.directory.iterdir()) and deep.servers() == []


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and is_running(int(entry.name)):
            try:
                stat_fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat_fields[1]) == pid:
                found.append(int(entry.name))
    return found


def test_ctrl_c_in_the_client_stops_the_served_render(warm: Resident, tmp_path: Path) -> None:
    """As in process: exit 1, no file; and the server's child stops rendering."""
    server = warm.wait_for_server()
    deadline = time.monotonic() + 30
    while children_of(server):  # an earlier render's child may still be on its way out
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # A complete DAG of 150 shapes renders for seconds: the interrupt always comes first
    # (BPIC15_1, used before, renders in 0.4 s now and could finish before it).
    slow = tmp_path / "dense.json"
    slow.write_text(json.dumps({"values": [
        {"shapeInfo": {"index": index, "predecessors": list(range(index))},
         "element": {"type": "task", "attributes": {"name": {"1033": f"Task {index}"}}}}
        for index in range(150)]}), encoding="utf-8")
    client = subprocess.Popen([*PYTHON, "-c", PROBE, "render", str(slow), "--layout", "horizontal",
                               "-o", str(tmp_path / "big.svg")],
                              env=warm.env(PROBE_FILE=str(tmp_path / "probe")), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not children_of(server):
        assert client.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    client.send_signal(signal.SIGINT)
    _, err = client.communicate(timeout=60)
    assert (client.returncode, err) == (1, b"")
    deadline = time.monotonic() + 10
    while children_of(server):
        assert time.monotonic() < deadline, "the server's child went on rendering"
        time.sleep(0.05)
    assert not (tmp_path / "big.svg").exists()
