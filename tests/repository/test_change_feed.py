"""The change feed (issue 24, docs/events.md): every committed change of a tenant is one
CloudEvent in the tenant's commit order, written in the change's own transaction; a
refused write leaves none; readers page with an opaque cursor; a tenant never reads
another's events; retention trims old events and says so to a reader left behind. On
SQLite and PostgreSQL."""

from __future__ import annotations

import functools
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from repository.app import create_app
from repository.auth import create_token, hash_token
from repository.cli import main
from repository.errors import ServiceUnavailable
from repository.events.feed import encode_cursor, read_events, record_event
from repository.store import find_tenant
from repository.store.changes import feed_bounds
from repository.store.db import open_session
from tests.repository.conftest import (
    FACETS,
    OTHER_TENANT,
    SERVICE_TOKEN,
    TENANT,
    Api,
    Prepared,
    assert_error,
)
from tests.repository.standin import DRAFT, HIRE, ORDER
from tests.repository.test_maintenance import MAINTAIN, maintain
from tests.repository.test_migrations import cli_url

CHANGES = TENANT + "/_api/rest/changes"
DETAIL = FACETS + "/processes/views/detail/elements"
CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"
WRITERS = 8
WRITES_PER_WRITER = 125
UNREAD_WAIT_SECONDS = 60


def feed_page(api: Api, cursor: str | None = None, role: str = "viewer",
              path: str = CHANGES, **params: str) -> dict[str, Any]:
    query = {**params, **({"cursor": cursor} if cursor is not None else {})}
    response = api.get(path, role, **query)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    assert body["count"] == len(body["values"]) and isinstance(body["cursor"], str)
    return body


def feed_end(api: Api) -> str:
    """The cursor after every event there is now."""
    cursor: str | None = None
    while True:
        body = feed_page(api, cursor, **{"$pageSize": "1000"})
        cursor = str(body["cursor"])
        if not body["values"]:
            return cursor


def events_since(api: Api, cursor: str, role: str = "viewer") -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        body = feed_page(api, cursor, role)
        events += body["values"]
        cursor = body["cursor"]
        if not body["values"]:
            return events


def update(client: FlaskClient, token: str, element: dict[str, Any],
           **headers: str) -> TestResponse:
    return client.post(DETAIL, data=json.dumps({"count": 1, "elements": [element]}),
                       content_type="application/json",
                       headers={"Authorization": f"Bearer {token}", **headers})


def test_each_kind_of_change_is_one_cloud_event_in_commit_order(api: Api) -> None:
    start = feed_end(api)
    editor = api.tokens["editor"]
    assert update(api.client, editor, {"id": DRAFT, "attributes": {
        "authorNote": {"1033": "x"}}}).status_code == 200
    assert update(api.client, editor, {"id": DRAFT, "content": [{"id": HIRE}]}).status_code == 200
    appended = api.post(CONTENT.format(DRAFT), {"values": [{
        "shapeInfo": {"index": 0, "predecessors": []},
        "element": {"type": "task", "attributes": {"name": {"1033": "New task"}}}}]},
        role="editor")
    assert appended.status_code == 200, appended.get_json()
    assert api.post(f"{TENANT}/_api/release/{DRAFT}/transitions/InProcessToInReview",
                    role="editor").status_code == 200
    assert update(api.client, editor, {"id": ORDER, "attributes": {
        "authorNote": {"1033": "y"}}}).status_code == 200  # released: a new version
    events = events_since(api, start)

    assert [(e["type"], e["subject"]) for e in events] == [
        ("elrepo.element.updated", DRAFT), ("elrepo.element.contentChanged", DRAFT),
        ("elrepo.element.created", events[2]["subject"]),
        ("elrepo.element.contentChanged", DRAFT), ("elrepo.element.stateChanged", DRAFT),
        ("elrepo.element.versionCreated", ORDER), ("elrepo.element.updated", ORDER)]
    sequences = [int(e["sequence"]) for e in events]
    assert sequences == list(range(sequences[0], sequences[0] + len(events)))
    for event in events:
        assert event["specversion"] == "1.0" and event["source"] == TENANT
        assert event["time"].endswith("Z") and event["datacontenttype"] == "application/json"
        assert event["data"]["element"]["id"] == event["subject"]
    assert len({e["id"] for e in events}) == len(events)
    updated, content, created, _, state, version, order = (e["data"] for e in events)
    assert updated["attributes"] == ["authorNote"] and updated["element"] == {
        "id": DRAFT, "facet": "processes", "type": "mainProcess"}
    draft = api.element(DRAFT)
    assert content["versionId"] == draft["versionId"] == state["versionId"]
    assert created["element"]["type"] == "task" and created["revision"] == 1
    assert created["attributes"][:1] == ["changedOn"] and "name" in created["attributes"]
    assert (state["oldState"], state["newState"], state["transitionId"]) == (
        "inProcess", "inReview", "InProcessToInReview")
    assert version["oldState"] == "released" and version["newState"] == "inProcess"
    assert version["versionId"] == order["versionId"] == api.element(ORDER)["versionId"]
    assert version["previousVersionId"] != version["versionId"]
    assert order["revision"] == int(api.get(f"{DETAIL}/{ORDER}").headers["ETag"].strip('"'))


