"""Batch export over Celery workers (repository/distributed.py): two `elrepo worker`
processes render the demo tenant through Redis and through RabbitMQ, and the files are
the local export's byte for byte; the retry policy; a clear error when no broker or no
worker answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from kombu import Queue

from renderer.contract import RenderInputError
from renderer.export import ExportJob, export_many
from repository.cli.common import session_on
from repository.demo import load_demo
from repository.distributed import (
    MAX_RETRIES,
    RENDER_TASK,
    BrokerUnavailable,
    celery_app,
    consuming_workers,
    export_distributed,
)
from repository.errors import InvalidInput
from repository.fixtures import diagram_fixture
from repository.store import Store
from tests.repository.conftest import REDIS_ENV

AMQP_ENV = "ELREPO_TEST_AMQP_URL"
LOCAL_RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"
ROOT = Path(__file__).resolve().parents[2]
# `elrepo worker` exactly as the CLI runs it: its parser and its command function.
WORKER_COMMAND = (
    "import argparse, sys\n"
    "from repository.cli import worker\n"
    "parser = argparse.ArgumentParser()\n"
    "worker.add_commands(parser.add_subparsers(required=True))\n"
    "args = parser.parse_args(sys.argv[1:])\n"
    "sys.exit(args.command(args))\n")


def answers(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 0), timeout=1).close()
    except OSError:
        return False
    return True


def broker_url(kind: str) -> str:
    """The test broker of `kind`, or a skip that says why there is none."""
    if kind == "redis":
        url = os.environ.get(REDIS_ENV)
        if not url:
            pytest.skip(f"{REDIS_ENV} is not set; Redis runs are skipped")
        return url
    url = os.environ.get(AMQP_ENV, LOCAL_RABBITMQ)
    if not answers(url):
        pytest.skip(f"RabbitMQ does not answer at {urlsplit(url).netloc.rpartition('@')[2]} "
                    f"(set {AMQP_ENV} to use another)")
    return url


@pytest.fixture(scope="module")
def demo_jobs(tmp_path_factory: pytest.TempPathFactory) -> list[ExportJob]:
    """Every diagram of the demo tenant in two layouts, and one job that cannot be drawn."""
    db = f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.db'}"
    with session_on(db) as session:
        tenant = load_demo(session)
        store = Store(session, tenant)
        jobs = [ExportJob(f"{diagram.id}", key, diagram_fixture(store, diagram), 1033,
                          default_culture=tenant.default_culture)
                for diagram in store.reads.diagrams() for key in ("horizontal", "vertical")]
    undrawable = ExportJob("undrawable", "horizontal", {"values": "not a list"}, 1033)
    return [*jobs, undrawable]


@dataclass
class Workers:
    url: str
    queue: str
    logs: list[Path]


@pytest.fixture(params=["redis", "rabbitmq"])
def two_workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workers]:
    """Two `elrepo worker` processes of one render process each, on a queue of this test's
    own (parallel runs on the same broker never take each other's jobs)."""
    url = broker_url(request.param)
    queue = f"elrepo-test-{uuid.uuid4().hex[:12]}"
    names = [f"{queue}-{n}@127.0.0.1" for n in (1, 2)]
    logs = [tmp_path / f"worker-{n}.log" for n in (1, 2)]
    processes = []
    for name, log in zip(names, logs):
        with log.open("w", encoding="utf-8") as output:
            processes.append(subprocess.Popen(
                [sys.executable, "-c", WORKER_COMMAND, "worker", "--broker", url, "--queue", queue,
                 "--concurrency", "1", "--name", name, "--loglevel", "INFO"],
                stdout=output, stderr=subprocess.STDOUT, cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)}))
    app = celery_app(url, queue)
    try:
        deadline = time.monotonic() + 60
        while consuming_workers(app) != sorted(names):
            assert all(p.poll() is None for p in processes), [log.read_text() for log in logs]
            assert time.monotonic() < deadline, "the workers did not start in a minute"
        yield Workers(url, queue, logs)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with app.connection_for_write() as connection:  # no queue of the test stays on the broker
            Queue(queue).bind(connection.default_channel).delete()
        app.close()


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_export_through_two_workers_writes_the_local_export_byte_for_byte(
        demo_jobs: list[ExportJob], two_workers: Workers, tmp_path: Path) -> None:
    local = export_many(demo_jobs, tmp_path / "local", "svg")
    remote = export_distributed(demo_jobs, tmp_path / "remote", "svg", two_workers.url,
                                queue=two_workers.queue)
    assert [path.name for path in remote.written] == [path.name for path in local.written]
    assert len(remote.written) == len(demo_jobs) - 1
    for written, expected in zip(remote.written, local.written):
        assert written.read_bytes() == expected.read_bytes(), written.name
    # The job that cannot be drawn fails the same way, once (input errors are not retried).
    assert remote.failures == local.failures and local.failures[0].name == "undrawable"
    assert local.failures[0].error.startswith("RenderInputError: ")
    # Both workers rendered: the jobs were shared out, not queued behind one of them.
    for log in two_workers.logs:
        assert f"{RENDER_TASK}[" in log.read_text(encoding="utf-8"), log.name


class FlakyRender:
    """`renderer.api.render` that fails `failures` times with `error`, then draws."""

    def __init__(self, failures: int, error: Exception) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return "<svg/>"


@pytest.mark.parametrize(("failures", "error", "calls", "drawn"), [
    (2, OSError("worker out of file handles"), 3, True),
    (MAX_RETRIES + 5, MemoryError(), MAX_RETRIES + 1, False),
    (1, RenderInputError("a shape has no type"), 1, False),
])
def test_a_failed_render_is_tried_again_a_bounded_number_of_times_unless_its_input_is_bad(
        monkeypatch: pytest.MonkeyPatch, failures: int, error: Exception, calls: int,
        drawn: bool) -> None:
    render = FlakyRender(failures, error)
    monkeypatch.setattr("renderer.api.render", render)
    app = celery_app("redis://127.0.0.1:6379/0")
    app.conf.task_always_eager = True  # retries run at once, in this process
    result = app.tasks[RENDER_TASK].apply(({"values": []}, "horizontal", 1033, 1033))
    assert render.calls == calls
    assert result.successful() is drawn
    if not drawn:
        assert isinstance(result.result, type(error))


def test_an_unusable_broker_url_or_silent_broker_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="neither Redis nor RabbitMQ"):
        export_distributed([], tmp_path, "svg", "http://127.0.0.1:6379/0")
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(BrokerUnavailable, match=f"broker redis://127.0.0.1:{port}/0 does not answer"):
        export_distributed([], tmp_path, "svg", f"redis://127.0.0.1:{port}/0")
    with pytest.raises(BrokerUnavailable, match=r"amqp://guest:\*\*@"):  # never the password
        export_distributed([], tmp_path, "svg", f"amqp://guest:secret@127.0.0.1:{port}//")


def test_an_export_without_a_worker_on_its_queue_is_refused_before_anything_is_sent(
        tmp_path: Path) -> None:
    url = broker_url("redis")
    with pytest.raises(BrokerUnavailable, match="no worker consumes queue 'nobody-here'.*elrepo worker"):
        export_distributed([ExportJob("x", "horizontal", {"values": []}, 1033)], tmp_path / "out",
                           "svg", url, queue="nobody-here")
    assert not (tmp_path / "out").exists()
