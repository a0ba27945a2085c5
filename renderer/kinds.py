"""The element kinds: one row per element type, the one table every layer reads.

A row holds what the project knows about an element type, whatever layer uses it: its
display names per culture, the catalog's colour, the symbol a shape of it is drawn as and
that symbol's size, what the flow layouts must know about it (as neutral properties:
``is_start``, ``pointed``), its part in lanes and matrices, and its BPMN tags. Every other
place derives its view from here:

- ``renderer.names.type_name``, ``repository.catalog.TYPES`` (names, colour, the
  configuration endpoint), ``renderer.model.KNOWN_TYPES`` (``drawable``);
- ``renderer.symbols.symbol_for`` (``symbol``), ``renderer.measure`` (``symbol_size``);
- ``renderer.flow`` (``LayoutNode.is_start``/``pointed``, the lane of ``work``),
  ``renderer.relations`` (matrix rows: ``work``, ``process``), ``renderer.detailed``,
  ``renderer.entity_relationship`` (``machinery``);
- ``interchange.reader`` (``bpmn_reads``), ``interchange.export`` (``bpmn_tag``),
  ``interchange.positions`` (``pointed``).

The layouts never see a type key: a builder hands them the neutral properties on each
``layouts.graph.LayoutNode``. To add an element type, add its row here;
``tests/test_kinds.py`` then names every other place that must know it (a facet
in ``repository/catalog.py``, a symbol drawer in ``renderer/symbols.py``, …; see
docs/architecture.md, "Adding an element type").
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from renderer.culture import german_english

__all__ = ["KINDS", "Kind"]


@dataclass(frozen=True, slots=True)
class Kind:
    """One element type.

    ``names``: culture id → display name (the configuration endpoint, legends, captions).
    ``color``: the catalog's colour of the type (the configuration endpoint, the viewer).
    ``symbol``: the symbol a diagram shape of the type is drawn as, one of
    ``renderer.symbols.SHAPE_SYMBOLS`` (its CSS class is ``symbol-<symbol>``); None draws a
    plain box captioned with the type's key.
    ``symbol_size``: the side of a square symbol whose label goes beside it (events,
    gateways); None: a box as large as its label needs.
    ``is_start``: a flow begins here (the layered layouts start from these nodes).
    ``pointed``: the symbol has no flat side (circle, diamond, hexagon, pentagon): edges
    meet it at the middle of a side.
    ``round``: a pointed symbol that is a circle (events): an edge meeting it off the
    middle of a side ends on the circle, not on a diamond's edge.
    ``work``: an activity. Without an executing org unit it goes to the "Unassigned"
    lane (other shapes join a neighbour's); the matrices make it a row; ``detailed``
    draws its satellites; a BPMN boundary event may be attached to its tags.
    ``process``: a process in the hierarchy: a matrix of an element without content
    makes the processes under it its rows.
    ``drawable``: a diagram fixture may hold an element of the type (the seed's types).
    ``machinery``: the service's own machinery (access tokens, cultures), never an entity
    of a business view (``entityRelationship`` leaves it out).
    ``bpmn_tag``: the BPMN tag an element of the type is exported as when the import
    kept none; None: written as a ``task``.
    ``bpmn_reads``: the BPMN flow-node tags read as the type (data objects and stores
    are read as ``inOut`` by ``interchange.reader.DATA_TAGS``).
    """

    key: str
    names: Mapping[int, str]
    color: str
    symbol: str | None = None
    symbol_size: float | None = None
    is_start: bool = False
    pointed: bool = False
    round: bool = False
    work: bool = False
    process: bool = False
    drawable: bool = True
    machinery: bool = False
    bpmn_tag: str | None = None
    bpmn_reads: tuple[str, ...] = field(default=())


EVENT_SIZE = 36.0
GATEWAY_SIZE = 50.0

#: Type key → its kind, in the catalog's order (the configuration endpoint lists them so).
KINDS: dict[str, Kind] = {
    kind.key: kind
    for kind in (
        Kind("processHouse", german_english("Prozesslandkarte", "Process house"), "#4A6FA5"),
        Kind("subCategory", german_english("Kategorie", "Category"), "#6B8EC7"),
        Kind("view", german_english("Sicht", "View"), "#8FA9D6"),
        Kind("mainProcess", german_english("Hauptprozess", "Main process"), "#2E7D32", process=True,
             bpmn_tag="callActivity"),
        Kind("subProcess", german_english("Teilprozess", "Sub process"), "#43A047", symbol="subprocess", work=True,
             process=True, bpmn_tag="subProcess",
             bpmn_reads=("subProcess", "transaction", "adHocSubProcess", "callActivity")),
        Kind("task", german_english("Aufgabe", "Task"), "#66BB6A", symbol="task", work=True, process=True,
             bpmn_tag="task",
             bpmn_reads=("task", "userTask", "serviceTask", "sendTask", "receiveTask", "manualTask",
                         "businessRuleTask", "scriptTask")),
        Kind("ruleXor", german_english("XOR-Regel", "XOR rule"), "#F9A825", symbol="xor", symbol_size=GATEWAY_SIZE,
             pointed=True, bpmn_tag="exclusiveGateway", bpmn_reads=("exclusiveGateway",)),
        Kind("ruleAnd", german_english("UND-Regel", "AND rule"), "#F57F17", symbol="and", symbol_size=GATEWAY_SIZE,
             pointed=True, bpmn_tag="parallelGateway", bpmn_reads=("parallelGateway",)),
        Kind("condition", german_english("Bedingung", "Condition"), "#FFCA28", symbol="condition",
             symbol_size=GATEWAY_SIZE, pointed=True, bpmn_tag="inclusiveGateway",
             bpmn_reads=("inclusiveGateway", "complexGateway", "eventBasedGateway")),
        Kind("evStart", german_english("Startereignis", "Start event"), "#C62828", symbol="start",
             symbol_size=EVENT_SIZE, is_start=True, pointed=True, round=True, bpmn_tag="startEvent",
             bpmn_reads=("startEvent",)),
        Kind("evIntermediate", german_english("Zwischenereignis", "Intermediate event"), "#E53935",
             symbol="intermediate", symbol_size=EVENT_SIZE, pointed=True, round=True, bpmn_tag="intermediateThrowEvent",
             bpmn_reads=("intermediateCatchEvent", "intermediateThrowEvent", "implicitThrowEvent",
                         "boundaryEvent")),
        Kind("evEnd", german_english("Endereignis", "End event"), "#B71C1C", symbol="end", symbol_size=EVENT_SIZE,
             pointed=True, round=True, bpmn_tag="endEvent", bpmn_reads=("endEvent",)),
        Kind("processInterfacePlaceholder", german_english("Prozessschnittstelle", "Process interface"), "#8D6E63",
             symbol="interface", pointed=True, bpmn_tag="callActivity"),
        Kind("product", german_english("Produkt", "Product"), "#6A1B9A", bpmn_tag="dataObjectReference"),
        Kind("user", german_english("Benutzer", "User"), "#455A64"),
        Kind("orgUnit", german_english("Organisationseinheit", "Org unit"), "#00838F"),
        Kind("inOut", german_english("Input/Output", "Input/output"), "#EF6C00", bpmn_tag="dataObjectReference"),
        Kind("knowledgeStructureDocument", german_english("Dokument", "Document"), "#5D4037",
             bpmn_tag="dataObjectReference"),
        Kind("requirement", german_english("Anforderung", "Requirement"), "#AD1457"),
        Kind("system", german_english("IT-System", "IT system"), "#1565C0", bpmn_tag="dataStoreReference"),
        Kind("systemType", german_english("Systemtyp", "System type"), "#1E88E5"),
        # the catalog's stereotypes facet holds it; the seed draws no diagram with it
        Kind("stereotype", german_english("Stereotyp", "Stereotype"), "#9E9E9E", drawable=False),
        Kind("authToken", german_english("Zugriffstoken", "Access token"), "#607D8B", machinery=True),
        Kind("configCulture", german_english("Sprache", "Culture"), "#78909C", machinery=True),
        Kind("userGroup", german_english("Benutzergruppe", "User group"), "#546E7A"),
    )
}