def test_a_refused_write_leaves_no_event(api: Api) -> None:
    start = feed_end(api)
    editor = api.tokens["editor"]
    stale = update(api.client, editor, {"id": DRAFT, "attributes": {"name": {"1033": "z"}}},
                   **{"If-Match": '"999"'})
    assert_error(stale, 412)
    # Refused after the first element of the body was written: the whole write rolls back.
    refused = api.post(DETAIL, {"count": 2, "elements": [
        {"id": DRAFT, "attributes": {"name": {"1033": "z"}}},
        {"id": ORDER, "related": {"executedBy": [{"id": "no-such-element"}]}}]}, role="editor")
    assert_error(refused, 400)
    assert_error(api.post(f"{TENANT}/_api/release/{DRAFT}/transitions/InReviewToInProcess",
                          role="administrator"), 409)
    assert events_since(api, start) == []


def test_pages_follow_the_cursor_and_a_bad_cursor_is_400(api: Api) -> None:
    whole = feed_page(api, **{"$pageSize": "1000"})["values"]
    assert whole, "loading the stand-in tenant recorded its creation"
    paged: list[dict[str, Any]] = []
    cursor = None
    while True:
        body = feed_page(api, cursor, **{"$pageSize": "7"})
        assert body["count"] <= 7
        if not body["values"]:
            assert body["cursor"] == cursor, "an empty page hands the same cursor back"
            break
        paged += body["values"]
        cursor = body["cursor"]
    assert paged == whole
    assert feed_page(api, "")["values"][:1] == whole[:1], "empty: from the oldest"
    for bad in ("xyz", "YzEuMg=", "YzEuMDI", "Ünïcode", "x" * 65, encode_cursor(10**9)):
        body = assert_error(api.get(CHANGES, "viewer", cursor=bad), 400)
        assert "cursor" in body["message"]
    for size in ("0", "1001", "x"):
        assert_error(api.get(CHANGES, "viewer", **{"$pageSize": size}), 400)
    assert_error(api.get(CHANGES, "viewer", **{"api-version": "1.0"}), 400)


