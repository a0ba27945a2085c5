"""The type catalog is consistent with itself and with the seed's names."""

from __future__ import annotations

from repository import catalog


def test_every_type_lives_in_a_facet_and_every_related_context_has_a_target() -> None:
    in_facets = {t for facet in catalog.FACETS.values() for t in facet.types}
    assert in_facets == set(catalog.TYPES)
    for element_type in catalog.TYPES.values():
        for context in element_type.related:
            facet, types = catalog.RELATED_TARGETS[context]
            assert facet in catalog.FACETS and set(types) <= set(catalog.TYPES)


def test_seed_facets_and_layout_keys() -> None:
    assert set(catalog.FACETS) == {
        "processes", "users", "products", "organization", "knowledge", "inputsoutputs",
        "requirements", "it", "stereotypes", "automation", "cultures", "usergroups"}
    assert catalog.find_type("MAINPROCESS") is catalog.TYPES["mainProcess"]
    assert catalog.is_versioned("processes", "mainProcess")
    assert not catalog.is_versioned("processes", "task")
    assert catalog.is_versioned("it", "system")
    assert len(catalog.LAYOUT_KEYS) == 9
