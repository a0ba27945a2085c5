"""The memory of timed-out renders (repository/render_refusals.py; issue 18, item 4): keyed
by the diagram's content, so every culture, layout and copy of a diagram that timed out
is refused; shared by every worker of a server (a file in its run directory, or Redis);
bounded; a store that fails reads as empty."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from repository.render_cache import content_key
from repository.render_refusals import (
    FileTimedOutRenders,
    MemoryTimedOutRenders,
    RedisTimedOutRenders,
    TimedOutRenders,
    make_timed_out_renders,
)
from repository.settings import RENDER_TIMEOUT_ENV
from tests.repository.test_cli import DEMO, Server
from tests.repository.test_render_deadline import dense_values, served_element

REDIS_URL = os.environ.get("ELREPO_TEST_REDIS_URL")


def fixture_of(values: list[dict[str, Any]], culture: str = "1033") -> dict[str, Any]:
    named = [{**value, "element": {**value["element"], "attributes": {
        "name": {culture: f"Task {index}"}}}} for index, value in enumerate(values)]
    return {"diagram": {"id": "d", "type": "mainProcess", "attributes": {}},
            "elements": [], "values": named}


def test_the_content_key_names_shapes_and_links_not_names_cultures_or_ids() -> None:
    dense = fixture_of(dense_values(20))
    same = content_key("demo", "default", "render", dense)
    assert content_key("demo", "default", "render", fixture_of(dense_values(20), "1031")) == same
    assert content_key("demo", "default", "render",
                       {**dense, "diagram": {**dense["diagram"], "id": "copy"}}) == same
    fewer_links = dense_values(20)
    fewer_links[-1]["shapeInfo"]["predecessors"] = [0]
    others = [content_key("demo", "default", "render", fixture_of(dense_values(19))),
              content_key("demo", "default", "render", fixture_of(fewer_links)),
              content_key("demo", "default", "BPMN export", dense),
              content_key("other", "default", "render", dense)]
    assert same not in others and len(set(others)) == len(others)


@pytest.fixture(params=["memory", "file", "redis"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TimedOutRenders]:
    if request.param == "memory":
        yield MemoryTimedOutRenders(max_keys=3)
    elif request.param == "file":
        yield FileTimedOutRenders(tmp_path / "timed-out.sqlite3", max_keys=3)
    else:
        if REDIS_URL is None:
            pytest.skip("ELREPO_TEST_REDIS_URL is not set")
        redis = RedisTimedOutRenders(REDIS_URL, f"test-render-{uuid.uuid4().hex}")
        yield redis
        redis.close()


def test_a_remembered_timeout_is_recalled_until_it_expires(memory: TimedOutRenders) -> None:
    assert memory.recall("k") is None
    memory.remember("k", 9.5, 10)
    recalled = memory.recall("k")
    assert recalled is not None and (recalled.ran, recalled.deadline) == (9.5, 10)
    assert 55 < recalled.seconds_left() <= 60


def test_the_file_store_is_shared_bounded_and_expires(tmp_path: Path) -> None:
    path = tmp_path / "run" / "timed-out.sqlite3"
    path.parent.mkdir()
    one_worker = FileTimedOutRenders(path, max_keys=3)
    other_worker = FileTimedOutRenders(path, max_keys=3)
    for index in range(5):
        one_worker.remember(f"k{index}", 1.0, 1.0)
    assert [key for key in ("k0", "k1", "k2", "k3", "k4")
            if other_worker.recall(key) is not None] == ["k2", "k3", "k4"]
    brief = FileTimedOutRenders(path, seconds=0.05)
    brief.remember("soon gone", 1.0, 1.0)
    time.sleep(0.1)
    assert other_worker.recall("soon gone") is None


def test_a_store_that_fails_reads_as_empty(tmp_path: Path,
                                           caplog: pytest.LogCaptureFixture) -> None:
    unwritable = FileTimedOutRenders(tmp_path / "missing" / "timed-out.sqlite3")
    unwritable.remember("k", 1.0, 1.0)
    assert unwritable.recall("k") is None
    assert "not remembered" in caplog.text
    unreachable = RedisTimedOutRenders("redis://127.0.0.1:1/0")
    unreachable.remember("k", 1.0, 1.0)
    assert unreachable.recall("k") is None


def test_the_store_follows_the_servers_configuration(tmp_path: Path) -> None:
    assert isinstance(make_timed_out_renders(None), MemoryTimedOutRenders)
    assert isinstance(make_timed_out_renders(None, run_directory=str(tmp_path)),
                      FileTimedOutRenders)
    assert isinstance(make_timed_out_renders("redis://127.0.0.1:1/0", run_directory=str(tmp_path)),
                      RedisTimedOutRenders)


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_every_worker_of_elrepo_serve_refuses_a_timed_out_diagram_in_any_culture(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers: the repeats land on both (each request is a new connection), and
    every one is refused at once, whatever its culture or layout. Before, the memory was
    per worker and per culture, and a repeat under the same deadline always ran again."""
    monkeypatch.setenv(RENDER_TIMEOUT_ENV, "1")
    server = Server(f"sqlite:///{tmp_path / 'served.db'}", tmp_path)
    try:
        dense = served_element(server, "mainProcess")
        status, _, _ = server.request(f"{DEMO}/views/diagram/elements/{dense}/content", "POST",
                                      {"values": dense_values()})
        assert status == 200
        render = "/demo/default/_api/rest/diagram/{}/render/{}/{}"
        # A worker's first renders wait for its render process to start, in their
        # deadline: one that had less than half of it to render teaches little, and is
        # not held against a repeat. Within a few tries one had most of it.
        messages = []
        for culture in range(1000, 1010):
            status, _, body = server.request(render.format(dense, culture, "horizontal"))
            assert status == 503
            messages.append(json.loads(body)["message"])
            if "shortly before" in messages[-1]:
                break
            time.sleep(0.5)  # a killed render process's replacement loads meanwhile
        else:
            raise AssertionError(messages)
        for culture, layout in [(1031, "horizontal"), (1033, "vertical"), (7, "detailed"),
                                (2147483647, "horizontalSwimlane"), (1053, "graphic")]:
            status, _, body = server.request(render.format(dense, culture, layout))
            assert status == 503 and "shortly before" in json.loads(body)["message"], body
    finally:
        server.stop()