def test_every_reading_role_reads_the_feed_and_no_tenant_reads_anothers(api: Api) -> None:
    for role in api.tokens:
        assert feed_page(api, role=role)["count"] > 0
    assert_error(api.get(CHANGES, token=api.other_tokens["viewer"]), 403)
    assert_error(api.get(CHANGES, role=None), 401)
    other = f"{OTHER_TENANT}/_api/rest/changes"
    assert_error(api.get(other, "viewer"), 403)
    start = feed_end(api)
    assert update(api.client, api.tokens["editor"], {"id": DRAFT, "attributes": {
        "authorNote": {"1033": "mine"}}}).status_code == 200

    theirs: list[dict[str, Any]] = []
    cursor = None
    while True:
        response = api.get(other, token=api.other_tokens["viewer"],
                           **({"cursor": cursor} if cursor else {}))
        body = response.get_json()
        assert response.status_code == 200, body
        if not body["values"]:
            break
        theirs += body["values"]
        cursor = body["cursor"]
    with api.store() as store:
        demo_ids = set(store.context.pks_by_id(e["subject"] for e in theirs))
    assert theirs and {e["source"] for e in theirs} == {OTHER_TENANT}
    assert not demo_ids & {DRAFT}, "no event of /demo/default in /other/default's feed"
    assert [e["subject"] for e in events_since(api, start)] == [DRAFT]


def test_a_new_access_token_is_in_the_feed_only_as_an_element_every_reader_can_read(
        api: Api) -> None:
    """A token's `authToken` element (facet automation) is an element like any other:
    every reading role lists it, so every reading role is shown its creation, and the
    event names the attributes written, never the token or its hash."""
    start = feed_end(api)
    with api.store() as store:
        token = create_token(store.session, store.tenant, "editor", "Build pipeline")
        store.session.commit()
    for role in api.tokens:
        events = events_since(api, start, role)
        [created] = events
        assert (created["type"], created["data"]["element"]["type"]) == (
            "elrepo.element.created", "authToken")
        assert sorted(created["data"]["attributes"]) == [
            "changedOn", "createdOn", "name", "role", "state1"]
        text = json.dumps(events)
        assert token not in text and hash_token(token) not in text
        listed = api.get(FACETS + "/automation/views/list/elements", role,
                         **{"$pageSize": "1000"})
        assert listed.status_code == 200, listed.get_json()
        assert created["subject"] in {e["id"] for e in listed.get_json()["elements"]}


def test_maintenance_trims_events_past_retention_and_a_cursor_behind_them_is_410(
        prepared: Prepared) -> None:
    app = create_app({**prepared.config, "SERVICE_TOKEN": SERVICE_TOKEN,
                      "EVENT_RETENTION_DAYS": 1e-9})  # every event is past it at once
    api = Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)
    try:
        first = feed_page(api, **{"$pageSize": "1"})
        assert maintain(api, MAINTAIN, SERVICE_TOKEN).status_code == 200
        assert feed_page(api)["values"] == []
        body = assert_error(api.get(CHANGES, "viewer", cursor=first["cursor"]), 410)
        assert "retention" in body["message"]
        assert update(api.client, api.tokens["editor"], {"id": DRAFT, "attributes": {
            "authorNote": {"1033": "after"}}}).status_code == 200
        [kept] = feed_page(api)["values"]
        assert kept["subject"] == DRAFT
        assert int(kept["sequence"]) > int(first["values"][0]["sequence"])
    finally:
        app.extensions["elrepo.engine"].dispose()


class Writes:
    """The writes the writer threads saw acknowledged (committed), and the threads'
    failures, for the reader to wait on: it asks for a page only once a write it has not
    read was acknowledged, so it reads while the others write without spinning on empty
    pages (it sent four requests for every write, most of them empty, and took their
    share of the CPU from the writers)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.acknowledged: list[str] = []
        self.failures: list[BaseException] = []

    def acknowledge(self, write: str) -> None:
        with self._changed:
            self.acknowledged.append(write)
            self._changed.notify_all()

    def fail(self, error: BaseException) -> None:
        with self._changed:
            self.failures.append(error)
            self._changed.notify_all()

    def failed(self) -> bool:
        return bool(self.failures)

    def await_unread(self, read: int) -> None:
        """Until more than `read` writes were acknowledged or a thread failed (the
        timeout is a hang guard: past it the reader simply asks again)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self.acknowledged) > read or self.failed(),
                                   timeout=UNREAD_WAIT_SECONDS)


