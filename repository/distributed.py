"""Batch export over Celery workers, for tenants too big for one machine's cores.

The exporting process reads every diagram fixture (one transaction, as the local export
does), sends each job through a broker (Redis or RabbitMQ) to any number of
`elrepo worker` processes on any hosts, and writes the files from the SVG they send back.

Workers get the fixture in the message, not a diagram id to load from the database:
- the files are the local export's byte for byte by construction: the same fixtures,
  read in the exporter's single snapshot, go through the same pure ``render``; workers
  reading by id could each see a different state of a tenant edited during the export;
- workers are pure compute: no database credentials, no network path to PostgreSQL, and
  an export from a SQLite file works as well as one from PostgreSQL;
- the cost is the fixture in each message (a few KB for the demo's diagrams), smaller
  than the SVG that comes back.

Files are written by the exporter through ``renderer.export.export_many`` (its
``render_fn`` is "the SVG a worker rendered for this input"), so workers need no shared
disk and every rule of the local export holds unchanged: names, collisions, atomic
writes, PNG rasterization, one-line failures, the progress bar.

Results come back through Redis when Redis is the broker, and as messages on the
exporter's reply queue (Celery's ``rpc://``) with RabbitMQ, so neither needs a third
service. Imported only by `elrepo worker` and `elrepo export --broker`: Celery stays out
of every other command.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded
from celery.exceptions import TimeoutError as CeleryTimeoutError
from celery.result import AsyncResult
from kombu import Connection
from kombu.utils.url import maybe_sanitize_url

from renderer.export import ExportJob, ExportReport, export_many
from repository.errors import InvalidInput, RepositoryError

__all__ = [
    "BROKER_SCHEMES",
    "DEFAULT_QUEUE",
    "MAX_RETRIES",
    "RENDER_TASK",
    "BrokerUnavailable",
    "celery_app",
    "check_broker",
    "consuming_workers",
    "export_distributed",
]

BROKER_SCHEMES = ("redis", "rediss", "amqp", "amqps")
DEFAULT_QUEUE = "elrepo.render"
RENDER_TASK = "elrepo.render_svg"
#: A failed render is tried again this many times (after 1, 2, 4 s, jittered) unless its
#: input cannot be drawn: ``render`` is pure, so only the machine can fail transiently.
#: A render process that dies mid-job (killed, out of memory) counts as such a failure.
MAX_RETRIES = 3
RETRY_BACKOFF_MAX_SECONDS = 30
#: The longest render of the corpus takes about a second; past this a render is stuck.
SOFT_TIME_LIMIT_SECONDS = 120
HARD_TIME_LIMIT_SECONDS = 150
#: Redis hands a job a worker took but never acknowledged (the worker died) to another
#: worker after this: no render of a live worker runs longer (hard limit plus margin).
VISIBILITY_TIMEOUT_SECONDS = HARD_TIME_LIMIT_SECONDS + 30
#: How long the exporter waits for one result while workers answer: a queue of renders
#: ahead of it included.
DEFAULT_RESULT_TIMEOUT_SECONDS = 600.0
#: Workers answer in milliseconds on a LAN; the exporter waits this long for all of them.
PING_TIMEOUT_SECONDS = 1.0
#: While a result is awaited, the exporter asks the workers this often which jobs they
#: hold; a worker silent at two asks in a row is gone, and the jobs no live worker holds
#: are sent again (the render is pure: a duplicate gives the same file, written once).
WATCH_INTERVAL_SECONDS = 5.0
#: A job is sent again at most this many times for workers that vanished.
MAX_REASSIGNS = 2
#: With no worker answering for this long, the jobs still awaited fail at once.
NO_WORKER_GRACE_SECONDS = 60.0
#: Jobs sent ahead of the one awaited, per render process of the workers: enough to keep
#: every prefetch buffer full, few enough that sending again the ones no live worker
#: holds after a worker vanished duplicates little.
IN_FLIGHT_PER_PROCESS = 6


class BrokerUnavailable(RepositoryError):
    """The broker does not answer, or no worker consumes the export's queue."""

    status = 503


def check_broker_url(url: str) -> None:
    """Refuses what is not a Redis or RabbitMQ URL, with the forms that work."""
    if urlsplit(url).scheme not in BROKER_SCHEMES:
        raise InvalidInput(f"broker URL {maybe_sanitize_url(url)!r} is neither Redis nor RabbitMQ: "
                           "use redis://HOST:6379/N or amqp://USER:PASSWORD@HOST:5672//")


