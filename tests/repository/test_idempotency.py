"""docs/api.md, "Idempotency-Key": a create sent again with the same key within 24 h
answers the first answer (same status and body, `Idempotent-Replayed: true`) and writes
nothing again; the same key with another request is 422; keys are per tenant and token;
concurrent duplicates write once. On SQLite and PostgreSQL, and against a real
`elrepo serve` (issue 18: a create retried after a client timeout stored two elements)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from werkzeug.test import TestResponse

from repository.store.idempotency import KEEP_SECONDS, IdempotentAnswer
from repository.store.models import Element, Shape
from tests.repository.conftest import FACETS, Api, assert_error
from tests.repository.standin import DRAFT
from tests.repository.test_cli import DEMO, Server

UPDATE = FACETS + "/processes/views/detail/elements"
CONTENT = FACETS + f"/processes/views/diagram/elements/{DRAFT}/content"
NEW_TASK = {"count": 1, "elements": [{"type": "task", "attributes": {"name": {"1033": "Once"}}}]}
NEW_SHAPE = {"values": [{"shapeInfo": {"index": 0}, "element": {"type": "task"}}]}
REPLAYED = "Idempotent-Replayed"


def stored(api: Api) -> tuple[int, int]:
    """Elements and shapes: a create adds to one of them."""
    with api.app.extensions["elrepo.sessions"]() as session:
        return (session.scalar(select(func.count()).select_from(Element)) or 0,
                session.scalar(select(func.count()).select_from(Shape)) or 0)


def post(api: Api, path: str, body: Any, key: str | None, role: str = "editor") -> TestResponse:
    headers = api.headers(role, None) | ({"Idempotency-Key": key} if key is not None else {})
    return api.client.post(path, data=json.dumps(body), content_type="application/json",
                           headers=headers)


@pytest.mark.parametrize(("path", "body", "added"), [(UPDATE, NEW_TASK, (1, 0)),
                                                     (CONTENT, NEW_SHAPE, (1, 1))])
def test_a_retried_create_answers_the_first_answer_and_writes_once(
        api: Api, path: str, body: dict[str, Any], added: tuple[int, int]) -> None:
    before = stored(api)
    first = post(api, path, body, "retry-1")
    assert first.status_code == 200, first.get_json()
    assert REPLAYED not in first.headers
    after_first = stored(api)
    assert tuple(a - b for a, b in zip(after_first, before, strict=True)) == added
    again = post(api, path, body, "retry-1")
    assert again.status_code == 200
    assert again.headers[REPLAYED] == "true"
    assert again.data == first.data
    assert stored(api) == after_first
    # Without a key, or with another, the same body creates again.
    assert post(api, path, body, "retry-2").status_code == 200
    assert post(api, path, body, None).status_code == 200
    assert stored(api)[0] == after_first[0] + 2


def test_the_same_key_with_another_request_is_422_and_writes_nothing(api: Api) -> None:
    assert post(api, UPDATE, NEW_TASK, "k").status_code == 200
    before = stored(api)
    other = {"count": 1, "elements": [{"type": "task", "attributes": {"name": {"1033": "Two"}}}]}
    body = assert_error(post(api, UPDATE, other, "k"), 422)
    assert "Idempotency-Key" in body["message"]
    assert_error(post(api, CONTENT, NEW_SHAPE, "k"), 422)  # another path
    assert stored(api) == before


def test_keys_belong_to_their_token(api: Api) -> None:
    first = post(api, UPDATE, NEW_TASK, "shared", role="editor")
    second = post(api, UPDATE, NEW_TASK, "shared", role="administrator")
    assert first.status_code == second.status_code == 200
    assert REPLAYED not in second.headers
    assert first.get_json()["elements"][0]["id"] != second.get_json()["elements"][0]["id"]


def test_a_refused_create_is_not_remembered(api: Api) -> None:
    unknown = {"count": 1, "elements": [{"type": "noSuchType"}]}
    assert_error(post(api, UPDATE, unknown, "fix-and-retry"), 400)
    answer = post(api, UPDATE, NEW_TASK, "fix-and-retry")
    assert answer.status_code == 200 and REPLAYED not in answer.headers


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_key_that_is_not_1_to_255_visible_ascii_characters_is_400(api: Api, key: str) -> None:
    before = stored(api)
    headers = api.headers("editor", None) | {"Idempotency-Key": key}
    response = api.client.post(UPDATE, data=json.dumps(NEW_TASK), content_type="application/json",
                               headers=headers)
    assert_error(response, 400)
    assert stored(api) == before


def test_a_key_older_than_a_day_is_forgotten_and_purged(api: Api) -> None:
    first = post(api, UPDATE, NEW_TASK, "old")
    post(api, UPDATE, NEW_TASK, "other-old")
    with api.store() as store:
        store.session.execute(update(IdempotentAnswer).values(
            created=IdempotentAnswer.created - KEEP_SECONDS - 1))
        store.session.commit()
    again = post(api, UPDATE, NEW_TASK, "old")
    assert again.status_code == 200 and REPLAYED not in again.headers
    assert again.get_json()["elements"][0]["id"] != first.get_json()["elements"][0]["id"]
    with api.store() as store:  # the caller's expired keys went with its next keyed create
        assert store.session.scalars(select(IdempotentAnswer.key)).all() == ["old"]


def test_concurrent_duplicates_write_once(api: Api) -> None:
    before = stored(api)
    answers: list[TestResponse] = []

    def send() -> None:
        client = api.app.test_client()
        headers = api.headers("editor", None) | {"Idempotency-Key": "racing"}
        answers.append(client.post(UPDATE, data=json.dumps(NEW_TASK),
                                   content_type="application/json", headers=headers))
    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert stored(api)[0] == before[0] + 1
    written = [a for a in answers if a.status_code == 200]
    assert written and all(a.data == written[0].data for a in written)
    # A duplicate that could not wait for the first is told to retry, never a second write.
    assert all(a.status_code in (200, 503) for a in answers), [a.status_code for a in answers]


# --- against a real elrepo serve ---------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    directory = tmp_path_factory.mktemp("idempotency")
    running = Server(f"sqlite:///{directory / 'served.db'}", directory)
    yield running
    running.stop()


def send(server: Server, path: str, body: Any, key: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.port}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json",
                 "Idempotency-Key": key})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def listed_names(server: Server) -> list[str]:
    status, _, body = server.request(DEMO + "/views/list/elements?$pageSize=1000")
    assert status == 200
    return [e["attributes"]["name"].get("1033") for e in json.loads(body)["elements"]
            if "name" in e.get("attributes", {})]


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_served_create_retried_with_its_key_is_stored_once(server: Server, tmp_path: Path) -> None:
    body = {"count": 1, "elements": [{"type": "task",
                                      "attributes": {"name": {"1033": "Served once"}}}]}
    results: list[tuple[int, dict[str, str], bytes]] = []
    threads = [threading.Thread(target=lambda: results.append(
        send(server, DEMO + "/views/detail/elements", body, "served-key"))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    retried = send(server, DEMO + "/views/detail/elements", body, "served-key")
    assert retried[0] == 200 and retried[1].get(REPLAYED) == "true"
    assert all(status in (200, 503) for status, _, _ in results), results
    assert all(answer == retried[2] for status, _, answer in results if status == 200)
    assert listed_names(server).count("Served once") == 1