def run_writers_and_reader(writes: Writes, write: Callable[[int], None],
                           follow: Callable[[], None]) -> None:
    """WRITERS threads running `write(writer)` and one running `follow()` at once; fails
    with the threads' failures (`writes.failed()` tells the reader to stop waiting)."""

    def guarded(run: Callable[[], None]) -> None:
        try:
            run()
        except BaseException as error:
            writes.fail(error)

    threads = [threading.Thread(target=guarded, args=(functools.partial(write, w),))
               for w in range(WRITERS)]
    threads.append(threading.Thread(target=guarded, args=(follow,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert writes.failures == []


def test_the_counter_numbers_concurrent_transactions_in_commit_order(api: Api) -> None:
    """8 writers commit (or roll back) events in transactions that overlap, while a
    reader pages through in transactions of its own: every page continues the previous
    one exactly, so no committed event is ever numbered below one a reader has passed,
    and a rolled-back event leaves no number behind."""
    sessions = api.app.extensions["elrepo.sessions"]
    with sessions() as session:
        tenant = find_tenant(session, "demo", "default")
        assert tenant is not None
        tenant_pk, start = tenant.pk, feed_bounds(session, tenant.pk)[1]
    writes = Writes()

    def transaction(subject: str, n: int) -> None:
        """One write; a busy database (SQLite's lock, past its wait) is tried again, as a
        client does after a 503."""
        while True:
            try:
                with open_session(sessions, write=True) as session:
                    record_event(session, tenant_pk, "elrepo.test", subject, {"n": n})
                    if n % 2:  # widen the window between numbering and commit
                        time.sleep(0.002)
                    if n % 10 == 9:
                        session.rollback()
                        return
                    session.commit()
                    writes.acknowledge(subject)
                    return
            except ServiceUnavailable:
                continue

    def write(writer: int) -> None:
        for n in range(WRITES_PER_WRITER):
            transaction(f"w{writer}-{n}", n)

    expected = WRITERS * (WRITES_PER_WRITER - WRITES_PER_WRITER // 10)
    read: list[str] = []

    def follow() -> None:
        after = start
        while len(read) < expected and not writes.failed():
            writes.await_unread(len(read))
            with sessions() as session:
                page = read_events(session, tenant_pk, after, 50)
            assert [e.sequence for e in page] == list(range(after + 1, after + 1 + len(page)))
            read.extend(e.subject for e in page)
            after = page[-1].sequence if page else after

    run_writers_and_reader(writes, write, follow)
    assert len(read) == len(set(read)) == expected and set(read) == set(writes.acknowledged)


@pytest.mark.slow  # a thousand writes one after another: a minute or two on a loaded machine
def test_1000_updates_from_8_writers_are_1000_events_in_commit_order_read_while_written(
        api: Api) -> None:
    """8 clients update one element at once (its revision, taken under the element's row
    lock, is the order the updates committed in), some with a stale If-Match (refused,
    rolled back), while a ninth pages through the feed: it reads each update's event
    once, in the order of the revisions, with no gap, and none of a refused update."""
    start = feed_end(api)
    revision = int(api.get(f"{DETAIL}/{DRAFT}").headers["ETag"].strip('"'))
    editor = api.tokens["editor"]
    writes = Writes()

    def write(writer: int) -> None:
        client = api.app.test_client()

        def answered(element: dict[str, Any], **headers: str) -> TestResponse:
            """A 503 (SQLite's lock, past its wait) is tried again, as a client does."""
            while True:
                answer = update(client, editor, element, **headers)
                if answer.status_code != 503:
                    return answer

        for n in range(WRITES_PER_WRITER):
            if n % 25 == 0:  # "0" is never a revision
                assert_error(answered({"id": DRAFT, "attributes": {"authorNote": {
                    "1033": "stale"}}}, **{"If-Match": '"0"'}), 412)
            answer = answered({"id": DRAFT, "attributes": {"authorNote": {"1033": f"{writer}-{n}"}}})
            assert answer.status_code == 200, answer.get_json()
            writes.acknowledge(f"{writer}-{n}")

    total = WRITERS * WRITES_PER_WRITER
    read: list[dict[str, Any]] = []

    def follow() -> None:
        client = api.app.test_client()
        cursor = start
        while len(read) < total and not writes.failed():
            writes.await_unread(len(read))
            response = client.get(CHANGES, query_string={"cursor": cursor, "$pageSize": "37"},
                                  headers={"Authorization": f"Bearer {api.tokens['viewer']}"})
            assert response.status_code == 200, response.get_json()
            read.extend(response.get_json()["values"])
            cursor = response.get_json()["cursor"]

    run_writers_and_reader(writes, write, follow)
    assert len(writes.acknowledged) == total
    assert [(e["type"], e["subject"]) for e in read] == [("elrepo.element.updated", DRAFT)] * total
    assert [e["data"]["revision"] for e in read] == list(range(revision + 1, revision + total + 1))
    sequences = [int(e["sequence"]) for e in read]
    assert sequences == list(range(sequences[0], sequences[0] + total))
    assert len({e["id"] for e in read}) == total
    assert events_since(api, feed_end(api)) == [] and len(events_since(api, start)) == total


def test_events_tail_prints_the_feed_as_json_lines_and_refuses_a_bad_cursor_in_one_line(
        api: Api, prepared: Prepared, capsys: pytest.CaptureFixture[str]) -> None:
    db = cli_url(prepared.config)
    assert main(["events", "tail", "demo", "default", "--from-start", "--no-follow",
                 "--db", db]) == 0
    printed, said = capsys.readouterr()
    whole = feed_page(api, **{"$pageSize": "1000"})
    assert [json.loads(line) for line in printed.splitlines()] == whole["values"]
    assert said == f"elrepo: stopped; go on with --cursor {whole['cursor']}\n"
    assert main(["events", "tail", "demo", "default", "--no-follow", "--db", db]) == 0
    assert capsys.readouterr().out == "", "by default it starts with the next event"
    assert main(["events", "tail", "demo", "default", "--cursor", "xyz", "--db", db]) == 2
    said = capsys.readouterr().err
    assert said.startswith("elrepo: cursor 'xyz' is not a cursor") and said.count("\n") == 1
    with pytest.raises(SystemExit) as refused:  # argparse's usage and one line
        main(["events", "tail", "demo", "default", "--interval", "0", "--db", db])
    assert refused.value.code == 2
    assert capsys.readouterr().err.endswith("a positive number of seconds, not '0'\n")
    assert main(["events", "tail", "nobody", "here", "--db", db]) == 2
    assert "elrepo tenant create nobody here" in capsys.readouterr().err


def test_events_tail_follows_new_events_until_ctrl_c_which_exits_0(
        api: Api, prepared: Prepared) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "repository.cli", "events", "tail", "demo", "default",
         "--cursor", feed_end(api), "--interval", "0.1", "--db", cli_url(prepared.config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    try:
        assert process.stderr is not None and process.stdout is not None
        assert update(api.client, api.tokens["editor"], {"id": DRAFT, "attributes": {
            "authorNote": {"1033": "followed"}}}).status_code == 200
        ready, _, _ = select.select([process.stdout], [], [], 300)
        assert ready, "no event printed in 5 minutes"
        event = json.loads(process.stdout.readline())
        assert (event["type"], event["subject"]) == ("elrepo.element.updated", DRAFT)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
        said = process.stderr.read()
        assert said.startswith("elrepo: stopped; go on with --cursor ") and "Traceback" not in said
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
