"""docs/contract.md, "Authentication and permissions" on every tenant endpoint: 401 without a valid token, 403 for
another tenant's token (and nothing read or written), 403 without the permission."""

from __future__ import annotations

from typing import Any

import pytest

from repository.auth import ROLE_PERMISSIONS, hash_token
from tests.repository.conftest import OTHER_TENANT, TENANT, Api, assert_error, sqlite_only
from tests.repository.endpoints import CALLS, Call
from tests.repository.standin import DRAFT

IDS = [f"{c.method} {c.path}" for c in CALLS]


def send(api: Api, call: Call, tenant: str = TENANT, **kwargs: Any) -> Any:
    return api.send(call.method, tenant + call.path, call.body, **kwargs)


def is_render(call: Call) -> bool:
    return "/_api/rest/diagram/" in call.path  # render and BPMN export: the render error shape


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_no_token_is_401(api: Api, call: Call) -> None:
    response = send(api, call, role=None)
    body = assert_error(response, 401, render=is_render(call))
    assert body["type"] == "unauthorized"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_unknown_token_is_401(api: Api, call: Call) -> None:
    assert_error(send(api, call, token="not-a-token"), 401, render=is_render(call))


@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_token_of_another_tenant_is_403_and_nothing_is_written(api: Api, call: Call) -> None:
    before = api.element(DRAFT)
    body = assert_error(send(api, call, token=api.other_tokens["administrator"]), 403,
                        render=is_render(call))
    assert body["type"] == "unauthorized"
    assert api.element(DRAFT) == before


@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_token_of_this_tenant_on_another_tenant_path_is_403(api: Api, call: Call) -> None:
    assert_error(send(api, call, tenant=OTHER_TENANT), 403, render=is_render(call))


@sqlite_only
@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_an_unknown_tenant_answers_as_another_tenant_does(api: Api, call: Call) -> None:
    """403 for both: a token's holder learns nothing of which other tenants exist."""
    unknown = assert_error(send(api, call, tenant="/nobody/here"), 403, render=is_render(call))
    existing = assert_error(send(api, call, tenant=OTHER_TENANT), 403, render=is_render(call))
    assert unknown == existing


@sqlite_only
@pytest.mark.parametrize("role", sorted(ROLE_PERMISSIONS))
@pytest.mark.parametrize("call", CALLS, ids=IDS)
def test_each_role_gets_exactly_its_permissions(api: Api, call: Call, role: str) -> None:
    response = send(api, call, role=role)
    if call.permission in ROLE_PERMISSIONS[role]:
        assert response.status_code == 200, (role, response.get_json())
    else:
        body = assert_error(response, 403, render=is_render(call))
        assert call.permission in body["message"]


def test_creating_needs_new_element(api: Api) -> None:
    body = {"count": 1, "elements": [{"type": "task"}]}
    path = TENANT + "/_api/rest/facets/processes/views/detail/elements"
    assert_error(api.post(path, body, role="approver"), 403)
    assert api.post(path, body, role="editor").status_code == 200


@sqlite_only
@pytest.mark.parametrize("header", ["Basic abc", "Bearer", "Bearer ", "token abc", ""])
def test_malformed_authorization_is_401(api: Api, header: str) -> None:
    response = api.client.get(TENANT + "/_api/rest/facets/processes/views",
                              headers={"Authorization": header})
    assert_error(response, 401)


def test_tokens_are_stored_hashed(api: Api) -> None:
    from sqlalchemy import select

    from repository.store.models import Token

    token = api.tokens["editor"]
    with api.store() as store:
        hashes = set(store.session.scalars(select(Token.token_hash)))
    assert token not in hashes and hash_token(token) in hashes
