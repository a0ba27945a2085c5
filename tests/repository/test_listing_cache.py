"""The listing cache: a repeated listing is answered from the cache with the same bytes,
every kind of write makes the next one a miss that shows it, If-None-Match gets 304,
the checks of the request come first, refusals are not kept, tenants never share an
entry, and maintenance drops a pool's entries. With ELREPO_TEST_REDIS_URL, two apps
share their listings through Redis."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from repository.listing_cache import MEMORY_BYTES, listing_key, make_listing_cache
from repository.render_cache import MemoryRenderCache, RedisRenderCache
from tests.repository.conftest import (
    FACETS,
    OTHER_TENANT,
    Api,
    Prepared,
    assert_error,
    recorded_statements,
    sqlite_only,
)
from tests.repository.standin import FINANCE, HIRE, ORDER
from tests.repository.test_render_cache import RecordingCache, maintain, make_api

LIST = FACETS + "/processes/views/list/elements"
DETAIL = FACETS + "/processes/views/detail/elements"


@pytest.fixture
def recording() -> RecordingCache:
    return RecordingCache()


@pytest.fixture
def cached(prepared: Prepared, recording: RecordingCache) -> Iterator[Api]:
    api = make_api(prepared, LISTING_CACHE=recording)
    yield api
    api.app.extensions["elrepo.engine"].dispose()


def names(response: Any) -> list[str]:
    return [e["attributes"]["name"]["1033"] for e in response.get_json()["elements"]]


def rename(api: Api, element_id: str, name: str, facet: str = "processes") -> None:
    response = api.post(FACETS + f"/{facet}/views/detail/elements/", {
        "count": 1, "elements": [{"id": element_id, "attributes": {"name": {"1033": name}}}]},
        role="editor")
    assert response.status_code == 200, response.get_json()


def test_second_listing_is_a_hit_with_the_same_bytes(cached: Api) -> None:
    first = cached.get(LIST, **{"$pageSize": "3"})
    assert first.status_code == 200 and first.headers["X-Listing-Cache"] == "miss"
    second = cached.get(LIST, **{"$pageSize": "3"})
    assert second.headers["X-Listing-Cache"] == "hit"
    assert second.data == first.data and second.headers["ETag"] == first.headers["ETag"]
    assert second.headers["Cache-Control"] == "private, no-cache"
    assert second.mimetype == "application/json" and len(second.get_json()["elements"]) == 3


def test_a_write_is_a_miss_showing_it(cached: Api) -> None:
    before = cached.get(LIST, **{"$resources": "attributes"})
    assert "Hire staff" not in names(before)
    rename(cached, HIRE, "Hire staff")
    after = cached.get(LIST, **{"$resources": "attributes"})
    assert after.headers["X-Listing-Cache"] == "miss"
    assert after.headers["ETag"] != before.headers["ETag"]
    assert "Hire staff" in names(after)


def test_a_write_to_another_facet_is_a_miss_too(cached: Api) -> None:
    """A listing shows related elements (their names) from other facets."""
    cached.get(LIST)
    rename(cached, FINANCE, "Accounting", facet="organization")
    assert cached.get(LIST).headers["X-Listing-Cache"] == "miss"


def test_a_changed_default_culture_is_a_miss(cached: Api) -> None:
    cached.get(LIST)
    with cached.store() as store:
        store.tenant.default_culture = 1031
        store.session.commit()
    assert cached.get(LIST).headers["X-Listing-Cache"] == "miss"


def test_if_none_match_answers_304(cached: Api, recording: RecordingCache) -> None:
    etag = cached.get(LIST).headers["ETag"]
    touched = len(recording.calls)
    for given in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        response = cached.client.get(LIST, headers={**cached.headers("viewer", None),
                                                    "If-None-Match": given})
        assert response.status_code == 304 and response.data == b"", given
        assert response.headers["ETag"] == etag
    assert len(recording.calls) == touched + 1  # only `*` needs the answer to exist
    stale = cached.client.get(LIST, headers={**cached.headers("viewer", None),
                                             "If-None-Match": '"other"'})
    assert stale.status_code == 200 and stale.headers["ETag"] == etag
    rename(cached, ORDER, "Order to cash")
    changed = cached.client.get(LIST, headers={**cached.headers("viewer", None),
                                               "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_parameter_order_does_not_matter_but_values_do(cached: Api) -> None:
    first = cached.client.get(LIST + "?$pageSize=2&$resources=attributes",
                              headers=cached.headers("viewer", None))
    swapped = cached.client.get(LIST + "?$resources=attributes&$pageSize=2",
                                headers=cached.headers("viewer", None))
    assert swapped.headers["X-Listing-Cache"] == "hit" and swapped.data == first.data
    # A repeated parameter: the first value counts, so the order of its values matters.
    one = cached.client.get(LIST + "?$pageSize=1&$pageSize=2",
                            headers=cached.headers("viewer", None))
    two = cached.client.get(LIST + "?$pageSize=2&$pageSize=1",
                            headers=cached.headers("viewer", None))
    assert len(one.get_json()["elements"]) == 1 and len(two.get_json()["elements"]) == 2
    assert two.headers["X-Listing-Cache"] == "miss"


def test_key_covers_tenant_generation_path_query_and_default_culture() -> None:
    base = ("demo", "default", 1033, 7, "/demo/default/x", [("$page", "2")])
    key = listing_key(*base)
    assert key.startswith("demo.default:")
    variants = [("other", "default", 1033, 7, "/demo/default/x", [("$page", "2")]),
                ("demo", "other", 1033, 7, "/demo/default/x", [("$page", "2")]),
                ("demo", "default", 1031, 7, "/demo/default/x", [("$page", "2")]),
                ("demo", "default", 1033, 8, "/demo/default/x", [("$page", "2")]),
                ("demo", "default", 1033, 7, "/demo/default/y", [("$page", "2")]),
                ("demo", "default", 1033, 7, "/demo/default/x", [("$page", "3")]),
                ("demo", "default", 1033, 7, "/demo/default/x", [("$page", "2"), ("a", "")])]
    assert len({key, *(listing_key(*variant) for variant in variants)}) == 8
    # Text that would run two parameters together in a naive key stays apart.
    assert listing_key("d", "s", 1, 1, "/p", [("a", "b&c=d")]) != \
        listing_key("d", "s", 1, 1, "/p", [("a", "b"), ("c", "d")])


@sqlite_only
def test_checks_come_before_the_cache(cached: Api, recording: RecordingCache) -> None:
    assert cached.get(LIST).status_code == 200
    touched = len(recording.calls)
    assert_error(cached.get(LIST, token=cached.other_tokens["viewer"]), 403)
    assert_error(cached.get(LIST, role=None), 401)
    assert_error(cached.get(LIST, token="not-a-token"), 401)
    assert_error(cached.get(LIST, **{"$filter": "name eq"}), 400)
    assert_error(cached.get(LIST, **{"$pageSize": "0"}), 400)
    assert_error(cached.get(LIST, **{"$resources": "everything"}), 400)
    assert_error(cached.get(FACETS + "/processes/views/nothing/elements"), 404)
    assert len(recording.calls) == touched
    assert cached.get(LIST, role="viewer").headers["X-Listing-Cache"] == "hit"


@sqlite_only
def test_a_failed_listing_is_not_kept(cached: Api, recording: RecordingCache) -> None:
    assert_error(cached.get(LIST, **{"$pageSelectionKey": "ghost"}), 404)
    assert [call for call, _ in recording.calls] == ["get"]
    # `*` asks for "any current answer": there is none to match.
    missing = cached.client.get(LIST, query_string={"$pageSelectionKey": "ghost"},
                                headers={**cached.headers("viewer", None), "If-None-Match": "*"})
    assert_error(missing, 404)


@sqlite_only
def test_tenants_never_share_an_entry(cached: Api) -> None:
    """The other tenant's listing at the same path below its own ids is its own."""
    ours = cached.get(LIST)
    theirs = cached.get(OTHER_TENANT + "/_api/rest/facets/processes/views/list/elements",
                        token=cached.other_tokens["viewer"])
    assert theirs.status_code == 200 and theirs.headers["X-Listing-Cache"] == "miss"
    assert theirs.headers["ETag"] != ours.headers["ETag"]
    assert theirs.data != ours.data


