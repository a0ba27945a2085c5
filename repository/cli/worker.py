"""`elrepo worker`: a Celery worker that renders the diagrams `elrepo export --broker`
sends (repository/distributed.py), and the export's side of it. A worker needs no
database: each job carries its fixture. With `--deliver-webhooks` it also delivers the
webhooks of the database `--db` (repository/webhooks/worker.py), beside `elrepo serve`'s
deliverers: one process of all of them delivers at a time."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from repository.cli.common import CommandError, Subcommands, add_command, db_option

if TYPE_CHECKING:
    from renderer.export import ExportJob, ExportReport

BROKER_HELP = ("Redis or RabbitMQ URL, e.g. redis://127.0.0.1:6379/1 or "
               "amqp://guest:guest@127.0.0.1:5672//; needs pip install -e '.[distributed]'")


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    worker = add_command(commands, "worker", "render the diagrams of `elrepo export --broker` "
                         "on this machine (a Celery worker; no database needed unless it "
                         "delivers webhooks)")
    worker.add_argument("--broker", metavar="URL", required=True, help=BROKER_HELP)
    worker.add_argument("--concurrency", type=int, default=os.cpu_count() or 1,
                        help="render processes")
    worker.add_argument("--queue", help="queue to consume (default: the one elrepo export "
                        "sends to)")
    worker.add_argument("--name", default=f"elrepo-{os.getpid()}@{socket.gethostname()}",
                        help="worker name, unique among the broker's workers")
    worker.add_argument("--loglevel", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        default="WARNING", help="what the worker logs to standard error")
    worker.add_argument("--deliver-webhooks", action="store_true",
                        help="also deliver the webhooks of the database --db (docs/events.md: "
                             "of every process that does, elrepo serve's included, one at a "
                             "time delivers)")
    db_option(worker)
    worker.set_defaults(command=_worker)


def export_on_workers(jobs: Sequence[ExportJob], out_dir: Path, fmt: str, broker_url: str,
                      queue: str | None = None) -> ExportReport:
    """`elrepo export --broker`: the jobs rendered by the workers on `broker_url` that
    consume `queue` (default: the workers' default queue), the files written here, with a
    progress bar."""
    _require_celery("elrepo export --broker")
    from repository.distributed import DEFAULT_QUEUE, export_distributed

    try:
        return export_distributed(jobs, out_dir, fmt, broker_url, progress=True,
                                  queue=queue or DEFAULT_QUEUE)
    except ValueError as error:  # export_many's refusal of its arguments, before any render
        raise CommandError(str(error)) from None


def _deliver_webhooks_when_ready(db: str | None) -> None:
    """The webhook delivery thread of this worker's main process, started once Celery has
    forked its render processes (a thread and a database connection are never forked)."""
    from celery.signals import worker_ready

    from repository.settings import Settings, database_url, webhook_settings
    from repository.store.db import SchemaMismatch, create_schema, make_engine, session_factory
    from repository.webhooks.feed_source import FEED_SOURCE
    from repository.webhooks.worker import DeliveryThread

    try:
        settings = Settings(database_url=database_url(db), **webhook_settings(os.environ))
        engine = make_engine(settings.database_url)
        create_schema(engine)
    except (ValueError, SchemaMismatch) as error:
        raise CommandError(str(error)) from None
    # A render process Celery forks later (one replaced) must not share the connections.
    os.register_at_fork(after_in_child=lambda: engine.dispose(close=False))

    def start(**_signal: object) -> None:
        DeliveryThread(session_factory(engine), FEED_SOURCE, settings).start()
    worker_ready.connect(start, weak=False)


def _require_celery(command: str) -> None:
    """One line that says what to install, rather than an ImportError."""
    if importlib.util.find_spec("celery") is None:
        raise CommandError(f"{command} needs Celery: pip install -e '.[distributed]'")


def _worker(args: argparse.Namespace) -> int:
    if args.concurrency < 1:
        raise CommandError("--concurrency must be at least 1")
    _require_celery("elrepo worker")
    from repository.distributed import DEFAULT_QUEUE, celery_app, check_broker

    queue = args.queue or DEFAULT_QUEUE
    app = celery_app(args.broker, queue)
    # A broker that does not answer is one line now, not retries; the check's connection
    # is closed before the render processes fork (one they inherit makes them hang).
    check_broker(app)
    # The engine and its font, loaded once before the render processes fork: they share
    # them, and no job pays the import (about a second) on its process's first render.
    from renderer.text import load_font

    importlib.import_module("interchange.drawing")  # renderer.api, and BPMN's notation
    load_font()
    if args.deliver_webhooks:
        _deliver_webhooks_when_ready(args.db)
    print(f"Worker {args.name}: {args.concurrency} render process(es) on queue {queue}",
          file=sys.stderr, flush=True)
    app.worker_main(["worker", f"--concurrency={args.concurrency}", f"--queues={queue}",
                     f"--hostname={args.name}", f"--loglevel={args.loglevel}", "--without-mingle",
                     "--without-gossip"])
    return 0
