"""`elrepo worker`: a Celery worker that renders the diagrams `elrepo export --broker`
sends (repository/distributed.py), and the export's side of it. A worker needs no
database: each job carries its fixture."""

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

from repository.cli.common import CommandError, Subcommands, add_command

if TYPE_CHECKING:
    from renderer.export import ExportJob, ExportReport

BROKER_HELP = ("Redis or RabbitMQ URL, e.g. redis://127.0.0.1:6379/1 or "
               "amqp://guest:guest@127.0.0.1:5672//; needs pip install -e '.[distributed]'")


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    worker = add_command(commands, "worker", "render the diagrams of `elrepo export --broker` "
                         "on this machine (a Celery worker; no database needed)")
    worker.add_argument("--broker", metavar="URL", required=True, help=BROKER_HELP)
    worker.add_argument("--concurrency", type=int, default=os.cpu_count() or 1,
                        help="render processes")
    worker.add_argument("--queue", help="queue to consume (default: the one elrepo export "
                        "sends to)")
    worker.add_argument("--name", default=f"elrepo-{os.getpid()}@{socket.gethostname()}",
                        help="worker name, unique among the broker's workers")
    worker.add_argument("--loglevel", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        default="WARNING", help="what the worker logs to standard error")
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
    print(f"Worker {args.name}: {args.concurrency} render process(es) on queue {queue}",
          file=sys.stderr, flush=True)
    app.worker_main(["worker", f"--concurrency={args.concurrency}", f"--queues={queue}",
                     f"--hostname={args.name}", f"--loglevel={args.loglevel}", "--without-mingle",
                     "--without-gossip"])
    return 0