@sqlite_only
def test_a_hit_reads_the_generation_beyond_the_prelude(cached: Api) -> None:
    cached.get(LIST)
    with recorded_statements(cached.app) as statements:
        assert cached.get(FACETS + "/processes/views/list/config").status_code == 200
        prelude = len(statements)
        statements.clear()
        assert cached.get(LIST).headers["X-Listing-Cache"] == "hit"
    assert len(statements) == prelude + 1, statements
    assert "content_generations" in statements[-1][0]


def test_maintenance_drops_the_pools_listings(cached: Api, recording: RecordingCache,
                                              service_token: str) -> None:
    before = cached.get(LIST)
    recording.inner.put("other.default:" + "0" * 64, b"{}")
    maintain(cached, "demo.default")
    assert ("clear", "demo.default") in recording.calls
    after = cached.get(LIST)
    # Maintenance recomputes the listing columns: a write, so a new generation.
    assert after.headers["X-Listing-Cache"] == "miss"
    assert after.headers["ETag"] != before.headers["ETag"] and after.data == before.data
    assert recording.inner.get("other.default:" + "0" * 64) == b"{}"


def test_listings_have_a_memory_cache_of_their_own(api: Api) -> None:
    listing_cache = api.app.extensions["elrepo.listing_cache"]
    assert isinstance(listing_cache, MemoryRenderCache)
    assert listing_cache is not api.app.extensions["elrepo.render_cache"]
    assert listing_cache.max_bytes == MEMORY_BYTES


