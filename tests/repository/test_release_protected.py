"""Issue 18, item 8 (repository/protected.py, repository/store/guard.py): access tokens,
the release workflow's approval tasks and the users the audit trail names are written
only by the service itself and administrators, on every write path; anyone else gets a
403 envelope and nothing is written. The release workflow still opens and closes its
tasks for editors and approvers."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select

from repository.errors import Forbidden
from repository.protected import ADMINISTRATOR
from repository.store.models import Base, Element, RelatedLink, Token
from repository.wire import ElementInput
from tests.repository.conftest import FACETS, TENANT, Api, assert_error, recorded_statements
from tests.repository.standin import HIRE, ORDER
from tests.repository.test_cli import Server

UPDATE = FACETS + "/{}/views/list/elements"
CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"
ACTOR_USER, OTHER_USER = "u-viewer", "u-approver"


def every_row(api: Api) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in key order: equal before and after means nothing was
    written at all."""
    with api.app.extensions["elrepo.sessions"]() as session:
        return {table.name: [tuple(row) for row in session.execute(
                    select(table).order_by(*table.primary_key.columns))]
                for table in Base.metadata.sorted_tables}


def token_element(api: Api, role: str) -> str:
    """The id of the authToken element the demo token of `role` acts as."""
    with api.store() as store:
        return store.session.scalars(
            select(Element.id).join(Token, Token.element_pk == Element.pk)
            .where(Token.tenant_pk == store.tenant.pk, Token.name == f"demo {role}")).one()


def expiry_task(api: Api) -> dict[str, Any]:
    """The open "Approve expiry" task of ORDER, opened by an editor's request."""
    request = api.post(f"{TENANT}/_api/release/{ORDER}/transitions/ReleasedToRequestToExpire",
                       role="editor")
    assert request.status_code == 200, request.get_json()
    tasks = api.get(UPDATE.format("automation"), **{"$filter": "type eq 'task'"})
    (task,) = tasks.get_json()["elements"]
    return task  # type: ignore[no-any-return]


def update(api: Api, facet: str, elements: list[dict[str, Any]], role: str) -> Any:
    return api.post(UPDATE.format(facet), {"count": len(elements), "elements": elements},
                    role=role)


def assert_refused_and_nothing_written(api: Api, send: Any) -> None:
    before = every_row(api)
    body = assert_error(send(), 403)
    assert body["type"] == "unauthorized" and "administrator" in body["message"]
    assert every_row(api) == before


CHANGES = {
    "rename the token": lambda token, task: [
        {"id": token, "attributes": {"name": {"127": "Forged"}}}],
    "give the token children": lambda token, task: [{"id": token, "children": [{"id": OTHER_USER}]}],
    "close the task as accepted without assignees": lambda token, task: [
        {"id": task, "attributes": {"taskStatus": {"127": "accepted"}},
         "related": {"assignedTo": []}}],
    "reassign the task": lambda token, task: [
        {"id": task, "related": {"assignedTo": [{"id": ACTOR_USER}]}}],
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_an_editor_cannot_change_a_token_or_an_approval_task(api: Api, change: str) -> None:
    task = expiry_task(api)["id"]
    elements = CHANGES[change](token_element(api, ADMINISTRATOR), task)
    for role in ("editor", "architect"):
        assert_refused_and_nothing_written(api, partial(update, api, "automation", elements, role))
    response = update(api, "automation", elements, ADMINISTRATOR)
    assert response.status_code == 200, response.get_json()


NEW_ELEMENTS = {
    "a token": {"type": "authToken", "attributes": {"name": {"127": "Fake administrator"}}},
    "a task": {"type": "task", "attributes": {"name": {"1033": "Approve expiry: x"},
                                              "actionType": {"127": "approveExpiry"},
                                              "taskStatus": {"127": "accepted"}}},
}


@pytest.mark.parametrize("new", sorted(NEW_ELEMENTS))
def test_an_editor_cannot_create_a_token_or_a_task_in_an_update_body(api: Api, new: str) -> None:
    elements = [NEW_ELEMENTS[new]]
    assert_refused_and_nothing_written(api, lambda: update(api, "automation", elements, "editor"))
    response = update(api, "automation", elements, ADMINISTRATOR)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["elements"][0]["facetName"] == "automation"


def test_an_editor_cannot_create_a_token_by_content_create(api: Api) -> None:
    body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                        "element": NEW_ELEMENTS["a token"]}]}
    assert_refused_and_nothing_written(
        api, lambda: api.post(CONTENT.format(ORDER), body, role="editor"))


