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
from renderer.names import RELATION_NAMES, STATE_NAMES

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
    "state1", "releaseComment",
})

SERVER_RELATED = frozenset({"createdBy", "changedBy", "relBy", "releaseHistory"})

# The names of the tasks the release workflow opens, by their `actionType`, per culture;
# `{name}` is the subject element's name in that culture.
TASK_NAMES: dict[str, dict[int, str]] = {
    "approveExpiry": {GERMAN: "Ablauf genehmigen: {name}", ENGLISH: "Approve expiry: {name}"},
}


# ---- display names: what a reader sees instead of a key (the viewer, the configuration
# endpoint); the drawings' own (types, related contexts, states) are in renderer/.

def _names(german: str, english: str) -> dict[int, str]:
    return {GERMAN: german, ENGLISH: english}


FACET_NAMES: dict[str, dict[int, str]] = {
    "processes": _names("Prozesse", "Processes"),
    "users": _names("Benutzer", "Users"),
    "products": _names("Produkte", "Products"),
    "organization": _names("Organisation", "Organization"),
    "knowledge": _names("Wissen", "Knowledge"),
    "inputsoutputs": _names("Inputs und Outputs", "Inputs and outputs"),
    "requirements": _names("Anforderungen", "Requirements"),
    "it": _names("IT-Systeme", "IT systems"),
    "stereotypes": _names("Stereotypen", "Stereotypes"),
    "automation": _names("Automatisierung", "Automation"),
    "cultures": _names("Sprachen", "Cultures"),
    "usergroups": _names("Benutzergruppen", "User groups"),
}

LAYOUT_NAMES: dict[str, dict[int, str]] = {
    "detailed": _names("Detailliert", "Detailed"),
    "vertical": _names("Vertikal", "Vertical"),
    "horizontal": _names("Horizontal", "Horizontal"),
    "verticalSwimlane": _names("Vertikal mit Schwimmbahnen", "Vertical swimlanes"),
    "horizontalSwimlane": _names("Horizontal mit Schwimmbahnen", "Horizontal swimlanes"),
    "graphic": _names("Grafik", "Graphic"),
    "processMatrix": _names("Prozessmatrix", "Process matrix"),
    "customerMatrix": _names("Kundenmatrix", "Customer matrix"),
    "entityRelationship": _names("Beziehungen", "Relationships"),
}

#: Attribute key → names, for the attributes the catalog and the server know; a tenant's
#: own attribute has none (the viewer then says its key in words).
ATTRIBUTE_NAMES: dict[str, dict[int, str]] = {
    **{key: _names(german, english) for key, _type, german, english, _inv in COMMON_ATTRIBUTES},
    "createdOn": _names("Erstellt am", "Created on"),
    "changedOn": _names("Geändert am", "Changed on"),
    "version": _names("Version", "Version"),
    "validFrom": _names("Gültig ab", "Valid from"),
    "validUntil": _names("Gültig bis", "Valid until"),
    "isReleased": _names("Freigegeben", "Released"),
    "relOn": _names("Freigegeben am", "Released on"),
    "state1": _names("Status", "State"),
    "releaseComment": _names("Freigabekommentar", "Release comment"),
    "reasonForRevision": _names("Grund der Überarbeitung", "Reason for revision"),
    "processMaturity": _names("Prozessreife", "Process maturity"),
    "firstName": _names("Vorname", "First name"),
    "lastName": _names("Nachname", "Last name"),
    "role": _names("Rolle", "Role"),
}

#: A token's role → names (the viewer's header, a user's `role` attribute).
ROLE_NAMES: dict[str, dict[int, str]] = {
    "viewer": _names("Betrachter", "Viewer"),
    "analyzer": _names("Analyst", "Analyzer"),
    "editor": _names("Bearbeiter", "Editor"),
    "architect": _names("Architekt", "Architect"),
    "approver": _names("Freigeber", "Approver"),
    "administrator": _names("Administrator", "Administrator"),
}

#: Selection attribute → value key → names.
SELECTION_VALUE_NAMES: dict[str, dict[str, dict[int, str]]] = {
    "processMaturity": {
        "defined": _names("definiert", "defined"),
        "implemented": _names("umgesetzt", "implemented"),
        "trained": _names("geschult", "trained"),
        "isLived": _names("gelebt", "lived"),
        "isMeasured": _names("gemessen", "measured"),
        "getsImproved": _names("wird verbessert", "being improved"),
    },
    "role": ROLE_NAMES,
}

#: Release state → names: the drawings' (renderer/names.py) plus `show`, the state of
#: every element outside the release workflow.
STATE_DISPLAY_NAMES: dict[str, dict[int, str]] = {
    **STATE_NAMES, "show": _names("nicht versioniert", "not versioned"),
}

#: Release transition (repository/release.py) → names, as a button says what it does.
TRANSITION_NAMES: dict[str, dict[int, str]] = {
    "InProcessToInReview": _names("Zur Prüfung einreichen", "Submit for review"),
    "InProcessToReadyForQA": _names("An die Qualitätssicherung", "Send to QA"),
    "InProcessToReadyForRelease": _names("Zur Freigabe vorlegen", "Submit for release"),
    "InProcessToReleased": _names("Freigeben", "Release"),
    "InProcessToReleasedQA": _names("Freigeben (nach QS)", "Release (after QA)"),
    "InProcessToReleasedExternal": _names("Freigeben (extern)", "Release (external)"),
    "InReviewToInProcess": _names("Zurück in Bearbeitung", "Back to editing"),
    "InReviewToReadyForQA": _names("An die Qualitätssicherung", "Send to QA"),
    "ReadyForQAToInProcess": _names("Zurück in Bearbeitung", "Back to editing"),
    "ReadyForQAToReadyForRelease": _names("Zur Freigabe vorlegen", "Submit for release"),
    "ReadyForReleaseToInProcess": _names("Zurück in Bearbeitung", "Back to editing"),
    "ReadyForReleaseToReleased": _names("Freigeben", "Release"),
    "ReleasedToRequestToExpire": _names("Ablauf beantragen", "Request expiry"),
    "RequestToExpireToExpired": _names("Ablauf genehmigen", "Approve expiry"),
    "RequestToExpireToReleased": _names("Ablauf ablehnen", "Keep released"),
}

#: Attributes a reader is not shown as such: the state and version (the panel's facts say
#: them) and the role flags a user's `role` already says.
INTERNAL_ATTRIBUTES = frozenset({"state1", "version", "name"}) | frozenset(
    f"role{role.capitalize()}" for role in ROLE_NAMES)


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
