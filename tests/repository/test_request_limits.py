"""docs/reliability.md, "Request limits (issue 18)": what one write may carry. Attribute
values, related links (de-duplicated) and list entries are counted per element and per
request, content shapes are capped on every path that writes content, and `elrepo
import` holds each file to exactly the same rules. Each refusal is a 413 envelope naming
the limit with nothing written, on SQLite and PostgreSQL; data already past a limit
still reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, insert, select

from repository.cli import main
from repository.store import writes
from repository.store.db import make_engine, session_factory
from repository.store.models import AttributeValue, Element, RelatedLink, Shape
from repository.wire import (
    MAX_CONTENT_ITEMS,
    MAX_ELEMENTS_PER_UPDATE,
    MAX_LIST_ENTRIES_PER_ELEMENT,
    MAX_LIST_ENTRIES_PER_REQUEST,
    MAX_RELATED_PER_ELEMENT,
    MAX_RELATED_PER_REQUEST,
    MAX_VALUES_PER_REQUEST,
    parse_update_body,
)
from tests.repository.conftest import FACETS, Api, assert_error, in_schema, postgres_schema
from tests.repository.standin import BIKE, DRAFT, ORDER, SALES

UPDATE = FACETS + "/processes/views/detail/elements"
CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"


def rows(api: Api) -> tuple[int, ...]:
    """Elements, attribute values, links and shapes stored: any write changes one."""
    with api.app.extensions["elrepo.sessions"]() as session:
        return tuple(session.scalar(select(func.count()).select_from(table)) or 0
                     for table in (Element, AttributeValue, RelatedLink, Shape))


@pytest.fixture
def unchanged(api: Api) -> Iterator[None]:
    before = rows(api), api.element(DRAFT)
    yield
    assert (rows(api), api.element(DRAFT)) == before


def cultures(count: int) -> dict[str, str]:
    """`count` culture values of one attribute (culture ids 1 … count)."""
    return {str(culture): "v" for culture in range(1, count + 1)}


def new_tasks(count: int, **element: Any) -> dict[str, Any]:
    """A content-create body of `count` new unlinked tasks, each with `element`'s keys."""
    return {"values": [{"shapeInfo": {"index": i}, "element": {"type": "task", **element}}
                       for i in range(count)]}


def update_body(*elements: dict[str, Any]) -> dict[str, Any]:
    return {"count": len(elements), "elements": list(elements)}


# --- attribute values per request ----------------------------------------------------

@pytest.mark.usefixtures("unchanged")
def test_more_attribute_values_than_the_request_limit_are_413(api: Api) -> None:
    over = MAX_VALUES_PER_REQUEST + 1
    body = assert_error(api.post(UPDATE, update_body(
        {"id": DRAFT, "attributes": {"name": cultures(over)}}), role="editor"), 413)
    assert f"{MAX_VALUES_PER_REQUEST:,}" in body["message"] and f"{over:,}" in body["message"]
    # Spread over the items of a content create, the values count together.
    per_item = MAX_VALUES_PER_REQUEST // 10 + 1
    body = assert_error(api.post(CONTENT.format(DRAFT), new_tasks(
        10, attributes={"description": cultures(per_item)}), role="editor"), 413)
    assert f"{MAX_VALUES_PER_REQUEST:,}" in body["message"]


