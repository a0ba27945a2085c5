"""The service is stateless over PostgreSQL and Redis: two `elrepo serve` processes on one
database and one Redis act as one service behind a load balancer (docs/deployment.md).
A write on either is read on the other, a picture one drew is a cache hit on the other,
and a write on one is never answered with the other's stale picture."""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.repository.conftest import REDIS_ENV, in_schema, postgres_schema
from tests.repository.test_cli import DEMO, Server

# Every test here starts the service, its workers or the resident renderer in their own
# processes: seconds each on an idle machine (docs/testing.md).
pytestmark = pytest.mark.slow


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    """An empty PostgreSQL schema of its own, as a URL."""
    with postgres_schema("scale") as (url, schema):
        yield in_schema(url, schema)


@pytest.fixture
def two_servers(database: str, tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Server, Server]]:
    redis = os.environ.get(REDIS_ENV)
    if not redis:
        pytest.skip(f"{REDIS_ENV} is not set; the scale-out check needs Redis")
    monkeypatch.setenv("ELREPO_REDIS_URL", redis)  # the first server reads it from there
    first = Server(database, tmp_path)
    try:
        # on a database that already holds the demo: it prints no token, the first one's hold
        second = Server(database, tmp_path, "--redis", redis, token=first.token, log_name="second.log")
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


def render(server: Server, diagram_id: str) -> tuple[str, bytes]:
    """The render cache's answer (hit or miss) and the SVG."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}/demo/default/_api/rest/diagram/{diagram_id}/render/1033/horizontal",
        headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.headers["X-Render-Cache"], response.read()


def flow(*names: str) -> dict[str, object]:
    """Diagram content to append: a start event, tasks named `names`, an end event, in a row."""
    types = ["evStart", *["task"] * len(names), "evEnd"]
    labels = ["Go", *names, "Done"]
    return {"values": [
        {"shapeInfo": {"index": index, "predecessors": [index - 1] if index else []},
         "element": {"type": kind, "attributes": {"name": {"1033": label}}}}
        for index, (kind, label) in enumerate(zip(types, labels))]}


def test_two_servers_on_one_database_and_one_redis_act_as_one_service(
        two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    status, _, body = first.request(DEMO + "/views/detail/elements/", "POST", {
        "count": 1, "elements": [{"type": "mainProcess", "attributes": {"name": {"1033": "Scaled"}}}]})
    assert status == 200
    diagram = json.loads(body)["elements"][0]["id"]
    status, _, body = second.request(f"{DEMO}/views/detail/elements/{diagram}")
    assert status == 200 and json.loads(body)["elements"][0]["attributes"]["name"]["1033"] == "Scaled"

    content = f"{DEMO}/views/diagram/elements/{diagram}/content"
    assert second.request(content, "POST", flow("Pick"))[0] == 200
    drawn_by_first = render(first, diagram)
    assert drawn_by_first[0] == "miss" and b">Pick<" in drawn_by_first[1]
    assert render(second, diagram) == ("hit", drawn_by_first[1])

    # More content written on the first: the second draws it, never the shared old picture.
    assert first.request(content, "POST", flow("Pack"))[0] == 200
    outcome, svg = render(second, diagram)
    assert outcome == "miss" and b">Pack<" in svg and b">Pick<" in svg
    assert render(first, diagram) == ("hit", svg)