def name_user_in_the_audit_trail(api: Api, user_id: str) -> None:
    """Old data: a changedBy link naming a user, as a database from elsewhere may hold."""
    with api.store() as store:
        store.session.execute(insert(RelatedLink).values(
            version_pk=store.reads.element(HIRE).current_version_pk, context="changedBy",
            position=1, target_pk=store.reads.element(user_id).pk))
        store.session.commit()


def test_a_user_the_audit_trail_names_is_protected_and_other_users_are_not(api: Api) -> None:
    name_user_in_the_audit_trail(api, ACTOR_USER)
    rename_other = {"id": OTHER_USER, "attributes": {"name": {"1033": "Renamed"}}}
    rename_actor = {"id": ACTOR_USER, "attributes": {"name": {"1033": "Forged"}}}
    # with a user that may be renamed in the same body: neither is written
    assert_refused_and_nothing_written(
        api, lambda: update(api, "users", [rename_other, rename_actor], "editor"))
    assert update(api, "users", [rename_other], "editor").status_code == 200
    assert update(api, "users", [rename_actor], ADMINISTRATOR).status_code == 200
    assert api.element(ACTOR_USER, facet="users")["attributes"]["name"]["1033"] == "Forged"


def test_the_guard_costs_a_write_elsewhere_no_statement(api: Api) -> None:
    """Only a write reaching the service facet looks up the actor's role, and only a
    change to a user looks up the audit links."""
    def guard_statements(facet: str, element_id: str) -> list[str]:
        with recorded_statements(api.app) as seen:
            response = update(api, facet, [{"id": element_id, "attributes": {
                "name": {"1033": "Renamed"}}}], "editor")
        assert response.status_code == 200, response.get_json()
        return [sql for sql, _ in seen if "tokens.role FROM" in sql
                or ("SELECT DISTINCT" in sql and "related_links.target_pk" in sql)]
    assert guard_statements("processes", ORDER) == []
    assert len(guard_statements("users", OTHER_USER)) == 1


def test_an_editor_cannot_run_a_transition_on_a_token(api: Api) -> None:
    token = token_element(api, "viewer")
    path = f"{TENANT}/_api/release/{token}/transitions/InProcessToInReview"
    assert_refused_and_nothing_written(api, lambda: api.post(path, role="editor"))
    assert_error(api.post(path, role=ADMINISTRATOR), 409)  # unversioned: no transition


def test_the_workflow_opens_and_closes_its_task_for_an_editor_and_an_approver(api: Api) -> None:
    task = expiry_task(api)  # opened for an editor, who may not create tasks
    assert [user["id"] for user in task["related"]["assignedTo"]] == [OTHER_USER]
    closed = api.post(f"{TENANT}/_api/release/{ORDER}/transitions/RequestToExpireToExpired",
                      role="approver")
    assert closed.status_code == 200, closed.get_json()
    after = api.element(task["id"], facet="automation")
    assert after["attributes"]["taskStatus"] == {"127": "accepted"}
    assert after["related"]["assignedTo"] == task["related"]["assignedTo"]


