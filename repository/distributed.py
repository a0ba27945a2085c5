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
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded
from celery.result import AsyncResult
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
    "consuming_workers",
    "export_distributed",
]

BROKER_SCHEMES = ("redis", "rediss", "amqp", "amqps")
DEFAULT_QUEUE = "elrepo.render"
RENDER_TASK = "elrepo.render_svg"
#: A failed render is tried again this many times (after 1, 2, 4 s, jittered) unless its
#: input cannot be drawn: ``render`` is pure, so only the machine can fail transiently.
MAX_RETRIES = 3
RETRY_BACKOFF_MAX_SECONDS = 30
#: The longest render of the corpus takes about a second; past this a render is stuck.
SOFT_TIME_LIMIT_SECONDS = 120
HARD_TIME_LIMIT_SECONDS = 150
#: How long the exporter waits for one result: a queue of renders ahead of it included.
DEFAULT_RESULT_TIMEOUT_SECONDS = 600.0
#: Workers answer in milliseconds on a LAN; the exporter waits this long for all of them.
PING_TIMEOUT_SECONDS = 1.0


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
        # A worker that dies mid-render leaves its job on the broker for another one.
        task_acks_late=True,
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
             soft_time_limit=SOFT_TIME_LIMIT_SECONDS, time_limit=HARD_TIME_LIMIT_SECONDS)(_render_svg)
    return app


def _render_svg(fixture: dict[str, Any], layout_key: str, culture: int, default_culture: int) -> str:
    """The task a worker runs: exactly what the local export calls."""
    from renderer.api import render

    return render(fixture, layout_key, culture, default_culture=default_culture)


def consuming_workers(app: Celery, timeout: float = PING_TIMEOUT_SECONDS) -> list[str]:
    """Names of the workers that consume the app's queue now (sorted); raises
    ``BrokerUnavailable`` when the broker does not answer."""
    url = maybe_sanitize_url(app.conf.broker_url)
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, interval_start=1)
        queues = app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception as error:  # kombu raises per transport; any of them means "no broker"
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
    worker consumes the queue."""
    app = celery_app(broker_url, queue)
    try:
        if not consuming_workers(app):
            raise BrokerUnavailable(f"no worker consumes queue {queue!r} on {maybe_sanitize_url(broker_url)}; "
                                    "start one: elrepo worker --broker URL (the same URL)")
        job_list = list(jobs)
        remote = _RemoteRenders(app, job_list, result_timeout)
        return export_many(job_list, out_dir, fmt, progress=progress, render_fn=remote)
    finally:
        app.close()


class _RemoteRenders:
    """``export_many``'s render function: the SVG a worker rendered for the same input.
    ``render`` is pure, so a result is found by its input (identical jobs are sent once).
    The first call sends every job, so all workers are busy while the exporter waits
    for the results in job order (export_many validated its arguments before that)."""

    def __init__(self, app: Celery, jobs: list[ExportJob], timeout: float) -> None:
        self._app = app
        self._jobs = jobs
        self._timeout = timeout
        self._sent: dict[str, AsyncResult[str]] | None = None
        self._uses_left: Counter[str] = Counter()

    def __call__(self, fixture: dict[str, Any], layout_key: str, culture: int, *,
                 default_culture: int) -> str:
        if self._sent is None:
            self._sent = self._send_all()
        key = _input_key(fixture, layout_key, culture, default_culture)
        result = self._sent[key]
        try:
            # Raises the worker's error after its retries: export_many reports the job.
            return str(result.get(timeout=self._timeout))
        finally:
            self._uses_left[key] -= 1
            if not self._uses_left[key]:
                result.forget()  # its files are written: the result backend need not keep it

    def _send_all(self) -> dict[str, AsyncResult[str]]:
        sent: dict[str, AsyncResult[str]] = {}
        for job in self._jobs:
            key = _input_key(job.fixture, job.layout_key, job.culture, job.default_culture)
            self._uses_left[key] += 1
            if key not in sent:
                sent[key] = self._app.send_task(
                    RENDER_TASK, (job.fixture, job.layout_key, job.culture, job.default_culture))
        return sent


def _input_key(fixture: dict[str, Any], layout_key: str, culture: int, default_culture: int) -> str:
    return json.dumps([fixture, layout_key, culture, default_culture], sort_keys=True)
