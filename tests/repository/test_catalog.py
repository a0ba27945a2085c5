"""The type catalog is consistent with itself and with the seed's names."""

from __future__ import annotations

import pytest

from layouts.keys import LAYOUT_KEYS
from repository import auth, catalog, release


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


#: Each table of words → the keys it must name, from the one place that decides them.
WORDS_AND_THEIR_KEYS: dict[str, tuple[str, set[str]]] = {
    "FACET_NAMES": ("repository/catalog.py FACETS", set(catalog.FACETS)),
    "VIEW_NAMES": ("the views of repository/catalog.py FACETS",
                   {view for facet in catalog.FACETS.values() for view in facet.views}),
    "LAYOUT_NAMES": ("layouts/keys.py LAYOUT_KEYS", set(LAYOUT_KEYS)),
    "ROLE_NAMES": ("repository/auth.py ROLE_PERMISSIONS", set(auth.ROLE_PERMISSIONS)),
    "TRANSITION_NAMES": ("repository/release.py TRANSITIONS",
                         {transition.transition_id for transition in release.TRANSITIONS}),
    "STATE_DISPLAY_NAMES": ("the states of repository/release.py TRANSITIONS, and `show`",
                            {state for transition in release.TRANSITIONS
                             for state in (transition.source, transition.target)} | {"show"}),
}


@pytest.mark.parametrize("table", sorted(WORDS_AND_THEIR_KEYS))
def test_a_table_of_words_names_exactly_its_keys(table: str) -> None:
    """A key added where it is decided (a facet, a layout key, a role, a release transition)
    fails here until the viewer and the configuration endpoint have its words."""
    where, keys = WORDS_AND_THEIR_KEYS[table]
    named = set(getattr(catalog, table))
    assert not keys - named, f"repository/catalog.py {table}: give {sorted(keys - named)} names (keys of {where})"
    assert not named - keys, f"repository/catalog.py {table} names {sorted(named - keys)}, which {where} has not"


def test_every_selection_value_has_words() -> None:
    for type_key, selections in catalog.TYPE_SELECTIONS.items():
        for attribute, values in selections.items():
            missing = sorted(set(values) - set(catalog.SELECTION_VALUE_NAMES.get(attribute, {})))
            assert not missing, f"repository/catalog.py SELECTION_VALUE_NAMES[{attribute!r}]: give {missing} " \
                                f"(values of {type_key!r} in TYPE_SELECTIONS) names"
