"""Issue 18: a PostgreSQL connection dropped under a live `elrepo serve` (an idle one, or
one in the middle of a statement) never answers 500: pooled connections are checked
before use (the next requests answer 200) and a lost one is a 503 with Retry-After."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import Engine, create_engine, text

from tests.repository.conftest import in_schema, postgres_schema
from tests.repository.test_cli import DEMO, Server

# Every test here starts the service, its workers or the resident renderer in their own
# processes: seconds each on an idle machine (docs/testing.md).
pytestmark = pytest.mark.slow

LIST = DEMO + "/views/list/elements"


@dataclass(frozen=True)
class Served:
    """A server on its own schema whose connections carry an application name of their
    own, and an administrator's engine to end them with."""
    server: Server
    admin: Engine
    name: str
    schema: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with postgres_schema("lost") as (url, schema):
        name = f"elrepo_lost_{uuid.uuid4().hex[:12]}"
        server = Server(f"{in_schema(url, schema)}&application_name={name}",
                        tmp_path_factory.mktemp("lost"))
        admin = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            yield Served(server, admin, name, schema)
        finally:
            server.stop()
            admin.dispose()


def ask(server: Server, path: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}",
                                     headers={"Authorization": f"Bearer {server.token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def server_backends(admin: Engine, name: str, *, waiting: bool = False) -> list[int]:
    with admin.connect() as connection:
        return list(connection.scalars(text(
            "SELECT pid FROM pg_stat_activity WHERE application_name = :name"
            + (" AND wait_event_type = 'Lock'" if waiting else "")), {"name": name}))


def terminate(admin: Engine, pids: list[int]) -> None:
    with admin.connect() as connection:
        for pid in pids:
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})


def test_requests_after_the_servers_connections_were_terminated_answer_200(
        served: Served) -> None:
    server, admin, name = served.server, served.admin, served.name
    for _ in range(8):  # every worker opens connections
        assert server.request(LIST)[0] == 200
    backends = server_backends(admin, name)
    assert backends
    terminate(admin, backends)
    statuses = [server.request(LIST + f"?$page={page}")[0] for page in range(1, 21)]
    assert statuses == [200] * 20


def test_a_request_whose_connection_dies_mid_statement_is_503(served: Served) -> None:
    server, admin, name = served.server, served.admin, served.name
    answers: list[tuple[int, dict[str, str], bytes]] = []
    with admin.connect() as locker:
        locker.execute(text("BEGIN"))
        locker.execute(text(f'LOCK TABLE "{served.schema}".elements IN ACCESS EXCLUSIVE MODE'))
        asking = threading.Thread(target=lambda: answers.append(
            ask(server, LIST + f"?$filter=id%20ne%20'{uuid.uuid4().hex}'")))
        asking.start()
        deadline = time.monotonic() + 4  # under the server's 5 s lock wait
        waiting: list[int] = []
        while not waiting and time.monotonic() < deadline:
            waiting = server_backends(admin, name, waiting=True)
            time.sleep(0.05)
        assert waiting, "the request never waited for the lock"
        terminate(admin, waiting)
        locker.execute(text("ROLLBACK"))
    asking.join(timeout=30)
    status, headers, body = answers[0]
    assert status == 503, body
    assert int(headers["Retry-After"]) > 0
    assert "cannot be reached" in json.loads(body)["message"]
    assert server.request(LIST)[0] == 200  # and the next one is served again
