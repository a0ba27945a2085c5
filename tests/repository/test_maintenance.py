"""Seed endpoint 17: maintenance with the service token."""

from __future__ import annotations

import pytest
from sqlalchemy import text, update
from werkzeug.test import TestResponse

from repository.store.models import Element
from tests.repository.conftest import SERVICE_TOKEN, Api, Prepared, assert_error, sqlite_only
from tests.repository.standin import ORDER
from tests.repository.test_render_cache import make_api

MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"


def maintain(api: Api, path: str = MAINTAIN, token: str | None = None, **params: str) -> TestResponse:
    headers = {"Accept": "application/json"}
    if token is not None:
        headers["service-auth-token"] = token
    return api.client.get(path, headers=headers, query_string=params)


def test_maintain_all_pools(api: Api, service_token: str) -> None:
    body = maintain(api, token=service_token, **{"api-version": "4.0"}).get_json()
    assert body == {"count": 2, "values": [{"item1": "demo.default", "item2": True},
                                           {"item1": "other.default", "item2": True}]}


def test_maintain_one_pool_and_unknown_pool(api: Api, service_token: str) -> None:
    answer = maintain(api, MAINTAIN + "/other.default", service_token).get_json()
    assert answer["values"] == [
        {"item1": "other.default", "item2": True}]
    assert_error(maintain(api, MAINTAIN + "/nobody.here", service_token), 404)


def test_maintenance_refreshes_stale_listing_caches(api: Api, service_token: str) -> None:
    with api.store() as store:
        store.session.execute(update(Element).where(Element.id == ORDER)
                              .values(state="bogus", sort_name="zzz"))
        store.session.commit()
    assert maintain(api, token=service_token).status_code == 200
    with api.store() as store:
        order = store.reads.element(ORDER)
        assert order.state == "released" and order.sort_name == "order to cash"


@sqlite_only
def test_maintenance_leaves_planner_statistics_on_every_listing_table(
        api: Api, service_token: str) -> None:
    with api.store() as store:
        store.session.execute(text("DROP TABLE IF EXISTS sqlite_stat1"))
        store.session.commit()
    assert maintain(api, token=service_token).status_code == 200
    with api.store() as store:
        analyzed = set(store.session.scalars(text("SELECT DISTINCT tbl FROM sqlite_stat1")))
    assert {"elements", "element_versions", "attribute_values"} <= analyzed


def test_wrong_missing_or_tenant_token_is_401(api: Api, service_token: str) -> None:
    assert_error(maintain(api, token="wrong"), 401)
    assert_error(maintain(api), 401)
    response = api.client.get(MAINTAIN, headers={
        "Authorization": f"Bearer {api.tokens['administrator']}"})
    assert_error(response, 401)


def test_unset_service_token_refuses_everyone(prepared: Prepared,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ELREPO_SERVICE_AUTH_TOKEN", raising=False)
    api = make_api(prepared, SERVICE_TOKEN=None)
    for token in ("", "anything", SERVICE_TOKEN):
        assert_error(maintain(api, token=token), 401)


def test_maintenance_wrong_api_version(api: Api, service_token: str) -> None:
    assert_error(maintain(api, token=service_token, **{"api-version": "1.0"}), 400)