def test_the_store_lets_the_service_and_administrators_write_and_no_one_else(api: Api) -> None:
    """The guard sits in the write layer: the command line and the demo loader (no acting
    token) are the service; a token acts with its role."""
    rename = ElementInput(id=None, version_id=None, type=None, facet=None,
                          attributes={"name": {127: "Renamed"}}, related=None, children=None,
                          content=None)
    with api.store() as store:
        actor = {token.role: token.element_pk for token in store.session.scalars(select(Token))
                 if token.tenant_pk == store.tenant.pk}
        viewer_token = store.session.get_one(Element, actor["viewer"])
        for role in ("editor", "architect", "approver", "viewer", "analyzer"):
            with pytest.raises(Forbidden):
                store.writes.update(viewer_token, rename, actor[role])
            with pytest.raises(Forbidden):
                store.writes.create("automation", ElementInput(
                    id=None, version_id=None, type="authToken", facet="automation",
                    attributes={}, related=None, children=None, content=None), actor[role])
        store.session.rollback()
        store.writes.update(viewer_token, rename, None)
        store.writes.update(viewer_token, rename, actor[ADMINISTRATOR])
        with store.guard.acting_as_service():
            store.writes.update(viewer_token, rename, actor["editor"])
        with pytest.raises(Forbidden):  # and only inside
            store.writes.update(viewer_token, rename, actor["editor"])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    """A real `elrepo serve` on the demo tenant, its editor token and its database file."""
    server = Server(f"sqlite:///{tmp_path / 'live.db'}", tmp_path)
    try:
        yield server, str(tmp_path / "live.db")
    finally:
        server.stop()


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_live_server_refuses_the_forgeries_of_the_issue(live: tuple[Server, str]) -> None:
    """The issue's reproduction: an editor renames a token, creates a fake one and closes
    an open "Approve expiry" task as accepted without its assignees; each a 403."""
    server, database = live
    automation = "/demo/default/_api/rest/facets/automation/views/list/elements"

    def send(elements: list[dict[str, Any]]) -> int:
        status, content_type, _ = server.request(automation, "POST",
                                                 {"count": len(elements), "elements": elements})
        assert content_type.startswith("application/json")
        return status

    def rows() -> list[Any]:
        with sqlite3.connect(database) as connection:
            return [connection.execute(f"SELECT * FROM {table} ORDER BY pk").fetchall()
                    for table in ("elements", "attribute_values", "related_links")]

    _, _, listed = server.request(automation)
    token = next(e["id"] for e in json.loads(listed)["elements"] if e["type"] == "authToken")
    _, _, released = server.request("/demo/default/_api/rest/facets/products/views/list/"
                                    "elements?%24filter=state1%20eq%20%27released%27")
    product = json.loads(released)["elements"][0]["id"]
    status, _, _ = server.request(f"/demo/default/_api/release/{product}/transitions/"
                                  "ReleasedToRequestToExpire", "POST")
    assert status == 200
    _, _, tasks = server.request(automation + "?%24filter=type%20eq%20%27task%27")
    task = json.loads(tasks)["elements"][0]["id"]
    before = rows()
    assert send([{"id": token, "attributes": {"name": {"127": "Forged"}}}]) == 403
    assert send([{"type": "authToken", "attributes": {"name": {"127": "Fake admin"}}}]) == 403
    assert send([{"id": task, "attributes": {"taskStatus": {"127": "accepted"}},
                  "related": {"assignedTo": []}}]) == 403
    assert rows() == before
    administrator = subprocess.run(
        [sys.executable, "-m", "repository.cli", "token", "create", "demo", "default",
         "--role", ADMINISTRATOR, "--db", f"sqlite:///{database}"],
        capture_output=True, text=True, check=True).stdout.split()[-1]
    status, _, _ = server.request(automation, "POST", {"count": 1, "elements": [
        {"id": token, "attributes": {"name": {"127": "Renamed by an administrator"}}}]},
        headers={"Authorization": f"Bearer {administrator}"})
    assert status == 200
