"""docs/contract.md, "Limits and robustness", optimistic concurrency: element GET answers an ETag (the element's
revision, changed by every write to it), and update and content create honour If-Match
(412 on a stale revision, nothing written)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

from repository.app import create_app
from tests.repository.conftest import FACETS, TENANT, Api, Prepared, assert_error
from tests.repository.standin import CREDIT, DRAFT, HIRE, ORDER, SALES

DETAIL = FACETS + "/processes/views/detail/elements"
CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"
ROUNDS = 10


def etag(api: Api, element_id: str) -> str:
    response = api.get(f"{DETAIL}/{element_id}")
    assert response.status_code == 200, response.get_json()
    return response.headers["ETag"]


def update(api: Api, element: dict[str, Any], **headers: str) -> Any:
    return api.client.post(DETAIL, data=json.dumps({"count": 1, "elements": [element]}),
                           content_type="application/json",
                           headers={**api.headers("editor", None), **headers})


def content_create(api: Api, element_id: str, **headers: str) -> Any:
    body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                        "element": {"type": "task", "attributes": {"name": {"1033": "T"}}}}]}
    return api.client.post(CONTENT.format(element_id), data=json.dumps(body),
                           content_type="application/json",
                           headers={**api.headers("editor", None), **headers})


def transition(api: Api, element_id: str, name: str) -> Any:
    return api.post(f"{TENANT}/_api/release/{element_id}/transitions/{name}")


WRITES: list[tuple[str, Callable[[Api], Any]]] = [
    ("attributes", lambda api: update(api, {"id": DRAFT, "attributes": {
        "authorNote": {"1033": "x"}}})),
    ("related", lambda api: update(api, {"id": DRAFT, "related": {
        "executedBy": [{"id": SALES}]}})),
    ("children", lambda api: update(api, {"id": DRAFT, "children": [{"id": CREDIT}]})),
    ("content", lambda api: update(api, {"id": DRAFT, "content": [{"id": HIRE}]})),
    ("content create", lambda api: content_create(api, DRAFT)),
    ("state", lambda api: transition(api, DRAFT, "InProcessToInReview")),
]


@pytest.mark.parametrize("write", [w[1] for w in WRITES], ids=[w[0] for w in WRITES])
def test_every_write_to_an_element_changes_its_strong_etag(
        api: Api, write: Callable[[Api], Any]) -> None:
    before = etag(api, DRAFT)
    assert before.startswith('"') and before.endswith('"') and not before.startswith("W/")
    assert etag(api, DRAFT) == before, "a read is no write"
    assert write(api).status_code == 200
    after = etag(api, DRAFT)
    assert after != before
    assert etag(api, ORDER) == etag(api, ORDER)


def test_a_stale_if_match_on_update_is_412_and_nothing_is_written(api: Api) -> None:
    seen = etag(api, DRAFT)
    first = update(api, {"id": DRAFT, "attributes": {"name": {"1033": "First"}}},
                   **{"If-Match": seen})
    assert first.status_code == 200, first.get_json()
    second = update(api, {"id": DRAFT, "attributes": {"name": {"1033": "Second"}}},
                    **{"If-Match": seen})
    body = assert_error(second, 412)
    assert etag(api, DRAFT) in body["message"]
    assert api.element(DRAFT)["attributes"]["name"]["1033"] == "First"


def test_a_stale_if_match_on_content_create_is_412_and_nothing_is_written(api: Api) -> None:
    seen = etag(api, DRAFT)
    listed = api.get(FACETS + "/processes/views/list/elements", **{"$pageSize": "1000"})
    assert content_create(api, DRAFT, **{"If-Match": seen}).status_code == 200
    content = api.element(DRAFT)["content"]
    assert_error(content_create(api, DRAFT, **{"If-Match": seen}), 412)
    assert api.element(DRAFT)["content"] == content
    after = api.get(FACETS + "/processes/views/list/elements", **{"$pageSize": "1000"})
    assert after.get_json()["count"] == listed.get_json()["count"] + 1


def test_if_match_on_a_released_element_and_its_new_version(api: Api) -> None:
    seen = etag(api, ORDER)
    response = update(api, {"id": ORDER, "attributes": {"authorNote": {"1033": "rework"}}},
                      **{"If-Match": seen})
    assert response.status_code == 200, response.get_json()
    assert api.element(ORDER)["state"] == "inProcess"
    assert_error(update(api, {"id": ORDER, "attributes": {"authorNote": {"1033": "lost"}}},
                        **{"If-Match": seen}), 412)


@pytest.mark.parametrize(("header", "status"), [
    ("*", 200), ('"999", {current}', 200), ('{current} , "1"', 200), ('W/{current}', 412),
    ('"999"', 412), ("7", 400), ('"7" "8"', 400), ("", 400),
])
def test_if_match_forms(api: Api, header: str, status: int) -> None:
    value = header.format(current=etag(api, DRAFT))
    response = update(api, {"id": DRAFT, "attributes": {"authorNote": {"1033": "x"}}},
                      **{"If-Match": value})
    if status == 200:
        assert response.status_code == 200, response.get_json()
    else:
        assert_error(response, status)


@pytest.mark.parametrize("elements", [
    [{"id": DRAFT}, {"id": HIRE}],
    [{"type": "mainProcess", "attributes": {"name": {"1033": "New"}}}],
])
def test_if_match_names_exactly_one_existing_element(api: Api,
                                                     elements: list[dict[str, Any]]) -> None:
    response = api.client.post(
        DETAIL, data=json.dumps({"count": len(elements), "elements": elements}),
        content_type="application/json",
        headers={**api.headers("editor", None), "If-Match": etag(api, DRAFT)})
    assert_error(response, 400)


def test_an_older_version_has_its_own_etag_that_never_passes_if_match(api: Api) -> None:
    released = api.element(ORDER)
    assert update(api, {"id": ORDER, "attributes": {"authorNote": {"1033": "r"}}}
                  ).status_code == 200
    old = api.get(f"{DETAIL}/{released['versionId']}")
    assert old.status_code == 200 and old.headers["ETag"] != etag(api, ORDER)
    assert_error(update(api, {"id": ORDER, "attributes": {"authorNote": {"1033": "x"}}},
                        **{"If-Match": old.headers["ETag"]}), 412)


def _edit(api: Api, name: str, seen: str, start: threading.Barrier,
          statuses: list[int]) -> None:
    """One editor of the race: waits for the other, then updates with `seen` as If-Match."""
    start.wait()
    response = update(api, {"id": DRAFT, "attributes": {"name": {"1033": name}}},
                      **{"If-Match": seen})
    statuses.append(response.status_code)


def test_concurrent_edits_with_if_match_let_exactly_one_win(prepared: Prepared) -> None:
    apps = [create_app(prepared.config) for _ in range(2)]
    clients = [Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)
               for app in apps]
    try:
        for round_number in range(ROUNDS):
            seen = etag(clients[0], DRAFT)
            start = threading.Barrier(2)
            statuses: list[int] = []

            editors = [threading.Thread(target=_edit, args=(
                api, f"{round_number}-{i}", seen, start, statuses))
                for i, api in enumerate(clients)]
            for editor in editors:
                editor.start()
            for editor in editors:
                editor.join()
            assert sorted(statuses) == [200, 412], (round_number, statuses)
    finally:
        for app in apps:
            app.extensions["elrepo.engine"].dispose()