def celery_app(broker_url: str, queue: str = DEFAULT_QUEUE) -> Celery:
    """The Celery app of the exporter and of the workers: both build it from the same
    broker URL and queue name, so they agree on the result backend and the task."""
    from renderer.contract import RenderInputError

    check_broker_url(broker_url)
    backend = broker_url if urlsplit(broker_url).scheme.startswith("redis") else "rpc://"
    app = Celery("elrepo", broker=broker_url, backend=backend, set_as_current=False)
    app.conf.update(
        # JSON only: a broker message can never make a worker unpickle code.
        task_serializer="json", result_serializer="json", accept_content=["json"],
        task_default_queue=queue,
        # A job is acknowledged after its render: one a dead worker had taken goes to
        # another worker (RabbitMQ: when its connection drops; Redis: after the
        # visibility timeout), and one whose render process died is tried again, as
        # one of its MAX_RETRIES (never endlessly: a job that kills every process it
        # runs in then fails with WorkerLostError).
        task_acks_late=True, task_reject_on_worker_lost=True, task_retry_on_worker_lost=True,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT_SECONDS,
                                  # look for such jobs every 10 s, not every 100 s
                                  "unacked_restore_throttle": 1},
        # Each render process holds up to 4 jobs: the next one is there when a render ends
        # (the demo export through one worker: 2.8 s with 1, 2.1 s with 4), and jobs still
        # spread over the workers while more than 4 per process are queued.
        worker_prefetch_multiplier=4,
        # The exporter fails at once when the broker does not answer, instead of waiting.
        broker_connection_retry_on_startup=False,
        broker_connection_max_retries=1,
        # Results are forgotten once written; one an exporter never collected (it died)
        # leaves Redis after this.
        result_expires=3600,
    )
    app.task(name=RENDER_TASK, autoretry_for=(Exception,),
             dont_autoretry_for=(RenderInputError, SoftTimeLimitExceeded), max_retries=MAX_RETRIES,
             retry_backoff=True, retry_backoff_max=RETRY_BACKOFF_MAX_SECONDS, retry_jitter=True,
             # the delay before a job whose render process died runs again
             default_retry_delay=1,
             soft_time_limit=SOFT_TIME_LIMIT_SECONDS, time_limit=HARD_TIME_LIMIT_SECONDS)(_render_svg)
    return app


def _render_svg(fixture: dict[str, Any], layout_key: str, culture: int, default_culture: int) -> str:
    """The task a worker runs: exactly what the local export calls."""
    from interchange.drawing import render_any

    return render_any(fixture, layout_key, culture, default_culture=default_culture)


def check_broker(app: Celery) -> None:
    """Raises ``BrokerUnavailable`` unless the app's broker answers. The connection is
    closed again and never enters kombu's shared pools: `elrepo worker` calls this before
    its render processes fork, and a pooled connection inherited by them makes them hang
    (on Redis) instead of rendering."""
    url = maybe_sanitize_url(app.conf.broker_url)
    try:
        with Connection(app.conf.broker_url, connect_timeout=PING_TIMEOUT_SECONDS * 5) as connection:
            connection.ensure_connection(max_retries=1, interval_start=1)
    except Exception as error:  # kombu raises per transport; any of them means "no broker"
        raise BrokerUnavailable(f"broker {url} does not answer: {error}") from None


def consuming_workers(app: Celery, timeout: float = PING_TIMEOUT_SECONDS) -> list[str]:
    """Names of the workers that consume the app's queue now (sorted); raises
    ``BrokerUnavailable`` when the broker does not answer."""
    check_broker(app)
    try:
        queues = app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception as error:  # kombu raises per transport; any of them means "no broker"
        url = maybe_sanitize_url(app.conf.broker_url)
        raise BrokerUnavailable(f"broker {url} does not answer: {error}") from None
    wanted = app.conf.task_default_queue
    return sorted(worker for worker, consumed in queues.items()
                  if any(queue.get("name") == wanted for queue in consumed))


def export_distributed(jobs: Iterable[ExportJob], out_dir: Path, fmt: str, broker_url: str, *,
                       progress: bool = False, queue: str = DEFAULT_QUEUE,
                       result_timeout: float = DEFAULT_RESULT_TIMEOUT_SECONDS) -> ExportReport:
    """``renderer.export.export_many`` with the renders done by Celery workers that
    listen on ``broker_url`` (and ``queue``): the same files, the same report. Raises
    ``BrokerUnavailable`` before anything is sent when the broker does not answer or no
    worker consumes the queue. Jobs of a worker that dies during the export are sent
    again (``WATCH_INTERVAL_SECONDS``), so the export ends with every file."""
    app = celery_app(broker_url, queue)
    try:
        workers = consuming_workers(app)
        if not workers:
            raise BrokerUnavailable(f"no worker consumes queue {queue!r} on {maybe_sanitize_url(broker_url)}; "
                                    "start one: elrepo worker --broker URL (the same URL)")
        job_list = list(jobs)
        remote = _RemoteRenders(app, job_list, result_timeout, workers, _render_processes(app, workers))
        return export_many(job_list, out_dir, fmt, progress=progress, render_fn=remote)
    finally:
        app.close()


