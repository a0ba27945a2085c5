"""The store's named queries that endpoints, the CLI and the token code call instead of
building SQL themselves: each answers what the inline query it replaces answered, in
one statement."""

from __future__ import annotations

import pytest

from repository import catalog, release
from repository.auth import hash_token
from repository.errors import InvalidInput
from repository.store import (
    PageRequest,
    Store,
    add_token,
    all_tenants,
    find_token,
    has_elements,
)
from tests.repository.conftest import Api, recorded_statements
from tests.repository.standin import CATEGORY, DRAFT, HIRE, HOUSE, ORDER


def test_versions_matching_filters_each_versions_own_values(api: Api) -> None:
    with api.store() as store, recorded_statements(api.app) as statements:
        hire = store.reads.element(HIRE)
        statements.clear()
        everything = store.reads.versions_matching(hire, None)
        released = store.reads.versions_matching(hire, "state eq 'released'")
        assert len(statements) == 2
        assert [v.pk for v in everything] == [v.pk for v in store.reads.versions(hire)]
        assert [v.state for v in everything] == [release.EXPIRED, release.RELEASED,
                                                release.IN_PROCESS]
        assert [v.seq for v in released] == [2]


def test_versions_matching_lists_none_of_an_unversioned_element_but_checks_the_filter(
        api: Api) -> None:
    with api.store() as store:
        house = store.reads.element(HOUSE)
        assert store.reads.versions_matching(house, None) == []
        assert store.reads.versions_matching(house, "state eq 'released'") == []
        with pytest.raises(InvalidInput):
            store.reads.versions_matching(house, "state eq")


def test_element_matches_asks_one_element_in_one_statement(api: Api) -> None:
    with api.store() as store, recorded_statements(api.app) as statements:
        order = store.reads.element(ORDER)
        statements.clear()
        assert store.reads.element_matches(order, f"id eq '{ORDER}'")
        assert store.reads.element_matches(order, "priority gt 2")
        assert not store.reads.element_matches(order, "priority gt 3")
        assert len(statements) == 3
        with pytest.raises(InvalidInput):
            store.reads.element_matches(order, "priority gt")


def test_diagrams_are_the_elements_with_content_in_listing_order(api: Api) -> None:
    with api.store() as store:
        diagrams = store.reads.diagrams()
        assert ORDER in [d.id for d in diagrams]
        assert all(store.reads.has_content(d) for d in diagrams)
        assert [d.id for d in diagrams] == [e.id for e in sorted(
            diagrams, key=lambda e: (e.sort_name, e.id))]
        for element_id in (HOUSE, CATEGORY, DRAFT):
            assert not store.reads.has_content(store.reads.element(element_id))


def test_versions_by_pk_loads_the_named_versions(api: Api) -> None:
    with api.store() as store:
        hire = store.reads.element(HIRE)
        versions = store.reads.versions(hire)
        found = store.reads.versions_by_pk([v.pk for v in versions] + [None, versions[0].pk])
        assert sorted(found) == sorted(v.pk for v in versions)
        assert store.reads.versions_by_pk([]) == {}


def test_tenants_listed_oldest_first_and_elements_present(api: Api) -> None:
    with api.store() as store:
        tenants = all_tenants(store.session)
        assert [(t.collection_id, t.storage_id) for t in tenants] == [
            ("demo", "default"), ("other", "default")]
        assert has_elements(store.session)


def test_a_token_added_is_found_by_its_hash_only(api: Api) -> None:
    with api.store() as store:
        actor = store.reads.element(DRAFT)
        add_token(store.session, store.tenant, hash_token("secret"), "viewer", "a name", actor,
                  created_at="2026-01-01T00:00:00", expires_at="2026-02-01T00:00:00")
        grant = find_token(store.session, hash_token("secret"))
        assert grant is not None
        assert (grant.role, grant.element_pk) == ("viewer", actor.pk)
        tenant = grant.tenant
        assert (tenant.pk, tenant.collection_id, tenant.storage_id, tenant.default_culture) == (
            store.tenant.pk, "demo", "default", store.tenant.default_culture)
        assert grant.usable_at("2026-01-31T23:59:59")
        assert not grant.usable_at("2026-02-01T00:00:00")
        assert find_token(store.session, "secret") is None
        store.session.rollback()


def test_expiry_task_is_named_from_the_catalog_in_each_culture(api: Api) -> None:
    with api.store() as store:
        order = store.reads.element(ORDER)
        store.releases.transition(order, release.find("ReleasedToRequestToExpire"), actor_pk=None)
        task = _open_task(store)
        names = store.reads.attributes([task])[task]["name"]
        templates = catalog.TASK_NAMES["approveExpiry"]
        assert names == {
            catalog.GERMAN: templates[catalog.GERMAN].format(name="Auftragsabwicklung"),
            catalog.ENGLISH: templates[catalog.ENGLISH].format(name="Order to cash")}
        assert names[catalog.ENGLISH] == "Approve expiry: Order to cash"
        store.session.rollback()


def _open_task(store: Store) -> int:
    """The version pk of the tenant's only task."""
    automation = store.reads.page(PageRequest("automation", "list", None, page=1, page_size=1000))
    tasks = [e for e in automation if e.type == "task"]
    assert len(tasks) == 1
    assert tasks[0].current_version_pk is not None
    return tasks[0].current_version_pk
