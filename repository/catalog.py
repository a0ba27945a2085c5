"""The tenant-independent configuration: facets, their views and the element types.

The seed names facets, views and types but gives no full property list per type; this
module is the single place that decides them (see docs/service.md, "Type catalog"). The
types themselves, with their names and colours, are the element kinds of
``renderer/kinds.py``; every kind must be in a facet here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from layouts.keys import LAYOUT_KEYS as LAYOUT_KEYS  # re-exported: the service names them too
from renderer.contract import SERVER_ATTRIBUTES as SERVER_ATTRIBUTES  # re-exported: the store's rule too
from renderer.contract import SERVER_RELATED as SERVER_RELATED  # re-exported, as SERVER_ATTRIBUTES
from renderer.culture import ENGLISH as ENGLISH  # re-exported: the service's culture ids are the engine's
from renderer.culture import GERMAN as GERMAN  # re-exported, as ENGLISH
from renderer.culture import LANGUAGE_NEUTRAL, german_english
from renderer.kinds import KINDS
from renderer.names import RELATION_NAMES, STATE_NAMES

NEUTRAL = LANGUAGE_NEUTRAL  # the engine's LANGUAGE_NEUTRAL, by the service's shorter name

FLAT_VIEWS = ("list", "tree", "detail")
PROCESS_VIEWS = FLAT_VIEWS + ("diagram", "reporting")
HIERARCHICAL_VIEWS = frozenset({"tree"})

VIEW_NAMES: dict[str, dict[int, str]] = {
    "list": german_english("Liste", "List"),
    "tree": german_english("Baum", "Tree"),
    "detail": german_english("Detail", "Detail"),
    "diagram": german_english("Diagramm", "Diagram"),
    "reporting": german_english("Berichtswesen", "Reporting"),
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
    return dict(RELATION_NAMES.get(context, german_english(context, context)))


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

# Attributes and related contexts only the server writes: SERVER_ATTRIBUTES and
# SERVER_RELATED, from renderer/contract.py (the drawings and the comparison leave them
# out too).

# The names of the tasks the release workflow opens, by their `actionType`, per culture;
# `{name}` is the subject element's name in that culture.
TASK_NAMES: dict[str, dict[int, str]] = {
    "approveExpiry": german_english("Ablauf genehmigen: {name}", "Approve expiry: {name}"),
}


# ---- display names: what a reader sees instead of a key (the viewer, the configuration
# endpoint); the drawings' own (types, related contexts, states) are in renderer/,
# every table built with renderer.culture.german_english.

FACET_NAMES: dict[str, dict[int, str]] = {
    "processes": german_english("Prozesse", "Processes"),
    "users": german_english("Benutzer", "Users"),
    "products": german_english("Produkte", "Products"),
    "organization": german_english("Organisation", "Organization"),
    "knowledge": german_english("Wissen", "Knowledge"),
    "inputsoutputs": german_english("Inputs und Outputs", "Inputs and outputs"),
    "requirements": german_english("Anforderungen", "Requirements"),
    "it": german_english("IT-Systeme", "IT systems"),
    "stereotypes": german_english("Stereotypen", "Stereotypes"),
    "automation": german_english("Automatisierung", "Automation"),
    "cultures": german_english("Sprachen", "Cultures"),
    "usergroups": german_english("Benutzergruppen", "User groups"),
}

LAYOUT_NAMES: dict[str, dict[int, str]] = {
    "detailed": german_english("Detailliert", "Detailed"),
    "vertical": german_english("Vertikal", "Vertical"),
    "horizontal": german_english("Horizontal", "Horizontal"),
    "verticalSwimlane": german_english("Vertikal mit Schwimmbahnen", "Vertical swimlanes"),
    "horizontalSwimlane": german_english("Horizontal mit Schwimmbahnen", "Horizontal swimlanes"),
    "graphic": german_english("Grafik", "Graphic"),
    "processMatrix": german_english("Prozessmatrix", "Process matrix"),
    "customerMatrix": german_english("Kundenmatrix", "Customer matrix"),
    "entityRelationship": german_english("Beziehungen", "Relationships"),
}

#: Attribute key → names, for the attributes the catalog and the server know; a tenant's
#: own attribute has none (the viewer then says its key in words).
ATTRIBUTE_NAMES: dict[str, dict[int, str]] = {
    **{key: german_english(german, english) for key, _type, german, english, _inv in COMMON_ATTRIBUTES},
    "createdOn": german_english("Erstellt am", "Created on"),
    "changedOn": german_english("Geändert am", "Changed on"),
    "version": german_english("Version", "Version"),
    "validFrom": german_english("Gültig ab", "Valid from"),
    "validUntil": german_english("Gültig bis", "Valid until"),
    "isReleased": german_english("Freigegeben", "Released"),
    "relOn": german_english("Freigegeben am", "Released on"),
    "state1": german_english("Status", "State"),
    "releaseComment": german_english("Freigabekommentar", "Release comment"),
    "reasonForRevision": german_english("Grund der Überarbeitung", "Reason for revision"),
    "processMaturity": german_english("Prozessreife", "Process maturity"),
    "firstName": german_english("Vorname", "First name"),
    "lastName": german_english("Nachname", "Last name"),
    "role": german_english("Rolle", "Role"),
}

#: A token's role → names (the viewer's header, a user's `role` attribute).
ROLE_NAMES: dict[str, dict[int, str]] = {
    "viewer": german_english("Betrachter", "Viewer"),
    "analyzer": german_english("Analyst", "Analyzer"),
    "editor": german_english("Bearbeiter", "Editor"),
    "architect": german_english("Architekt", "Architect"),
    "approver": german_english("Freigeber", "Approver"),
    "administrator": german_english("Administrator", "Administrator"),
}

#: Selection attribute → value key → names.
SELECTION_VALUE_NAMES: dict[str, dict[str, dict[int, str]]] = {
    "processMaturity": {
        "defined": german_english("definiert", "defined"),
        "implemented": german_english("umgesetzt", "implemented"),
        "trained": german_english("geschult", "trained"),
        "isLived": german_english("gelebt", "lived"),
        "isMeasured": german_english("gemessen", "measured"),
        "getsImproved": german_english("wird verbessert", "being improved"),
    },
    "role": ROLE_NAMES,
}

#: Release state → names: the drawings' (renderer/names.py) plus `show`, the state of
#: every element outside the release workflow.
STATE_DISPLAY_NAMES: dict[str, dict[int, str]] = {
    **STATE_NAMES, "show": german_english("nicht versioniert", "not versioned"),
}

#: Release transition (repository/release.py) → names, as a button says what it does.
TRANSITION_NAMES: dict[str, dict[int, str]] = {
    "InProcessToInReview": german_english("Zur Prüfung einreichen", "Submit for review"),
    "InProcessToReadyForQA": german_english("An die Qualitätssicherung", "Send to QA"),
    "InProcessToReadyForRelease": german_english("Zur Freigabe vorlegen", "Submit for release"),
    "InProcessToReleased": german_english("Freigeben", "Release"),
    "InProcessToReleasedQA": german_english("Freigeben (nach QS)", "Release (after QA)"),
    "InProcessToReleasedExternal": german_english("Freigeben (extern)", "Release (external)"),
    "InReviewToInProcess": german_english("Zurück in Bearbeitung", "Back to editing"),
    "InReviewToReadyForQA": german_english("An die Qualitätssicherung", "Send to QA"),
    "ReadyForQAToInProcess": german_english("Zurück in Bearbeitung", "Back to editing"),
    "ReadyForQAToReadyForRelease": german_english("Zur Freigabe vorlegen", "Submit for release"),
    "ReadyForReleaseToInProcess": german_english("Zurück in Bearbeitung", "Back to editing"),
    "ReadyForReleaseToReleased": german_english("Freigeben", "Release"),
    "ReleasedToRequestToExpire": german_english("Ablauf beantragen", "Request expiry"),
    "RequestToExpireToExpired": german_english("Ablauf genehmigen", "Approve expiry"),
    "RequestToExpireToReleased": german_english("Ablauf ablehnen", "Keep released"),
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
