"""Seed endpoint 12 with docs/contract.md, "Diagrams": content create."""

from __future__ import annotations

from typing import Any

import pytest

from tests.repository.conftest import FACETS, Api, assert_error
from tests.repository.standin import CREDIT, DRAFT, ORDER, SALES

CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"


def item(index: int, predecessors: list[int] | None = None, **element: Any) -> dict[str, Any]:
    return {"shapeInfo": {"index": index, "predecessors": predecessors or []},
            "element": element}


def test_content_create_appends_shapes_and_answers_shape_ids_in_request_order(api: Api) -> None:
    body = {"values": [
        item(1, [0], type="task", attributes={"name": {"1033": "Work"}},
             related={"executedBy": [{"id": SALES}]}),
        item(0, type="evStart", attributes={"name": {"1033": "Start"}}),
        item(2, [1], id=CREDIT),
    ]}
    response = api.post(CONTENT.format(DRAFT), body, role="editor", **{"api-version": "3.0"})
    assert response.status_code == 200, response.get_json()
    values = response.get_json()["values"]
    assert [v["index"] for v in values] == [1, 0, 2]
    content = api.element(DRAFT)["content"]
    by_shape = {c["shapeId"]: c for c in content}
    assert set(by_shape) == {v["id"] for v in values}
    work, start, credit = (by_shape[v["id"]] for v in values)
    assert work["predecessors"] == [start["shapeId"]]
    assert credit["id"] == CREDIT and credit["predecessors"] == [work["shapeId"]]
    task = api.element(work["id"])
    assert task["type"] == "task" and task["related"]["executedBy"][0]["id"] == SALES


def test_item_referring_to_an_existing_shape_adds_edges_to_it(api: Api) -> None:
    existing = api.element(ORDER)["content"]
    end = existing[-1]
    body = {"values": [
        {"shapeInfo": {"index": 0, "id": end["shapeId"], "predecessors": [1]}},
        item(1, type="task", attributes={"name": {"1033": "Archive"}}),
    ]}
    response = api.post(CONTENT.format(ORDER), body, role="editor")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["values"][0] == {"id": end["shapeId"], "index": 0}
    content = api.element(ORDER)["content"]
    assert len(content) == len(existing) + 1
    new_shape = response.get_json()["values"][1]["id"]
    assert new_shape in content[len(existing) - 1]["predecessors"]


def test_loops_are_allowed(api: Api) -> None:
    body = {"values": [item(0, [1], type="task"), item(1, [0], type="task")]}
    assert api.post(CONTENT.format(DRAFT), body, role="editor").status_code == 200


BAD = [
    ({"values": [item(1, type="task")]}, 400),  # index out of range
    ({"values": [item(0, type="task"), item(0, type="task")]}, 400),  # duplicated index
    ({"values": [item(0, [0], type="task")]}, 400),  # self loop
    ({"values": [item(0, [5], type="task")]}, 400),  # unknown predecessor
    ({"values": [item(0, id="ghost")]}, 400),
    ({"values": [{"shapeInfo": {"index": 0, "id": "ghost"}}]}, 400),
    ({"values": [item(0, type="noSuchType")]}, 400),
    ({"values": [item(0)]}, 400),
    ({"values": [{"shapeInfo": {"index": "0"}, "element": {"type": "task"}}]}, 400),
    ({"values": [{"element": {"type": "task"}}]}, 400),
    ({"values": {"a": 1}}, 400),
    ({"nothing": []}, 400),
    ({"values": [item(i, type="task") for i in range(5001)]}, 413),
]


@pytest.mark.parametrize(("body", "status"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_content_is_rejected_and_nothing_written(api: Api, body: Any, status: int) -> None:
    before = api.element(ORDER)["content"]
    count = api.get(FACETS + "/processes/views/list/elements", **{"$pageSize": "1000"}).get_json()["count"]
    assert_error(api.post(CONTENT.format(ORDER), body, role="editor"), status)
    assert api.element(ORDER)["content"] == before
    after = api.get(FACETS + "/processes/views/list/elements", **{"$pageSize": "1000"}).get_json()
    assert after["count"] == count


def test_body_over_10_mib_is_413(api: Api) -> None:
    huge = b'{"values": ["' + b"x" * (10 * 1024 * 1024 + 10) + b'"]}'
    assert_error(api.post_raw(CONTENT.format(ORDER), huge, role="editor"), 413)


def test_content_create_needs_the_diagram_view_and_a_known_diagram(api: Api) -> None:
    body = {"values": [item(0, type="task")]}
    assert_error(api.post(CONTENT.format("ghost"), body, role="editor"), 404)
    assert_error(api.post(FACETS + f"/products/views/diagram/elements/{DRAFT}/content", body,
                          role="editor"), 404)
    assert_error(api.post(CONTENT.format(DRAFT), body, role="editor",
                          **{"api-version": "4.0"}), 400)


def test_content_create_permissions(api: Api) -> None:
    body = {"values": [item(0, type="task")]}
    for role in ("viewer", "analyzer", "approver"):
        assert_error(api.post(CONTENT.format(DRAFT), body, role=role), 403)
    assert api.post(CONTENT.format(DRAFT), body, role="architect").status_code == 200
