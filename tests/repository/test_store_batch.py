"""The generic batch loader behind attributes, names, links, children and shapes: one
statement per IN_CHUNK keys, every key answered (empty when it has no rows), and the same
answer whichever chunks the keys fall into; and the store's public names."""

from __future__ import annotations

from typing import Any

import pytest

import repository.store
from repository.store import Store, batch
from tests.repository.conftest import Api, recorded_statements
from tests.repository.standin import CATEGORY, DRAFT, HIRE, HOUSE, ORDER

# What the service's modules, the tests and the benchmarks import from repository.store.
PUBLIC = {"MAX_TREE_DEPTH", "LayoutSketch", "Link", "PageRequest", "Store", "add_token", "all_tenants",
          "create_tenant", "encode_value", "find_tenant", "find_token", "has_elements",
          "label", "list_tokens", "new_id", "now_timestamp", "revoke_token", "sort_key",
          "with_content"}


def loaded(store: Store, version_pks: list[int]) -> dict[str, Any]:
    return {"attributes": store.reads.attributes(version_pks), "names": store.reads.names_of(version_pks),
            "links": store.reads.links(version_pks), "children": store.reads.child_pks(version_pks),
            "shapes": {pk: [s.shape_id for s in shapes]
                       for pk, shapes in store.reads.shapes_of(version_pks).items()}}


def version_pks(store: Store) -> list[int]:
    elements = store.reads.elements_by_id([ORDER, HIRE, HOUSE, CATEGORY, DRAFT]).values()
    pks = [pk for e in elements for pk in [v.pk for v in store.reads.versions(e)]]
    return pks + pks[:2]  # keys asked twice are answered once


def test_every_key_is_answered_in_the_order_asked(api: Api) -> None:
    with api.store() as store:
        pks = version_pks(store)
        for answer in loaded(store, pks).values():
            assert list(answer) == list(dict.fromkeys(pks))
        assert store.reads.attributes([]) == {} and store.reads.child_pks([]) == {}
        draft = store.reads.element(DRAFT).current_version_pk
        assert draft is not None
        assert store.reads.child_pks([draft]) == {draft: []}
        assert store.reads.shapes_of([draft]) == {draft: []}


def test_chunks_answer_what_one_statement_answers(api: Api,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with api.store() as store:
        pks = version_pks(store)
        whole = loaded(store, pks)
        monkeypatch.setattr(batch, "IN_CHUNK", 3)
        with recorded_statements(api.app) as statements:
            chunked = loaded(store, pks)
        assert chunked == whole
        distinct = len(set(pks))
        assert len(statements) == len(whole) * -(-distinct // 3)


def test_one_statement_per_loader_below_the_chunk_size(api: Api) -> None:
    with api.store() as store:
        pks = version_pks(store)
        with recorded_statements(api.app) as statements:
            loaded(store, pks)
        assert len(statements) == 5


def test_the_public_names_are_exported() -> None:
    assert set(repository.store.__all__) == PUBLIC
    assert all(hasattr(repository.store, name) for name in PUBLIC)
