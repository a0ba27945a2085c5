"""The configuration's display names the drawings show: element types and related contexts.

A drawing never shows an internal key (``executedBy``, ``knowledgeStructureDocument``)
where a reader expects words: it shows the display name in the render's culture.
A type's names are in its row of ``renderer/kinds.py``, a related context's in
``RELATION_NAMES`` here; ``repository/catalog.py`` reads both from there, so the
configuration endpoint and the drawings always agree.

How to use it in a builder (``renderer/<layout>.py``)::

    from renderer.names import relation_name, type_name

    label = relation_name("executedBy", cultures)         # "executed by" / "ausgeführt von"
    caption = f"«{type_name(element.type, cultures)}»"     # «Document» / «Dokument»

Both look the key up with ``Cultures.pick`` (requested culture, language-neutral,
default culture, then any) and fall back to the key itself for a key the table does
not know (a tenant's own context), so the result is never empty.
"""
from __future__ import annotations

from renderer.culture import ENGLISH, GERMAN, Cultures, german_english
from renderer.kinds import KINDS

__all__ = ["RELATION_NAMES", "STATE_NAMES", "UNASSIGNED_NAMES", "relation_name", "state_name", "type_name"]


#: Related context → culture id → display name, worded to read "A <name> B" on an edge
#: from the element to what it relates to.
RELATION_NAMES: dict[str, dict[int, str]] = {
    "executedBy": german_english("ausgeführt von", "executed by"),
    "responsible": german_english("verantwortlich", "responsible"),
    "contributes": german_english("wirkt mit", "contributes"),
    "informed": german_english("informiert", "informed"),
    "hasInput": german_english("Input", "input"),
    "hasOutput": german_english("Output", "output"),
    "usesSystem": german_english("nutzt IT-System", "uses IT system"),
    "guidelines": german_english("Richtlinie", "guideline"),
    "requirements": german_english("Anforderung", "requirement"),
    "author": german_english("Autor", "author"),
    "owner": german_english("Eigentümer", "owner"),
    "qualityManager": german_english("Qualitätsmanager", "quality manager"),
    "reviewer": german_english("Prüfer", "reviewer"),
    "secondaryAuthors": german_english("Mitautor", "co-author"),
    "userGroups": german_english("Benutzergruppe", "user group"),
    "children": german_english("enthält", "contains"),
    "createdBy": german_english("erstellt von", "created by"),
    "changedBy": german_english("geändert von", "changed by"),
    "relBy": german_english("freigegeben von", "released by"),
    "releaseHistory": german_english("Freigabehistorie", "release history"),
}

#: Release state (the server's ``state1``, ``repository/release.py``) → culture id →
#: display name. ``show``, the state of every unversioned element, says nothing to a
#: reader and has no name: it is not drawn.
STATE_NAMES: dict[str, dict[int, str]] = {
    "inProcess": german_english("in Bearbeitung", "in process"),
    "inReview": german_english("in Prüfung", "in review"),
    "readyForQa": german_english("bereit zur Qualitätssicherung", "ready for QA"),
    "readyForRelease": german_english("bereit zur Freigabe", "ready for release"),
    "released": german_english("freigegeben", "released"),
    "requestToExpire": german_english("Ablauf beantragt", "expiry requested"),
    "expired": german_english("abgelaufen", "expired"),
}
#: States a drawing leaves out: they hold for every element of their kind.
UNSHOWN_STATES = frozenset(("show",))

#: The lane of tasks without an org unit (docs/contract.md, "Layout keys"); English
#: first, so a render whose cultures have no translation shows it.
UNASSIGNED_NAMES: dict[int, str] = {ENGLISH: "Unassigned", GERMAN: "Nicht zugeordnet"}


def type_name(type_key: str, cultures: Cultures) -> str:
    """The display name of an element type in the render's culture, else the key."""
    kind = KINDS.get(type_key)
    return (cultures.pick(kind.names) if kind is not None else None) or type_key


def state_name(state: str, cultures: Cultures) -> str:
    """The display name of a release state in the render's culture, else the state
    itself; empty for a state that is not drawn (``UNSHOWN_STATES``)."""
    if state in UNSHOWN_STATES:
        return ""
    return cultures.pick(STATE_NAMES.get(state, {})) or state


def relation_name(context: str, cultures: Cultures) -> str:
    """The display name of a related context in the render's culture, else the key."""
    return cultures.pick(RELATION_NAMES.get(context, {})) or context
