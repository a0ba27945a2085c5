"""Issue 18: a POST that only reads (the related context, the transitions list) takes no
write lock, so viewers cannot queue every tenant's writes behind theirs on SQLite."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from sqlalchemy import make_url

from repository.api.registry import RESOURCES
from repository.app import create_app
from tests.repository.conftest import FACETS, TENANT, Api, Prepared, sqlite_only
from tests.repository.standin import DRAFT, ORDER

READ_ONLY_POSTS = [
    f"{FACETS}/processes/views/detail/elements/{ORDER}/related/executedBy",
    f"{TENANT}/_api/release/{DRAFT}/transitions",
    f"{TENANT}/_api/rest/release/{DRAFT}/transitions",
]


@pytest.fixture
def impatient_api(prepared: Prepared) -> Iterator[Api]:
    """The service waiting a tenth of a second for SQLite's write lock (a write refused
    answers at once rather than after BUSY_TIMEOUT_SECONDS)."""
    app = create_app({**prepared.config, "ENGINE_OPTIONS": {"connect_args": {"timeout": 0.1}}})
    yield Api(app, app.test_client(), prepared.tokens, prepared.other_tokens)
    app.extensions["elrepo.engine"].dispose()


@sqlite_only
@pytest.mark.parametrize("path", READ_ONLY_POSTS)
def test_a_read_only_post_answers_while_another_connection_holds_the_write_lock(
        impatient_api: Api, path: str) -> None:
    database = make_url(impatient_api.app.config["DATABASE_URL"]).database
    assert database is not None
    writer = sqlite3.connect(database, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # another worker's write, in progress
        response = impatient_api.post(path, role="viewer")
        assert response.status_code == 200, response.get_json()
        # and the writer was not blocked by it: it writes and commits
        writer.execute("UPDATE elements SET revision = revision + 1 WHERE id = ?", (DRAFT,))
        writer.execute("COMMIT")
    finally:
        writer.close()


@sqlite_only
def test_a_write_still_waits_for_the_lock_and_answers_503(impatient_api: Api) -> None:
    database = make_url(impatient_api.app.config["DATABASE_URL"]).database
    assert database is not None
    writer = sqlite3.connect(database, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        response = impatient_api.post(f"{TENANT}/_api/release/{DRAFT}/transitions/"
                                      "InProcessToInReview")
        assert response.status_code == 503 and response.headers["Retry-After"]
    finally:
        writer.close()


def test_only_declared_endpoints_write_on_post() -> None:
    """Every POST writes unless its declaration says it only reads: the list is known."""
    read_only = {(declaration.summary, method) for resource in RESOURCES
                 for declaration in resource.declarations for method in declaration.methods
                 if method == "POST" and not declaration.writes_on(method)}
    assert read_only == {("Related get", "POST"), ("List transitions allowed now", "POST")}
