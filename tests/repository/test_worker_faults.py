"""Faults of the Celery workers of `elrepo export --broker` (repository/distributed.py):
a render process killed mid-job (the job is rendered again, the worker goes on rendering
and stops on SIGTERM), a whole worker killed mid-export (its jobs are sent again: every
file is written, byte for byte the local export's), and the export's `--queue` and
failure lines."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kombu import Queue

from renderer.export import ExportJob, export_many
from repository.cli import main
from repository.demo import load_demo
from repository.distributed import (
    DEFAULT_RESULT_TIMEOUT_SECONDS,
    RENDER_TASK,
    VISIBILITY_TIMEOUT_SECONDS,
    celery_app,
    consuming_workers,
    export_distributed,
)
from tests.repository.test_cli import START_SECONDS
from tests.repository.test_distributed import ROOT, WORKER_COMMAND, broker_url, demo_jobs
from tests.repository.test_render_deadline import dense_values

# Every test here starts the service, its workers or the resident renderer in their own
# processes: seconds each on an idle machine (docs/testing.md).
pytestmark = pytest.mark.slow

__all__ = ["demo_jobs"]  # the module fixture, used here too

#: A diagram whose render lasts seconds (7 s of CPU on our machine): long enough to be
#: killed mid-render, as the kill follows the job's start by two asks of a second. It
#: was 150 shapes, 16 s of CPU, rendered three times a run (the killed try, the new
#: try, the test's own), and could pass the workers' hard time limit on a loaded machine.
SLOW_FIXTURE = {"values": dense_values(120)}


@functools.cache
def slow_fixture_svg() -> str:
    """The SVG of SLOW_FIXTURE rendered here, once for both brokers."""
    from renderer.api import render

    return render(SLOW_FIXTURE, "horizontal", 1033, default_culture=1033)


class Worker:
    """One `elrepo worker` in a process group of its own (a kill -9 of the group is a
    machine that vanished), logging to `log`."""

    def __init__(self, url: str, queue: str, name: str, log: Path) -> None:
        self.name = name
        self.log = log
        with log.open("w", encoding="utf-8") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-c", WORKER_COMMAND, "worker", "--broker", url, "--queue", queue,
                 "--concurrency", "1", "--name", name, "--loglevel", "INFO"],
                stdout=output, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)})

    def render_processes(self) -> list[int]:
        listed = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True,
                                text=True, check=False).stdout
        return [int(pid) for pid in listed.split()]

    def wait_for_log(self, text: str, timeout: float = START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log.read_text(encoding="utf-8"):
            assert self.process.poll() is None, self.log.read_text(encoding="utf-8")
            assert time.monotonic() < deadline, f"{text!r} not logged in {timeout:g} s"
            time.sleep(0.05)

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture(params=["redis", "rabbitmq"])
def broker(request: pytest.FixtureRequest) -> str:
    return broker_url(request.param)


def start_workers(url: str, count: int, tmp_path: Path) -> tuple[str, list[Worker]]:
    """`count` workers of one render process each on a queue of this test's own, once
    they all consume it."""
    queue = f"elrepo-test-{uuid.uuid4().hex[:12]}"
    workers = [Worker(url, queue, f"{queue}-{n}@127.0.0.1", tmp_path / f"worker-{n}.log")
               for n in range(1, count + 1)]
    app = celery_app(url, queue)
    try:
        deadline = time.monotonic() + START_SECONDS
        while consuming_workers(app) != sorted(worker.name for worker in workers):
            assert all(w.process.poll() is None for w in workers), [w.log.read_text() for w in workers]
            assert time.monotonic() < deadline, f"the workers did not start in {START_SECONDS} s"
    finally:
        app.close()
    return queue, workers


@pytest.fixture
def worker_pool(broker: str, tmp_path: Path) -> Iterator[list[tuple[str, list[Worker]]]]:
    """Started workers (`start_workers` appends here), stopped and their queue deleted."""
    started: list[tuple[str, list[Worker]]] = []
    yield started
    for queue, workers in started:
        for worker in workers:
            worker.stop()
        app = celery_app(broker, queue)
        with app.connection_for_write() as connection:
            Queue(queue).bind(connection.default_channel).delete()
        app.close()


def test_a_killed_render_process_is_replaced_its_job_rendered_again_and_sigterm_stops_the_worker(
        broker: str, worker_pool: list[tuple[str, list[Worker]]], tmp_path: Path) -> None:
    queue, [worker] = start_workers(broker, 1, tmp_path)
    worker_pool.append((queue, [worker]))
    app = celery_app(broker, queue)
    try:
        slow = app.send_task(RENDER_TASK, (SLOW_FIXTURE, "horizontal", 1033, 1033))
        deadline = time.monotonic() + START_SECONDS
        while not any(task["id"] == slow.id for tasks in (app.control.inspect(timeout=1).active() or {}).values()
                      for task in tasks):
            assert time.monotonic() < deadline, f"the slow job did not start in {START_SECONDS} s"
        [render_process] = worker.render_processes()
        os.kill(render_process, signal.SIGKILL)
        # The worker renders the next job (on Redis its new render processes used to hang
        # on a broker connection inherited from before the fork)...
        small = app.send_task(RENDER_TASK, ({"values": dense_values(3)}, "horizontal", 1033, 1033))
        assert small.get(timeout=DEFAULT_RESULT_TIMEOUT_SECONDS).startswith("<svg")
        # ... and the killed job again, in a new render process: the same SVG as here.
        assert slow.get(timeout=DEFAULT_RESULT_TIMEOUT_SECONDS) == slow_fixture_svg()
        assert "exited with 'signal 9 (SIGKILL)'" in worker.log.read_text(encoding="utf-8")
    finally:
        app.close()
    worker.process.terminate()
    worker.process.wait(timeout=30)  # a warm shutdown, not a hang


def test_kill_9_of_one_of_two_workers_mid_export_still_writes_every_file_byte_for_byte(
        broker: str, worker_pool: list[tuple[str, list[Worker]]], demo_jobs: list[ExportJob],
        tmp_path: Path) -> None:
    slow_jobs = [ExportJob(f"slow-{n}", "horizontal", {"values": dense_values(60 + n)}, 1033)
                 for n in range(6)]
    jobs = [*slow_jobs, *demo_jobs]
    local = export_many(jobs, tmp_path / "local", "svg")
    queue, workers = start_workers(broker, 2, tmp_path)
    worker_pool.append((queue, workers))
    doomed = workers[0]

    def kill_when_busy() -> None:
        doomed.wait_for_log(f"{RENDER_TASK}[")  # it holds jobs of the export
        doomed.kill()

    killer = threading.Thread(target=kill_when_busy, daemon=True)
    killer.start()
    started = time.monotonic()
    remote = export_distributed(jobs, tmp_path / "remote", "svg", broker, queue=queue,
                                result_timeout=300)
    elapsed = time.monotonic() - started
    killer.join(timeout=10)
    assert doomed.process.poll() is not None, "the worker was not killed during the export"
    assert [path.name for path in remote.written] == [path.name for path in local.written]
    for written, expected in zip(remote.written, local.written):
        assert written.read_bytes() == expected.read_bytes(), written.name
    assert remote.failures == local.failures  # the undrawable job, once
    # The lost jobs were sent again by the exporter's watch, not found again by the
    # broker's visibility timeout (the configured bound a lost job would otherwise wait
    # out) nor by the result timeout.
    assert elapsed < VISIBILITY_TIMEOUT_SECONDS, elapsed


def test_export_queue_option_and_failure_lines_name_layout_culture_and_format(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    from repository.cli.common import session_on

    with session_on(db) as session:
        load_demo(session)
    out = str(tmp_path / "out")
    assert main(["export", "--db", db, "demo", "default", "-o", out, "--queue", "mine"]) == 2
    assert "--queue names the workers' queue: give --broker URL with it" in capsys.readouterr().err

    import renderer.api

    drawn = renderer.api.render

    def fails_vertically(fixture: object, layout_key: str, *args: object, **kwargs: object) -> str:
        if layout_key == "vertical":
            raise RuntimeError("no room")
        return drawn(fixture, layout_key, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(renderer.api, "render", fails_vertically)
    assert main(["export", "--db", db, "demo", "default", "-o", out, "--layout", "horizontal",
                 "--layout", "vertical", "--culture", "1031"]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("elrepo: ")]
    assert lines and all(line.endswith(" (layout vertical, culture 1031, svg): RuntimeError: no room")
                         for line in lines), lines


def test_export_queue_option_sends_to_the_workers_of_that_queue(
        broker: str, worker_pool: list[tuple[str, list[Worker]]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    from repository.cli.common import session_on

    with session_on(db) as session:
        load_demo(session)
    queue, workers = start_workers(broker, 1, tmp_path)
    worker_pool.append((queue, workers))
    local, remote = tmp_path / "local", tmp_path / "remote"
    assert main(["export", "--db", db, "demo", "default", "-o", str(local)]) == 0
    assert main(["export", "--db", db, "demo", "default", "-o", str(remote), "--broker", broker,
                 "--queue", queue]) == 0
    names = sorted(path.name for path in local.iterdir())
    assert names and names == sorted(path.name for path in remote.iterdir())
    assert all((local / name).read_bytes() == (remote / name).read_bytes() for name in names)
    assert main(["export", "--db", db, "demo", "default", "-o", str(remote), "--broker", broker,
                 "--queue", f"{queue}-nobody"]) == 1
    assert f"no worker consumes queue '{queue}-nobody'" in capsys.readouterr().err