def _render_processes(app: Celery, workers: list[str]) -> int:
    """How many render processes ``workers`` have together (1 per worker if unsaid)."""
    stats: dict[str, Any] = app.control.inspect(destination=workers, timeout=PING_TIMEOUT_SECONDS,
                                                limit=len(workers)).stats() or {}
    return sum(int(stats.get(worker, {}).get("pool", {}).get("max-concurrency", 1) or 1)
               for worker in workers)


@dataclass
class _Sent:
    """One distinct render input on its way: its result, and how often it was sent again."""

    args: tuple[dict[str, Any], str, int, int]
    result: AsyncResult[str]
    uses_left: int = 1
    reassigned: int = 0
    sent_at: float = field(default_factory=time.monotonic)


class _RemoteRenders:
    """``export_many``'s render function: the SVG a worker rendered for the same input.
    ``render`` is pure, so a result is found by its input (identical jobs are sent once).
    ``export_many`` asks for the results in job order; the jobs up to a window ahead of
    the one asked are sent, so every worker is busy while the exporter waits, and when a
    worker vanishes the jobs no live worker holds are few and are sent again."""

    def __init__(self, app: Celery, jobs: list[ExportJob], timeout: float, workers: list[str],
                 processes: int) -> None:
        self._app = app
        self._timeout = timeout
        self._window = max(1, processes) * IN_FLIGHT_PER_PROCESS
        # distinct inputs in job order, each with how many jobs use it
        self._inputs: dict[str, tuple[dict[str, Any], str, int, int]] = {}
        self._uses: Counter[str] = Counter()
        for job in jobs:
            key = _input_key(job.fixture, job.layout_key, job.culture, job.default_culture)
            self._inputs.setdefault(key, (job.fixture, job.layout_key, job.culture, job.default_culture))
            self._uses[key] += 1
        self._order = list(self._inputs)
        self._position = {key: index for index, key in enumerate(self._order)}
        self._sent: dict[str, _Sent] = {}
        self._next = 0  # index in _order of the next input to send
        self._workers_seen = set(workers)
        self._silent_once: set[str] = set()  # workers that did not answer the last ask
        self._last_watch = time.monotonic()
        self._no_worker_since: float | None = None

    def __call__(self, fixture: dict[str, Any], layout_key: str, culture: int, *,
                 default_culture: int) -> str:
        key = _input_key(fixture, layout_key, culture, default_culture)
        self._send_until(self._position[key] + self._window)
        sent = self._sent[key]
        try:
            # Raises the worker's error after its retries: export_many reports the job.
            return self._wait(sent)
        finally:
            sent.uses_left -= 1
            if not sent.uses_left:
                sent.result.forget()  # its files are written: the result backend need not keep it
                del self._sent[key]

    def _send_until(self, end: int) -> None:
        while self._next < min(end, len(self._order)):
            key = self._order[self._next]
            args = self._inputs.pop(key)
            self._sent[key] = _Sent(args, self._app.send_task(RENDER_TASK, args), self._uses[key])
            self._next += 1

    def _wait(self, sent: _Sent) -> str:
        while True:
            try:
                return str(sent.result.get(timeout=WATCH_INTERVAL_SECONDS))
            except CeleryTimeoutError:
                pass
            if time.monotonic() - sent.sent_at > self._timeout:
                raise TimeoutError(f"no worker sent the render in {self._timeout:g} s")
            if time.monotonic() - self._last_watch >= WATCH_INTERVAL_SECONDS:
                self._watch()
            if self._no_worker_since is not None and \
                    time.monotonic() - self._no_worker_since > NO_WORKER_GRACE_SECONDS:
                raise BrokerUnavailable(f"no worker has answered for {NO_WORKER_GRACE_SECONDS:g} s")

    def _watch(self) -> None:
        """Asks the workers which jobs they hold; sends again, when a worker vanished, the
        jobs sent and not rendered that no live worker holds."""
        self._last_watch = time.monotonic()
        held: set[str] = set()
        answered: set[str] = set()
        inspect = self._app.control.inspect(timeout=PING_TIMEOUT_SECONDS)
        for listing in (inspect.active(), inspect.reserved()):
            for worker, tasks in (listing or {}).items():
                answered.add(worker)
                held.update(task["id"] for task in tasks)
        self._no_worker_since = None if answered else (self._no_worker_since or time.monotonic())
        silent = self._workers_seen - answered
        vanished = silent & self._silent_once
        self._silent_once = silent
        self._workers_seen = (self._workers_seen | answered) - vanished
        if not vanished:
            return
        for sent in self._sent.values():
            if sent.result.id not in held and not sent.result.ready() and sent.reassigned < MAX_REASSIGNS:
                # the same task id: whichever copy finishes first is the result
                sent.result = self._app.send_task(RENDER_TASK, sent.args, task_id=sent.result.id)
                sent.reassigned += 1
                sent.sent_at = time.monotonic()


def _input_key(fixture: dict[str, Any], layout_key: str, culture: int, default_culture: int) -> str:
    return json.dumps([fixture, layout_key, culture, default_culture], sort_keys=True)
