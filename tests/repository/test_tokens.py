"""Tokens that expire and can be revoked (`elrepo token create --expires-in`, `token
list`, `token revoke`), and the guard of the maintenance token (docs/contract.md,
"Authentication and permissions"; docs/reliability.md, "Front door (issue 18)")."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from repository.app import create_app
from repository.auth import UNKNOWN_TOKEN, ServiceTokenGuard
from repository.cli import main
from repository.front_door import SERVICE_TOKEN_GUARD
from tests.repository.conftest import Api, assert_error, sqlite_only

LIST = "/acme/main/_api/rest/facets/processes/views/list/elements"
MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'tokens.db'}"
    assert main(["tenant", "create", "acme", "main", "--db", url]) == 0
    return url


def created(db: str, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    assert main(["token", "create", "acme", "main", "--db", db, *options]) == 0
    return capsys.readouterr().out.strip().splitlines()[-1]


def status_of(client: FlaskClient, token: str) -> int:
    return client.get(LIST, headers={"Authorization": f"Bearer {token}"}).status_code


def test_a_revoked_token_is_401_and_the_others_still_work(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing could revoke a token, although the 401 said "revoked"."""
    leaked = created(db, capsys, "--role", "editor", "--name", "ci robot")
    kept = created(db, capsys, "--role", "viewer", "--name", "dashboard")
    client = create_app({"DATABASE_URL": db}).test_client()
    assert status_of(client, leaked) == 200
    assert main(["token", "revoke", "acme", "main", "--name", "ci robot", "--db", db]) == 0
    assert "Revoked token" in capsys.readouterr().err
    response = client.get(LIST, headers={"Authorization": f"Bearer {leaked}"})
    assert assert_error(response, 401)["message"] == UNKNOWN_TOKEN
    assert status_of(client, kept) == 200
    # Revoked once: naming it again finds no unrevoked token.
    assert main(["token", "revoke", "acme", "main", "--name", "ci robot", "--db", db]) == 2
    assert "No unrevoked token" in capsys.readouterr().err


def test_token_list_shows_each_token_but_never_the_token(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    forever = created(db, capsys, "--role", "editor", "--name", "builder")
    brief = created(db, capsys, "--role", "viewer", "--expires-in", "1.5")
    assert main(["token", "revoke", "acme", "main", "--name", "builder", "--db", db]) == 0
    capsys.readouterr()
    assert main(["token", "list", "acme", "main", "--db", db]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "NAME", "ROLE", "CREATED", "EXPIRES", "REVOKED"]
    builder, viewer = lines[1:]
    assert "builder" in builder and "editor" in builder and "never" in builder
    assert builder.split()[-1] != "-"  # revoked at a time
    assert "viewer token" in viewer and viewer.split()[-1] == "-"
    created_at, expires_at = viewer.split()[-3:-1]
    assert (datetime.fromisoformat(expires_at) - datetime.fromisoformat(created_at)
            == timedelta(days=1.5))
    assert forever not in out and brief not in out and "2 token(s)" in err


def test_a_token_revoked_by_id_and_a_shared_name_needs_the_id(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    first = created(db, capsys, "--role", "viewer", "--name", "twin")
    second = created(db, capsys, "--role", "viewer", "--name", "twin")
    assert main(["token", "revoke", "acme", "main", "--name", "twin", "--db", db]) == 2
    assert "revoke one by its id" in capsys.readouterr().err
    assert main(["token", "list", "acme", "main", "--db", db]) == 0
    first_id = capsys.readouterr().out.splitlines()[1].split()[0]
    assert main(["token", "revoke", "acme", "main", "--id", first_id, "--db", db]) == 0
    client = create_app({"DATABASE_URL": db}).test_client()
    assert (status_of(client, first), status_of(client, second)) == (401, 200)


@pytest.mark.parametrize("days", ["0", "-1", "abc", "nan"])
def test_a_bad_expiry_is_refused_by_the_parser(db: str, days: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["token", "create", "acme", "main", "--role", "viewer", "--expires-in", days,
              "--db", db])
    assert exited.value.code == 2 and "--expires-in" in capsys.readouterr().err


def test_an_expiry_past_a_century_is_one_line_exit_2(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["token", "create", "acme", "main", "--role", "viewer", "--expires-in",
                 "100000", "--db", db]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_an_expired_token_is_401(db: str, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    token = created(db, capsys, "--role", "viewer", "--expires-in", "1")
    client = create_app({"DATABASE_URL": db}).test_client()
    assert status_of(client, token) == 200
    monkeypatch.setattr("repository.auth.now_timestamp", lambda: "2999-01-01T00:00:00")
    response = client.get(LIST, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401 and response.get_json()["message"] == UNKNOWN_TOKEN


# ---- the maintenance token -------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@sqlite_only
def test_wrong_maintenance_tokens_lock_maintenance_for_a_window(
        api: Api, service_token: str) -> None:
    """1,000 wrong tokens were each checked, 1,000 401s in 1.3 s; now the sixth wrong one
    in a minute locks maintenance (429 with Retry-After) for everyone, the right token
    too, until the window passes."""
    clock = Clock()
    guard = ServiceTokenGuard(service_token, free_failures=5, window=60, clock=clock)
    api.app.extensions[SERVICE_TOKEN_GUARD] = guard

    def maintain(token: str) -> int:
        return api.client.get(MAINTAIN, headers={"service-auth-token": token}).status_code

    assert maintain(service_token) == 200
    assert [maintain(f"guess-{n}") for n in range(5)] == [401] * 5
    response = api.client.get(MAINTAIN, headers={"service-auth-token": "guess-6"})
    assert_error(response, 429)
    assert response.headers["Retry-After"] == "60"
    assert maintain(service_token) == 429  # a right token tells nothing during the lock
    clock.now += 30
    assert api.client.get(MAINTAIN).headers["Retry-After"] == "30"
    clock.now += 30.5
    assert maintain(service_token) == 200
    assert maintain("guess-7") == 401


def test_a_token_name_xml_cannot_carry_is_refused_and_nothing_is_created(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The text rule of every other name (tests/repository/test_control_characters.py)."""
    assert main(["token", "create", "acme", "main", "--role", "viewer", "--name", "a\x01b",
                 "--db", db]) == 2
    assert "control characters" in capsys.readouterr().err
    assert main(["token", "list", "acme", "main", "--db", db]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1  # the heading alone