def test_the_value_limit_is_inclusive() -> None:
    at_limit = update_body(*({"id": f"e{i}", "attributes": {"name": cultures(
        MAX_VALUES_PER_REQUEST // 10)}} for i in range(10)))
    assert len(parse_update_body(at_limit)) == 10


# --- related links: de-duplicated, per element and per request ------------------------

def test_a_related_link_sent_many_times_is_stored_once(api: Api) -> None:
    copies = [{"id": SALES}, {"id": BIKE}] * 50_000
    response = api.post(UPDATE, update_body({"id": DRAFT, "related": {"owner": copies}}),
                        role="editor")
    assert response.status_code == 200, response.get_json()
    assert [r["id"] for r in api.element(DRAFT)["related"]["owner"]] == [SALES, BIKE]
    created = api.post(CONTENT.format(DRAFT), new_tasks(1, related={"executedBy": copies}),
                       role="editor")
    assert created.status_code == 200, created.get_json()
    shape = api.element(DRAFT)["content"][0]
    assert len(api.element(shape["id"])["related"]["executedBy"]) == 2


@pytest.mark.usefixtures("unchanged")
def test_more_related_links_than_an_element_may_hold_are_413(api: Api) -> None:
    over = [{"id": f"target-{i}"} for i in range(MAX_RELATED_PER_ELEMENT + 1)]
    body = assert_error(api.post(UPDATE, update_body(
        {"id": DRAFT, "related": {"owner": over[:10], "hasOutput": over[10:]}}),
        role="editor"), 413)
    assert f"{MAX_RELATED_PER_ELEMENT:,}" in body["message"]
    body = assert_error(api.post(CONTENT.format(DRAFT), new_tasks(
        1, related={"executedBy": over}), role="editor"), 413)
    assert "values[0].element.related" in body["message"]


def test_contexts_sent_one_request_at_a_time_cannot_grow_an_element_past_the_limit(
        api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writes, "MAX_RELATED_PER_ELEMENT", 3)  # the store's count, kept small
    first = api.post(UPDATE, update_body({"id": DRAFT, "related": {"owner": [
        {"id": SALES}, {"id": BIKE}]}}), role="editor")
    assert first.status_code == 200, first.get_json()
    before = rows(api)
    body = assert_error(api.post(UPDATE, update_body({"id": DRAFT, "related": {"hasOutput": [
        {"id": BIKE}, {"id": ORDER}]}}), role="editor"), 413)
    assert repr(DRAFT) in body["message"] and "4" in body["message"]
    assert rows(api) == before
    # Replacing a context so that the element stays within the limit is fine.
    again = api.post(UPDATE, update_body({"id": DRAFT, "related": {"owner": [{"id": SALES}],
                                                                 "hasOutput": [{"id": BIKE}]}}),
                     role="editor")
    assert again.status_code == 200, again.get_json()


@pytest.mark.usefixtures("unchanged")
def test_more_related_links_than_a_request_may_write_are_413(api: Api) -> None:
    per_element = MAX_RELATED_PER_ELEMENT
    elements = [{"id": f"e{e}", "related": {"owner": [
        {"id": f"t{e}-{i}"} for i in range(per_element)]}}
        for e in range(MAX_RELATED_PER_REQUEST // per_element + 1)]
    body = assert_error(api.post(UPDATE, update_body(*elements), role="editor"), 413)
    assert f"{MAX_RELATED_PER_REQUEST:,} related links" in body["message"]


# --- list values (file lists) -----------------------------------------------------------

@pytest.mark.usefixtures("unchanged")
def test_a_million_empty_file_entries_are_413(api: Api) -> None:
    raw = (b'{"count": 1, "elements": [{"id": "%s", "attributes": {"files": {"127": [%s]}}}]}'
           % (DRAFT.encode(), b",".join([b"{}"] * 1_000_000)))
    body = assert_error(api.post_raw(UPDATE, raw, role="editor"), 413)
    assert f"{MAX_LIST_ENTRIES_PER_ELEMENT:,}" in body["message"]


@pytest.mark.usefixtures("unchanged")
def test_more_list_entries_than_a_request_may_write_are_413(api: Api) -> None:
    entries: list[dict[str, str]] = [{}] * MAX_LIST_ENTRIES_PER_ELEMENT
    elements = [{"id": f"e{e}", "attributes": {"files": {"127": entries}}}
                for e in range(MAX_LIST_ENTRIES_PER_REQUEST // MAX_LIST_ENTRIES_PER_ELEMENT + 1)]
    body = assert_error(api.post(UPDATE, update_body(*elements), role="editor"), 413)
    assert f"{MAX_LIST_ENTRIES_PER_REQUEST:,} file list entries" in body["message"]


def test_a_file_list_within_the_limits_is_stored(api: Api) -> None:
    files = [{"title": f"f{i}.pdf", "address": f"/files/{i}"} for i in range(100)]
    response = api.post(UPDATE, update_body({"id": DRAFT, "attributes": {"files": {"127": files}}}),
                        role="editor")
    assert response.status_code == 200, response.get_json()
    assert api.element(DRAFT)["attributes"]["files"]["127"] == files


# --- content shapes on every path that writes content ---------------------------------

@pytest.mark.usefixtures("unchanged")
def test_an_update_s_content_over_the_content_create_limit_is_413(api: Api) -> None:
    content = [{"id": BIKE}] * (MAX_CONTENT_ITEMS + 1)
    body = assert_error(api.post(UPDATE, update_body({"id": DRAFT, "content": content}),
                                 role="editor"), 413)
    assert f"{MAX_CONTENT_ITEMS:,}" in body["message"]
    # Two diagrams of one update count together, as the items of one content create.
    half = [{"id": BIKE}] * (MAX_CONTENT_ITEMS // 2 + 1)
    assert_error(api.post(UPDATE, update_body({"id": DRAFT, "content": half},
                                              {"id": ORDER, "content": half}),
                          role="editor"), 413)


@pytest.mark.usefixtures("unchanged")
def test_an_update_s_content_keeps_the_predecessor_rules_of_content_create(api: Api) -> None:
    shapes = [c["shapeId"] for c in api.element(ORDER)["content"]]
    itself = [{"shapeId": shapes[0], "predecessors": [shapes[0]]}]
    assert_error(api.post(UPDATE, update_body({"id": ORDER, "content": itself}), role="editor"),
                 400)
    elsewhere = [{"shapeId": shapes[0]}, {"shapeId": shapes[1], "predecessors": ["no-shape"]}]
    assert_error(api.post(UPDATE, update_body({"id": ORDER, "content": elsewhere}),
                          role="editor"), 400)


def test_an_append_that_takes_a_diagram_past_the_shape_limit_is_413(api: Api) -> None:
    before = rows(api)
    shown = len(api.element(ORDER)["content"])
    assert shown > 0
    body = assert_error(api.post(CONTENT.format(ORDER), new_tasks(MAX_CONTENT_ITEMS - shown + 1),
                                 role="editor"), 413)
    assert f"{MAX_CONTENT_ITEMS + 1:,}" in body["message"]
    assert rows(api) == before


# --- data written before the limits still reads -----------------------------------------

def test_an_element_already_past_the_limits_still_reads_and_updates(api: Api) -> None:
    with api.store() as store:
        version_pk = store.reads.element(DRAFT).current_version_pk
        targets = [pk for pk, in store.session.execute(select(Element.pk).limit(3))]
        links = MAX_RELATED_PER_ELEMENT + 1
        store.session.execute(insert(RelatedLink), [
            {"version_pk": version_pk, "context": "owner", "position": i,
             "target_pk": targets[i % len(targets)]} for i in range(links)])
        store.session.execute(insert(AttributeValue), [
            {"version_pk": version_pk, "name": "files", "culture": 127,
             "value_json": "[" + ",".join(["{}"] * (MAX_LIST_ENTRIES_PER_ELEMENT + 1)) + "]",
             "value_text": "[]"}])
        store.session.commit()
    stored = api.element(DRAFT)
    assert len(stored["related"]["owner"]) == links
    assert len(stored["attributes"]["files"]["127"]) == MAX_LIST_ENTRIES_PER_ELEMENT + 1
    renamed = api.post(UPDATE, update_body({"id": DRAFT, "attributes": {"name": {"1033": "x"}}}),
                       role="editor")
    assert renamed.status_code == 200, renamed.get_json()


# --- elrepo import: the same rules ----------------------------------------------------------

def bpmn(tasks: int, first_name: str = "Start") -> bytes:
    """A process of `tasks` tasks in a chain."""
    nodes = "".join(f'<task id="T{i}" name="{first_name if i == 0 else f"Task {i}"}"/>'
                    for i in range(tasks))
    flows = "".join(f'<sequenceFlow id="F{i}" sourceRef="T{i - 1}" targetRef="T{i}"/>'
                    for i in range(1, tasks))
    return ('<?xml version="1.0" encoding="UTF-8"?><definitions '
            'xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="x">'
            f'<process id="P">{nodes}{flows}</process></definitions>').encode()


@pytest.fixture(params=["sqlite", "postgresql"])
def import_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of the parametrized backend with the tenant acme/main."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'import.db'}"
        assert main(["tenant", "create", "acme", "main", "--db", url]) == 0
        yield url
        return
    with postgres_schema("limits") as (server, schema):
        url = in_schema(server, schema)
        assert main(["tenant", "create", "acme", "main", "--db", url]) == 0
        yield url


def test_import_refuses_a_file_past_the_api_limits_with_one_line_and_writes_nothing_of_it(
        import_db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"long-name.bpmn": bpmn(3, "n" * 200_000),
             "too-many-nodes.bpmn": bpmn(MAX_ELEMENTS_PER_UPDATE + 1),
             "fine.bpmn": bpmn(3)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    capsys.readouterr()
    status = main(["import", "--db", import_db, "acme", "main",
                   *(str(tmp_path / name) for name in files)])
    assert status == 2
    errors = [line for line in capsys.readouterr().err.splitlines()
              if line.startswith("elrepo:") and ": imported " not in line]
    assert len(errors) == 2, errors
    assert "long-name.bpmn" in errors[0] and "100,000 characters" in errors[0]
    assert "too-many-nodes.bpmn" in errors[1] and f"{MAX_ELEMENTS_PER_UPDATE}" in errors[1]
    assert all(len(line) < 300 for line in errors)
    engine = make_engine(import_db)
    try:
        with session_factory(engine)() as session:
            stored = session.scalar(select(func.count()).select_from(Element))
    finally:
        engine.dispose()
    assert stored == 4  # fine.bpmn's process and its three tasks only