@sqlite_only
def test_openapi_documents_the_listing_headers(api: Api) -> None:
    document = api.get("/openapi.json", role=None).get_json()
    listing = document["paths"]["/{collectionId}/{storageId}/_api/rest/facets/{facetId}/"
                                "views/{viewId}/elements"]["get"]
    headers = listing["responses"]["200"]["headers"]
    assert {"ETag", "Cache-Control", "X-Listing-Cache"} <= set(headers)
    assert "304" in listing["responses"]
    assert any(p.get("name") == "If-None-Match" or "If-None-Match" in p.get("$ref", "")
               for p in listing["parameters"])


@sqlite_only
def test_two_apps_share_listings_through_redis(prepared: Prepared, redis_url: str,
                                              namespace: str) -> None:
    first = make_api(prepared, REDIS_URL=redis_url, RENDER_CACHE_NAMESPACE=namespace)
    second = make_api(prepared, REDIS_URL=redis_url, RENDER_CACHE_NAMESPACE=namespace)
    try:
        cache = first.app.extensions["elrepo.listing_cache"]
        assert isinstance(cache, RedisRenderCache)
        assert cache.prefix == f"elrepo:listing:{namespace}:"
        answered = first.get(LIST)
        shared = second.get(LIST)
        assert shared.headers["X-Listing-Cache"] == "hit" and shared.data == answered.data
        rename(second, ORDER, "Order to cash")
        seen = first.get(LIST)
        assert seen.headers["X-Listing-Cache"] == "miss" and "Order to cash" in names(seen)
    finally:
        for api in (first, second):
            api.app.extensions["elrepo.listing_cache"].clear()
            api.app.extensions["elrepo.engine"].dispose()


def test_a_listing_cache_without_redis_is_memory() -> None:
    assert isinstance(make_listing_cache(None), MemoryRenderCache)


def test_a_created_element_is_listed_at_once(cached: Api) -> None:
    before = cached.get(LIST, **{"$pageSize": "100"})
    assert cached.get(LIST, **{"$pageSize": "100"}).headers["X-Listing-Cache"] == "hit"
    created = cached.post(DETAIL + "/", {"count": 1, "elements": [
        {"type": "mainProcess", "attributes": {"name": {"1033": "Aardvark care"}}}]},
        role="editor")
    assert created.status_code == 200, created.get_json()
    after = cached.get(LIST, **{"$pageSize": "100"})
    assert after.headers["X-Listing-Cache"] == "miss"
    assert sorted(names(after)) == sorted([*names(before), "Aardvark care"])
