"""The change feed is an outbox (issue 24, docs/events.md): a real `elrepo serve` killed
with SIGKILL in the middle of a burst of creates loses no event of a create it
acknowledged and keeps none of a create it never committed. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from repository.store.changes import ChangeRecord
from repository.store.models import Element, Tenant
from tests.repository.conftest import in_schema, postgres_schema
from tests.repository.test_cli import DEMO, Server

# Starts the service in its own processes: seconds on an idle machine (docs/testing.md).
pytestmark = pytest.mark.slow

WRITERS = 8
ACKNOWLEDGED_BEFORE_KILL = 60  # creates answered 200 before the kill: the burst is on
DETAIL = DEMO + "/views/detail/elements"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL `elrepo serve --db` and the checks below open: a file, or a schema of
    its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'killed.db'}"
        return
    with postgres_schema("killed") as (url, schema):
        yield in_schema(url, schema)


def create(port: int, token: str, name: str) -> tuple[int, str | None]:
    """POST one new element: the status and the new element's id, or (0, None) when the
    server was gone before it answered."""
    body = {"count": 1, "elements": [{"type": "mainProcess",
                                      "attributes": {"name": {"1033": name}}}]}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{DETAIL}", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status), str(json.load(response)["elements"][0]["id"])
    except urllib.error.HTTPError as error:
        return int(error.code), None
    except OSError:
        return 0, None


def tenant_rows(database: str) -> tuple[set[str], list[tuple[int, str, str]]]:
    """The ids of the demo tenant's elements, and its events (sequence, type, subject)."""
    engine = create_engine(database)
    try:
        with engine.connect() as connection:
            tenant_pk = connection.execute(select(Tenant.pk).where(
                Tenant.collection_id == "demo")).scalar_one()
            ids = set(connection.scalars(select(Element.id).where(Element.tenant_pk == tenant_pk)))
            events = connection.execute(
                select(ChangeRecord.sequence, ChangeRecord.event_type, ChangeRecord.subject)
                .where(ChangeRecord.tenant_pk == tenant_pk)
                .order_by(ChangeRecord.sequence)).all()
    finally:
        engine.dispose()
    return ids, [(sequence, event_type, subject) for sequence, event_type, subject in events]


def kill_server(server: Server) -> None:
    """SIGKILL to gunicorn's master and every worker at once: the machine vanished."""
    workers = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True,
                             text=True, check=False).stdout.split()
    for pid in [server.process.pid, *map(int, workers)]:
        os.kill(pid, signal.SIGKILL)
    server.process.wait()


def test_a_server_killed_mid_burst_loses_no_acknowledged_event_and_keeps_no_uncommitted_one(
        database: str, tmp_path: Path) -> None:
    server = Server(database, tmp_path)
    before, _ = tenant_rows(database)
    acknowledged: list[str] = []
    enough = threading.Event()

    def burst(writer: int) -> None:
        for n in range(10_000):
            status, element_id = create(server.port, server.token, f"kill-{writer}-{n}")
            if status == 0:
                return  # the server is gone
            assert status in (200, 503), status
            if element_id is not None:
                acknowledged.append(element_id)
                if len(acknowledged) >= ACKNOWLEDGED_BEFORE_KILL:
                    enough.set()

    writers = [threading.Thread(target=burst, args=(w,)) for w in range(WRITERS)]
    try:
        for writer in writers:
            writer.start()
        assert enough.wait(timeout=600), server.log_path.read_text()
        kill_server(server)
        for writer in writers:
            writer.join()
    finally:
        if server.process.poll() is None:
            kill_server(server)
        server.stop()

    after, events = tenant_rows(database)
    made = after - before
    created = [subject for _, event_type, subject in events
               if event_type == "elrepo.element.created" and subject not in before]
    assert set(acknowledged) <= made, "an acknowledged create was lost"
    assert sorted(created) == sorted(made), "an event without its create, or the reverse"
    assert [sequence for sequence, _, _ in events] == list(range(1, len(events) + 1))
