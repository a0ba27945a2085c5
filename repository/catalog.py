"""The tenant-independent configuration: facets, their views and the element types.

The seed names facets, views and types but gives no full property list per type; this
module is the single place that decides them (see docs/service.md, "Type catalog"). The
types themselves, with their names and colours, are the element kinds of
``renderer/kinds.py``; every kind must be in a facet here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from layouts.keys import LAYOUT_KEYS as LAYOUT_KEYS  # re-exported: the service names them too
from renderer.kinds import KINDS
from renderer.names import RELATION_NAMES

GERMAN = 1031
ENGLISH = 1033
NEUTRAL = 127

FLAT_VIEWS = ("list", "tree", "detail")
PROCESS_VIEWS = FLAT_VIEWS + ("diagram", "reporting")
HIERARCHICAL_VIEWS = frozenset({"tree"})

VIEW_NAMES: dict[str, dict[int, str]] = {
    "list": {GERMAN: "Liste", ENGLISH: "List"},
    "tree": {GERMAN: "Baum", ENGLISH: "Tree"},
    "detail": {GERMAN: "Detail", ENGLISH: "Detail"},
    "diagram": {GERMAN: "Diagramm", ENGLISH: "Diagram"},
    "reporting": {GERMAN: "Berichtswesen", ENGLISH: "Reporting"},
}


@dataclass(frozen=True, slots=True)
class Facet:
    name: str
    types: tuple[str, ...]
    versioned: bool
    views: tuple[str, ...] = FLAT_VIEWS


@dataclass(frozen=True, slots=True)
class ElementType:
    key: str
    color: str
    related: tuple[str, ...] = ()
    selections: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def display_names(self) -> dict[int, str]:
        """The type's names per culture; the drawings show the same (renderer/kinds.py)."""
        return dict(KINDS[self.key].names)


def relation_display_names(context: str) -> dict[int, str]:
    """A related context's names per culture (the drawings' edge labels and legends), else
    the context key in every culture."""
    return dict(RELATION_NAMES.get(context, {GERMAN: context, ENGLISH: context}))


FACETS: dict[str, Facet] = {
    f.name: f
    for f in (
        Facet(
            "processes",
            (
                "processHouse", "subCategory", "view", "mainProcess", "subProcess", "task",
                "ruleXor", "ruleAnd", "condition", "evStart", "evIntermediate", "evEnd",
                "processInterfacePlaceholder",
            ),
            versioned=False,
            views=PROCESS_VIEWS,
        ),
        Facet("users", ("user",), versioned=False),
        Facet("products", ("product",), versioned=True),
        Facet("organization", ("orgUnit",), versioned=True),
        Facet("knowledge", ("knowledgeStructureDocument",), versioned=True),
        Facet("inputsoutputs", ("inOut",), versioned=True),
        Facet("requirements", ("requirement",), versioned=True),
        Facet("it", ("system", "systemType"), versioned=True),
        Facet("stereotypes", ("stereotype",), versioned=False),
        Facet("automation", ("authToken", "task"), versioned=False),
        Facet("cultures", ("configCulture",), versioned=False),
        Facet("usergroups", ("userGroup",), versioned=False),
    )
}

# Processes are versioned by type, not by facet: the containers and shapes are not.
VERSIONED_PROCESS_TYPES = frozenset({"mainProcess", "subProcess"})

_FLOW_RELATED = (
    "executedBy", "responsible", "contributes", "informed", "hasInput", "hasOutput",
    "usesSystem", "guidelines", "requirements",
)
_OWNERSHIP_RELATED = ("author", "owner", "qualityManager", "reviewer", "secondaryAuthors")

#: Type key → the related contexts it offers (none when not named), and its selections.
TYPE_RELATED: dict[str, tuple[str, ...]] = {
    "mainProcess": _FLOW_RELATED + _OWNERSHIP_RELATED,
    "subProcess": _FLOW_RELATED + _OWNERSHIP_RELATED,
    "task": _FLOW_RELATED,
    "product": ("owner",),
    "user": ("userGroups",),
    "orgUnit": ("owner",),
    "system": ("owner",),
}
TYPE_SELECTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "mainProcess": {"processMaturity": (
        "defined", "implemented", "trained", "isLived", "isMeasured", "getsImproved",
    )},
}

#: Every element kind (``renderer/kinds.py``: key, names, colour) with what the service
#: adds to it, in the kinds' order.
TYPES: dict[str, ElementType] = {
    kind.key: ElementType(kind.key, kind.color, TYPE_RELATED.get(kind.key, ()), TYPE_SELECTIONS.get(kind.key, {}))
    for kind in KINDS.values()
}

# Related context → (facet, element types) it links to, for the configuration endpoint.
RELATED_TARGETS: dict[str, tuple[str, tuple[str, ...]]] = {
    **{c: ("organization", ("orgUnit",))
       for c in ("executedBy", "responsible", "contributes", "informed")},
    **{c: ("inputsoutputs", ("inOut", "product")) for c in ("hasInput", "hasOutput")},
    "usesSystem": ("it", ("system",)),
    "guidelines": ("knowledge", ("knowledgeStructureDocument",)),
    "requirements": ("requirements", ("requirement",)),
    **{c: ("users", ("user",))
       for c in ("author", "owner", "qualityManager", "reviewer", "secondaryAuthors")},
    "userGroups": ("usergroups", ("userGroup",)),
}

# Attributes every type offers; name and description are localized, the rest neutral.
COMMON_ATTRIBUTES: tuple[tuple[str, str, str, str, bool], ...] = (
    # key, dataType, German, English, isInvariantCulture
    ("name", "SingleLineText", "Name", "Name", False),
    ("description", "Html", "Beschreibung", "Description", False),
    ("authorNote", "MultiLineText", "Autorennotiz", "Author note", False),
    ("gotoUrl", "SingleLineText", "Link", "Link", True),
)

# Attributes only the server writes, always under the neutral culture (docs/contract.md,
# "Details clients rely on").
SERVER_ATTRIBUTES = frozenset({
    "createdOn", "changedOn", "version", "validFrom", "validUntil", "isReleased", "relOn",
    "state1",
})

SERVER_RELATED = frozenset({"createdBy", "changedBy", "relBy", "releaseHistory"})

# The names of the tasks the release workflow opens, by their `actionType`, per culture;
# `{name}` is the subject element's name in that culture.
TASK_NAMES: dict[str, dict[int, str]] = {
    "approveExpiry": {GERMAN: "Ablauf genehmigen: {name}", ENGLISH: "Approve expiry: {name}"},
}


def facet_of_type(type_key: str, facet_hint: str | None = None) -> str | None:
    """The facet an element of this type lives in (the hint wins when it allows the type)."""
    if facet_hint is not None and type_key in FACETS.get(facet_hint, Facet("", (), False)).types:
        return facet_hint
    return next((f.name for f in FACETS.values() if type_key in f.types), None)


def is_versioned(facet: str, type_key: str) -> bool:
    return FACETS[facet].versioned or type_key in VERSIONED_PROCESS_TYPES


def find_type(key: str) -> ElementType | None:
    """Type lookup ignoring case: clients send `mainprocess` for `mainProcess`."""
    return TYPES.get(key) or next((t for t in TYPES.values() if t.key.lower() == key.lower()), None)
