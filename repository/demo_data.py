"""Content of the demo tenant ``demo/default``: the mid-size manufacturer "Contoso Fertigung".

:func:`demo_tenant` returns plain data, one dict per element, in creation order::

    {
        "id": "<uuid5 of a readable key>",          # stable across runs, see demo_id()
        "facetName": "processes",
        "type": "mainProcess",
        "attributes": {"name": {"1031": "...", "1033": "..."}, ...},
        "related": {"executedBy": [{"id": ...}], ...},   # context name -> references
        "children": [{"id": ...}],                    # ordered child list
        "content": [ContentModel, ...],               # only on elements with a diagram
        "release": 2,                                 # optional, see below
        "pending_change": True,                       # optional, see below
    }

Ordering: ``related`` references and ``content`` items with ``element.id`` only name
elements that appear earlier in the list. ``children`` lists are the exception: they may
name elements that appear later (the process house is listed before its categories, and
those before their processes), so a loader sets children once every element exists.

``content`` is exactly the ``values`` list of a content-create request (seed endpoint 12,
contract section 6): ``{"shapeInfo": {"index", "predecessors"}, "element": {...}}``.
An item either creates a new shape element (``type``, ``attributes`` and ``related``
with ``executedBy``, ``hasInput``, ``hasOutput``, ``usesSystem``, ``guidelines``) or
references an existing sub process through ``element.id``. Predecessors are indices
within the same list; they may point forward (rework loops) but never at the item itself.

``release`` says how often the element is released: absent or 0 leaves it ``inProcess``;
1 releases it once; 2 releases it, updates it and releases it again, so it has an expired
version. ``pending_change`` means the element is updated once more after its last
release, leaving a new ``inProcess`` version beside the released one.

Localized texts carry cultures 1031 (German) and 1033 (English); language-neutral values
(first and last names, role flags, processMaturity) use culture 127.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

Element = dict[str, Any]
Reference = dict[str, str]

_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://elrepo.invalid/tenants/demo/default")


def demo_id(key: str) -> str:
    """Stable id of the demo element with the readable key, e.g. ``process:order-to-cash``.

    Key prefixes: ``user:``, ``org:``, ``product:``, ``io:``, ``system:``, ``doc:`` and
    ``process:`` (process house, categories, main and sub processes).
    """
    return str(uuid.uuid5(_NAMESPACE, key))


def _text(de: str, en: str) -> dict[str, str]:
    return {"1031": de, "1033": en}


def _refs(prefix: str, keys: Sequence[str]) -> list[Reference]:
    return [{"id": demo_id(f"{prefix}:{key}")} for key in keys]


def _element(
    key: str,
    facet: str,
    type_: str,
    de: str,
    en: str,
    *,
    attributes: Mapping[str, dict[str, Any]] | None = None,
    related: Mapping[str, list[Reference]] | None = None,
    children: Sequence[str] = (),
    release: int = 0,
) -> Element:
    element: Element = {
        "id": demo_id(key),
        "facetName": facet,
        "type": type_,
        "attributes": {"name": _text(de, en), **(attributes or {})},
        "related": {name: refs for name, refs in (related or {}).items() if refs},
        "children": [{"id": demo_id(child)} for child in children],
    }
    if release:
        element["release"] = release
    return element


# --------------------------------------------------------------------------- master data

_ROLES = ("Viewer", "Analyzer", "Editor", "Architect", "Approver", "Administrator")

# key, first name, last name, role
_USERS = (
    ("anna.becker", "Anna", "Becker", "Viewer"),
    ("jonas.weber", "Jonas", "Weber", "Analyzer"),
    ("lena.hoffmann", "Lena", "Hoffmann", "Editor"),
    ("markus.schaefer", "Markus", "Schäfer", "Architect"),
    ("sabine.krueger", "Sabine", "Krüger", "Approver"),
    ("thomas.mueller", "Thomas", "Müller", "Administrator"),
)

# key, German name, English name
_ORG_UNITS = (
    ("board", "Geschäftsführung", "Management board"),
    ("sales", "Vertrieb", "Sales"),
    ("engineering", "Konstruktion", "Engineering"),
    ("purchasing", "Einkauf", "Purchasing"),
    ("production", "Produktion", "Production"),
    ("quality", "Qualitätsmanagement", "Quality management"),
    ("warehouse", "Lager und Logistik", "Warehouse and logistics"),
    ("customer-service", "Kundendienst", "Customer service"),
    ("finance", "Finanzen und Controlling", "Finance and controlling"),
    ("hr", "Personalwesen", "Human resources"),
    ("it-service-desk", "IT-Servicedesk", "IT service desk"),
    ("it-operations", "IT-Betrieb", "IT operations"),
)

_PRODUCTS = (
    ("custom-gearbox", "Sondergetriebe", "Custom gearbox"),
    ("standard-gearbox", "Standardgetriebe", "Standard gearbox"),
    ("spare-parts", "Ersatzteile", "Spare parts"),
    ("maintenance-contract", "Wartungsvertrag", "Maintenance contract"),
    ("repair-service", "Reparaturservice", "Repair service"),
)

_INPUTS_OUTPUTS = (
    ("customer-inquiry", "Kundenanfrage", "Customer inquiry"),
    ("quotation", "Angebot", "Quotation"),
    ("customer-order", "Kundenauftrag", "Customer order"),
    ("order-confirmation", "Auftragsbestätigung", "Order confirmation"),
    ("credit-report", "Bonitätsauskunft", "Credit report"),
    ("invoice", "Ausgangsrechnung", "Invoice"),
    ("delivery-note", "Lieferschein", "Delivery note"),
    ("payment-advice", "Zahlungsavis", "Payment advice"),
    ("purchase-requisition", "Bestellanforderung", "Purchase requisition"),
    ("purchase-order", "Bestellung", "Purchase order"),
    ("goods-receipt-slip", "Wareneingangsschein", "Goods receipt slip"),
    ("supplier-invoice", "Lieferantenrechnung", "Supplier invoice"),
    ("complaint", "Reklamation", "Complaint"),
    ("production-order", "Fertigungsauftrag", "Production order"),
    ("bill-of-materials", "Stückliste", "Bill of materials"),
    ("inspection-report", "Prüfbericht", "Inspection report"),
    ("deviation-report", "Abweichungsbericht", "Deviation report"),
    ("job-requisition", "Stellenanforderung", "Job requisition"),
    ("employment-contract", "Arbeitsvertrag", "Employment contract"),
    ("incident-ticket", "Störungsticket", "Incident ticket"),
    ("sales-forecast", "Absatzprognose", "Sales forecast"),
    ("market-analysis", "Markt- und Wettbewerbsanalyse", "Market and competitor analysis"),
    ("strategy-paper", "Strategiepapier", "Strategy paper"),
    ("budget", "Jahresbudget", "Annual budget"),
)

_SYSTEMS = (
    ("sap", "SAP S/4HANA", "SAP S/4HANA"),
    ("salesforce", "Salesforce Sales Cloud", "Salesforce Sales Cloud"),
    ("workday", "Workday HCM", "Workday HCM"),
    ("servicenow", "ServiceNow ITSM", "ServiceNow ITSM"),
    ("mes", "Siemens Opcenter MES", "Siemens Opcenter MES"),
    ("m365", "Microsoft 365", "Microsoft 365"),
    ("datev", "DATEV Lohn und Gehalt", "DATEV payroll"),
)

_DOCUMENTS = (
    ("credit-policy", "Kreditrichtlinie", "Credit policy"),
    ("packing-guideline", "Verpackungsrichtlinie", "Packing guideline"),
    ("shipping-instructions", "Versandvorschrift", "Shipping instructions"),
    ("purchasing-policy", "Einkaufsrichtlinie", "Purchasing policy"),
    ("supplier-evaluation", "Leitfaden Lieferantenbewertung", "Supplier evaluation guideline"),
    ("signature-rules", "Unterschriftenregelung", "Signature authority rules"),
    ("quality-manual", "Qualitätshandbuch", "Quality manual"),
    ("inspection-plan", "Prüfplan Getriebe", "Gearbox inspection plan"),
    ("onboarding-checklist", "Onboarding-Checkliste", "Onboarding checklist"),
    ("priority-matrix", "Prioritätenmatrix für IT-Störungen", "IT incident priority matrix"),
    ("planning-calendar", "Planungskalender", "Planning calendar"),
)

# Master data that is versioned and released once, except the credit policy (twice).
_RELEASES = {"doc:credit-policy": 2}


def _users() -> list[Element]:
    users = []
    for key, first, last, role in _USERS:
        flags = {f"role{name}": {"127": name == role} for name in _ROLES}
        attributes: dict[str, dict[str, Any]] = {"firstName": {"127": first}, "lastName": {"127": last}, **flags}
        users.append(
            _element(f"user:{key}", "users", "user", f"{first} {last}", f"{first} {last}", attributes=attributes)
        )
    return users


def _catalog(prefix: str, facet: str, type_: str, entries: Sequence[tuple[str, str, str]]) -> list[Element]:
    return [
        _element(f"{prefix}:{key}", facet, type_, de, en, release=_RELEASES.get(f"{prefix}:{key}", 1))
        for key, de, en in entries
    ]


def _organization() -> list[Element]:
    company = _element(
        "org:company",
        "organization",
        "orgUnit",
        "Contoso Fertigung GmbH",
        "Contoso Fertigung GmbH",
        children=[f"org:{key}" for key, _, _ in _ORG_UNITS],
        release=1,
    )
    return [company, *_catalog("org", "organization", "orgUnit", _ORG_UNITS)]


# ------------------------------------------------------------------------------ diagrams


class _Diagram:
    """Builds the content-create body of one diagram; each method returns the new index.

    ``after`` is the index (or indices) of the predecessor shapes, ``lane`` the org unit
    key(s) executing the shape (None: lane "Unassigned"), ``inputs``/``outputs`` keys of
    inputs/outputs, ``systems`` keys of IT systems and ``docs`` keys of documents.
    """

    def __init__(self) -> None:
        self.items: list[Element] = []

    def _add(self, element: Element, after: int | Sequence[int]) -> int:
        index = len(self.items)
        predecessors = [after] if isinstance(after, int) else list(after)
        self.items.append({"shapeInfo": {"index": index, "predecessors": predecessors}, "element": element})
        return index

    def shape(
        self,
        type_: str,
        after: int | Sequence[int],
        de: str,
        en: str,
        lane: str | Sequence[str] | None = None,
        *,
        inputs: Sequence[str] = (),
        outputs: Sequence[str] = (),
        systems: Sequence[str] = (),
        docs: Sequence[str] = (),
    ) -> int:
        lanes = [] if lane is None else [lane] if isinstance(lane, str) else list(lane)
        contexts = {
            "executedBy": _refs("org", lanes),
            "hasInput": _refs("io", inputs),
            "hasOutput": _refs("io", outputs),
            "usesSystem": _refs("system", systems),
            "guidelines": _refs("doc", docs),
        }
        element: Element = {"type": type_, "attributes": {"name": _text(de, en)}}
        related = {name: refs for name, refs in contexts.items() if refs}
        if related:
            element["related"] = related
        return self._add(element, after)

    def start(self, de: str, en: str, lane: str | None = None) -> int:
        return self.shape("evStart", (), de, en, lane)

    def task(self, after: int | Sequence[int], de: str, en: str, lane: str | Sequence[str], **links: Any) -> int:
        return self.shape("task", after, de, en, lane, **links)

    def event(self, after: int | Sequence[int], de: str, en: str, lane: str | None = None) -> int:
        return self.shape("evIntermediate", after, de, en, lane)

    def end(self, after: int | Sequence[int], de: str, en: str, lane: str | None = None) -> int:
        return self.shape("evEnd", after, de, en, lane)

    def xor(self, after: int | Sequence[int], de: str, en: str, lane: str | None = None) -> int:
        return self.shape("ruleXor", after, de, en, lane)

    def merge(self, after: Sequence[int], lane: str | None = None) -> int:
        return self.shape("ruleXor", after, "Zusammenführung", "Merge", lane)

    def fork(self, after: int | Sequence[int], lane: str | None = None) -> int:
        return self.shape("ruleAnd", after, "Parallele Bearbeitung", "Parallel processing", lane)

    def join(self, after: Sequence[int], lane: str | None = None) -> int:
        return self.shape("ruleAnd", after, "Synchronisation", "Synchronisation", lane)

    def condition(self, after: int, de: str, en: str, lane: str | None = None) -> int:
        return self.shape("condition", after, de, en, lane)

    def interface(self, after: int | Sequence[int], de: str, en: str) -> int:
        """Hand-over to another process; drawn without an org unit."""
        return self.shape("processInterfacePlaceholder", after, de, en)

    def sub(self, after: int | Sequence[int], key: str) -> int:
        """Reference to an existing sub process (listed earlier in demo_tenant())."""
        return self._add({"id": demo_id(f"process:{key}")}, after)

    def loop(self, source: int, target: int) -> None:
        """Adds the flow source -> target after both exist (a rework loop)."""
        self.items[target]["shapeInfo"]["predecessors"].append(source)


def _credit_check() -> list[Element]:
    d = _Diagram()
    start = d.start("Kundenauftrag erfasst", "Sales order entered", "sales")
    master = d.task(start, "Kundenstammdaten prüfen", "Check customer master data", "sales", systems=["sap"])
    fork = d.fork(master, "finance")
    report = d.task(
        fork, "Bonitätsauskunft einholen", "Obtain credit report", "finance",
        outputs=["credit-report"], docs=["credit-policy"],
    )
    items = d.task(fork, "Offene Posten prüfen", "Check open items", "finance", systems=["sap"])
    joined = d.join([report, items], "finance")
    assess = d.task(
        joined, "Kreditlimit bewerten", "Assess credit limit", "finance",
        inputs=["credit-report"], docs=["credit-policy"], systems=["sap"],
    )
    limit = d.xor(assess, "Kreditlimit überschritten?", "Credit limit exceeded?", "finance")
    exceeded = d.condition(limit, "Limit überschritten", "Limit exceeded", "finance")
    approval = d.task(
        exceeded, "Ausnahmegenehmigung einholen", "Obtain exception approval", "board", docs=["signature-rules"]
    )
    decision = d.xor(approval, "Entscheidung der Geschäftsführung?", "Board decision?", "board")
    more = d.condition(decision, "Weitere Unterlagen nötig", "More documents needed", "board")
    documents = d.task(more, "Unterlagen beim Kunden anfordern", "Request documents from customer", "sales")
    d.loop(documents, assess)
    approved = d.condition(decision, "Ausnahme genehmigt", "Exception approved", "board")
    within = d.condition(limit, "Limit eingehalten", "Within limit", "finance")
    merged = d.merge([approved, within], "finance")
    d.end(merged, "Bonität freigegeben", "Credit approved", "finance")
    refused = d.condition(decision, "Ausnahme abgelehnt", "Exception refused", "board")
    d.end(refused, "Bonität abgelehnt", "Credit rejected", "finance")
    return d.items


def _quality_inspection() -> list[Element]:
    d = _Diagram()
    start = d.start("Prüflos erzeugt", "Inspection lot created", "quality")
    plan = d.task(
        start, "Prüfplan auswählen", "Select inspection plan", "quality", docs=["inspection-plan"], systems=["sap"]
    )
    fork = d.fork(plan, "quality")
    measure = d.task(
        fork, "Maßprüfung durchführen", "Perform dimensional inspection", "quality", docs=["inspection-plan"]
    )
    test = d.task(fork, "Funktionstest auf dem Prüfstand", "Run functional test on test bench", "production",
                  systems=["mes"])
    joined = d.join([measure, test], "quality")
    record = d.task(
        joined, "Prüfergebnisse dokumentieren", "Record inspection results", "quality",
        outputs=["inspection-report"], systems=["sap"], docs=["quality-manual"],
    )
    result = d.xor(record, "Prüfergebnis?", "Inspection result?", "quality")
    suspect = d.condition(result, "Messfehler vermutet", "Measurement error suspected", "quality")
    calibrate = d.task(suspect, "Messmittel kalibrieren", "Calibrate measuring equipment", "quality",
                       docs=["quality-manual"])
    d.loop(calibrate, fork)
    deviation = d.condition(result, "Abweichung festgestellt", "Deviation found", "quality")
    deviation_report = d.task(
        deviation, "Abweichungsbericht erstellen", "Write deviation report", ["quality", "engineering"],
        inputs=["inspection-report"], outputs=["deviation-report"],
    )
    d.end(deviation_report, "Prüfung nicht bestanden", "Inspection failed", "engineering")
    passed = d.condition(result, "In Ordnung", "Passed", "quality")
    d.end(passed, "Prüfung bestanden", "Inspection passed", "quality")
    return d.items


def _strategy_planning() -> list[Element]:
    d = _Diagram()
    start = d.start("Planungszyklus gestartet", "Planning cycle started", "board")
    market = d.task(
        start, "Markt und Wettbewerb analysieren", "Analyse market and competition", "sales",
        outputs=["market-analysis"], systems=["salesforce"],
    )
    goals = d.task(
        market, "Strategische Ziele festlegen", "Define strategic objectives", "board",
        inputs=["market-analysis"], outputs=["strategy-paper"], docs=["planning-calendar"],
    )
    fork = d.fork(goals, "board")
    sales_plan = d.task(
        fork, "Absatzplanung erstellen", "Prepare sales plan", "sales",
        inputs=["strategy-paper"], outputs=["sales-forecast"], systems=["salesforce"],
    )
    capacity = d.task(fork, "Kapazitätsplanung erstellen", "Prepare capacity plan", "production",
                      inputs=["sales-forecast"], systems=["sap"])
    headcount = d.task(fork, "Personalplanung erstellen", "Prepare headcount plan", "hr", systems=["workday"])
    joined = d.join([sales_plan, capacity, headcount], "finance")
    budget = d.task(
        joined, "Budget konsolidieren", "Consolidate budget", "finance", outputs=["budget"], systems=["sap"]
    )
    decision = d.xor(budget, "Budget genehmigt?", "Budget approved?", "board")
    revise = d.condition(decision, "Überarbeitung nötig", "Revision needed", "board")
    adjust = d.task(revise, "Planannahmen anpassen", "Adjust planning assumptions", "finance")
    d.loop(adjust, fork)
    approved = d.condition(decision, "Genehmigt", "Approved", "board")
    communicate = d.task(
        approved, "Ziele im Unternehmen kommunizieren", "Communicate objectives company-wide", "board",
        inputs=["strategy-paper"], systems=["m365"],
    )
    d.end(communicate, "Jahresplan verabschiedet", "Annual plan adopted", "board")
    return d.items


def _order_to_cash() -> list[Element]:
    d = _Diagram()
    start = d.start("Kundenanfrage eingegangen", "Customer inquiry received", "sales")
    review = d.task(
        start, "Anfrage prüfen", "Review inquiry", "sales", inputs=["customer-inquiry"], systems=["salesforce"]
    )
    kind = d.xor(review, "Standardprodukt?", "Standard product?", "sales")
    standard = d.condition(kind, "Standardprodukt", "Standard product", "sales")
    custom = d.condition(kind, "Sonderanfertigung", "Custom design", "sales")
    clarify = d.task(
        custom, "Technische Anforderungen klären", "Clarify technical requirements", "engineering",
        inputs=["customer-inquiry"], outputs=["bill-of-materials"],
    )
    merged = d.merge([standard, clarify], "sales")
    quote = d.task(
        merged, "Angebot erstellen", "Prepare quotation", "sales", outputs=["quotation"], systems=["salesforce"]
    )
    answer = d.xor(quote, "Angebot angenommen?", "Quotation accepted?", "sales")
    declined = d.condition(answer, "Angebot abgelehnt", "Quotation declined", "sales")
    d.end(declined, "Auftrag verloren", "Order lost", "sales")
    accepted = d.condition(answer, "Angebot angenommen", "Quotation accepted", "sales")
    enter = d.task(
        accepted, "Kundenauftrag erfassen", "Enter sales order", "sales",
        inputs=["customer-order"], systems=["sap"],
    )
    credit = d.sub(enter, "credit-check")
    credit_ok = d.xor(credit, "Bonität ausreichend?", "Credit sufficient?", "finance")
    rejected = d.condition(credit_ok, "Bonität abgelehnt", "Credit rejected", "finance")
    inform = d.task(
        rejected, "Kunden über Ablehnung informieren", "Inform customer of rejection", ["sales", "finance"],
        docs=["credit-policy"],
    )
    d.end(inform, "Auftrag abgelehnt", "Order rejected")
    approved = d.condition(credit_ok, "Bonität freigegeben", "Credit approved", "finance")
    confirm = d.task(
        approved, "Auftragsbestätigung versenden", "Send order confirmation", "sales",
        outputs=["order-confirmation"], systems=["sap"],
    )
    stock = d.xor(confirm, "Ware auf Lager?", "Goods in stock?", "warehouse")
    missing = d.condition(stock, "Nicht auf Lager", "Not in stock", "warehouse")
    produce = d.interface(missing, "Produktionsplanung und Fertigung", "Plan to produce")
    produced = d.event(produce, "Fertigware eingelagert", "Finished goods in stock", "warehouse")
    available = d.condition(stock, "Auf Lager", "In stock", "warehouse")
    ready = d.merge([produced, available], "warehouse")
    fork = d.fork(ready)
    pick = d.sub(fork, "pick-and-pack")
    invoice = d.task(
        fork, "Rechnung erstellen", "Create invoice", "finance",
        inputs=["order-confirmation"], outputs=["invoice"], systems=["sap"],
    )
    inspect = d.task(
        pick, "Warenausgangsprüfung durchführen", "Inspect outgoing goods", "quality",
        outputs=["inspection-report"], docs=["inspection-plan"],
    )
    inspected = d.xor(inspect, "Prüfung bestanden?", "Inspection passed?", "quality")
    defects = d.condition(inspected, "Mängel festgestellt", "Defects found", "quality")
    rework = d.task(defects, "Nacharbeit durchführen", "Rework goods", "production", inputs=["inspection-report"])
    d.loop(rework, inspect)
    passed = d.condition(inspected, "Prüfung bestanden", "Inspection passed", "quality")
    joined = d.join([passed, invoice])
    ship = d.task(
        joined, "Ware versenden", "Ship goods", "warehouse",
        outputs=["delivery-note"], systems=["sap"], docs=["shipping-instructions"],
    )
    paid = d.event(ship, "Zahlung eingegangen", "Payment received", "finance")
    post = d.task(
        paid, "Zahlungseingang verbuchen", "Post incoming payment", "finance",
        inputs=["payment-advice", "invoice"], systems=["sap"],
    )
    d.end(post, "Auftrag abgeschlossen", "Order completed", "finance")
    return d.items


def _procure_to_pay() -> list[Element]:
    d = _Diagram()
    start = d.start("Materialbedarf entstanden", "Material requirement identified", "production")
    requisition = d.task(
        start, "Bestellanforderung anlegen", "Create purchase requisition", "production",
        outputs=["purchase-requisition"], systems=["sap"],
    )
    value = d.xor(requisition, "Bestellwert über 50.000 €?", "Order value above €50,000?", "purchasing")
    above = d.condition(value, "Über 50.000 €", "Above €50,000", "purchasing")
    approval = d.task(
        above, "Investitionsfreigabe einholen", "Obtain capital expenditure approval", "board",
        inputs=["purchase-requisition"], docs=["signature-rules"],
    )
    decision = d.xor(approval, "Freigabe erteilt?", "Approval granted?", "board")
    refused = d.condition(decision, "Abgelehnt", "Refused", "board")
    d.end(refused, "Bedarf abgelehnt", "Requirement refused", "board")
    granted = d.condition(decision, "Freigegeben", "Approved", "board")
    below = d.condition(value, "Bis 50.000 €", "Up to €50,000", "purchasing")
    merged = d.merge([granted, below], "purchasing")
    select = d.sub(merged, "supplier-selection")
    order = d.task(
        select, "Bestellung erstellen", "Create purchase order", "purchasing",
        inputs=["purchase-requisition"], outputs=["purchase-order"], systems=["sap"], docs=["purchasing-policy"],
    )
    confirmed = d.event(order, "Lieferantenbestätigung erhalten", "Supplier confirmation received", "purchasing")
    receipt = d.sub(confirmed, "goods-receipt")
    check = d.xor(receipt, "Lieferung in Ordnung?", "Delivery in order?", "quality")
    defective = d.condition(check, "Lieferung mangelhaft", "Delivery defective", "quality")
    complain = d.task(
        defective, "Reklamation an Lieferanten senden", "Send complaint to supplier", ["purchasing", "quality"],
        outputs=["complaint"], systems=["sap"],
    )
    d.loop(complain, confirmed)
    fine = d.condition(check, "Lieferung in Ordnung", "Delivery in order", "quality")
    fork = d.fork(fine)
    store = d.task(fork, "Ware einlagern", "Put goods into stock", "warehouse", systems=["sap"])
    verify = d.task(
        fork, "Lieferantenrechnung prüfen", "Verify supplier invoice", "finance",
        inputs=["supplier-invoice", "purchase-order", "goods-receipt-slip"], systems=["sap"],
    )
    joined = d.join([store, verify], "finance")
    pay = d.task(joined, "Zahlung ausführen", "Execute payment", "finance", outputs=["payment-advice"],
                 systems=["sap"])
    d.end(pay, "Beschaffung abgeschlossen", "Purchase completed", "finance")
    return d.items


def _plan_to_produce() -> list[Element]:
    d = _Diagram()
    start = d.start("Fertigungsbedarf entstanden", "Production requirement created")
    mrp = d.task(
        start, "Materialbedarfsplanung durchführen", "Run material requirements planning", "production",
        inputs=["sales-forecast", "bill-of-materials"], systems=["sap"],
    )
    material = d.xor(mrp, "Material verfügbar?", "Material available?", "production")
    missing = d.condition(material, "Material fehlt", "Material missing", "production")
    procure = d.interface(missing, "Beschaffung", "Procure to pay")
    arrived = d.event(procure, "Material eingetroffen", "Material arrived", "warehouse")
    available = d.condition(material, "Material verfügbar", "Material available", "production")
    merged = d.merge([arrived, available], "production")
    release = d.task(
        merged, "Fertigungsauftrag freigeben", "Release production order", "production",
        outputs=["production-order"], systems=["sap"],
    )
    fork = d.fork(release, "production")
    stage = d.task(
        fork, "Material bereitstellen", "Stage material", "warehouse",
        inputs=["production-order", "bill-of-materials"], systems=["mes"],
    )
    setup = d.task(fork, "Maschinen rüsten", "Set up machines", "production", systems=["mes"])
    joined = d.join([stage, setup], "production")
    assemble = d.task(
        joined, "Getriebe montieren", "Assemble gearbox", "production",
        inputs=["production-order", "bill-of-materials"], systems=["mes"], docs=["quality-manual"],
    )
    inspection = d.sub(assemble, "quality-inspection")
    verdict = d.xor(inspection, "Qualität in Ordnung?", "Quality accepted?", "quality")
    rework_needed = d.condition(verdict, "Nacharbeit erforderlich", "Rework required", "quality")
    rework = d.task(rework_needed, "Nacharbeit durchführen", "Perform rework", "production",
                    inputs=["deviation-report"])
    d.loop(rework, inspection)
    scrap = d.condition(verdict, "Ausschuss", "Scrap", "quality")
    post_scrap = d.task(scrap, "Ausschuss buchen", "Post scrap", "production", systems=["sap"])
    d.loop(post_scrap, mrp)
    accepted = d.condition(verdict, "Qualität in Ordnung", "Quality accepted", "quality")
    confirm = d.task(
        accepted, "Fertigmeldung buchen", "Confirm production order", "production", systems=["mes", "sap"]
    )
    store = d.task(confirm, "Fertigware einlagern", "Put finished goods into stock", "warehouse", systems=["sap"])
    d.end(store, "Fertigware verfügbar", "Finished goods available", "warehouse")
    return d.items


def _hire_to_retire() -> list[Element]:
    d = _Diagram()
    start = d.start("Personalbedarf festgestellt", "Staffing need identified", "production")
    requisition = d.task(
        start, "Stellenanforderung erstellen", "Create job requisition", "production",
        outputs=["job-requisition"], systems=["workday"],
    )
    budgeted = d.xor(requisition, "Stelle budgetiert?", "Position budgeted?", "hr")
    unbudgeted = d.condition(budgeted, "Nicht budgetiert", "Not budgeted", "hr")
    approve = d.task(
        unbudgeted, "Stelle genehmigen", "Approve position", "board",
        inputs=["job-requisition", "budget"], docs=["signature-rules"],
    )
    decision = d.xor(approve, "Stelle genehmigt?", "Position approved?", "board")
    refused = d.condition(decision, "Abgelehnt", "Refused", "board")
    d.end(refused, "Stelle abgelehnt", "Position refused", "board")
    granted = d.condition(decision, "Genehmigt", "Approved", "board")
    in_budget = d.condition(budgeted, "Budgetiert", "Budgeted", "hr")
    merged = d.merge([granted, in_budget], "hr")
    post = d.task(merged, "Stelle ausschreiben", "Publish job posting", "hr", inputs=["job-requisition"],
                  systems=["workday"])
    select = d.task(post, "Bewerber auswählen", "Select candidates", ["hr", "production"], systems=["workday"])
    found = d.xor(select, "Passender Kandidat gefunden?", "Suitable candidate found?", "hr")
    none = d.condition(found, "Kein passender Kandidat", "No suitable candidate", "hr")
    d.loop(none, post)
    hired = d.condition(found, "Kandidat gefunden", "Candidate found", "hr")
    contract = d.task(
        hired, "Arbeitsvertrag erstellen", "Prepare employment contract", "hr",
        outputs=["employment-contract"], systems=["workday"], docs=["signature-rules"],
    )
    fork = d.fork(contract, "hr")
    workplace = d.task(fork, "IT-Arbeitsplatz einrichten", "Set up IT workplace", "it-service-desk",
                       systems=["servicenow", "m365"])
    payroll = d.task(
        fork, "Mitarbeiter in Lohnabrechnung anlegen", "Add employee to payroll", "finance",
        inputs=["employment-contract"], systems=["datev"],
    )
    onboarding_plan = d.task(fork, "Einarbeitungsplan erstellen", "Prepare onboarding plan", "hr",
                             docs=["onboarding-checklist"])
    joined = d.join([workplace, payroll, onboarding_plan], "hr")
    first_day = d.event(joined, "Erster Arbeitstag", "First working day", "hr")
    onboard = d.task(first_day, "Einarbeitung durchführen", "Carry out onboarding", "production",
                     docs=["onboarding-checklist"])
    d.end(onboard, "Mitarbeiter eingearbeitet", "Employee onboarded", "production")
    return d.items


def _incident_management() -> list[Element]:
    d = _Diagram()
    start = d.start("Störung gemeldet", "Incident reported")
    log = d.task(
        start, "Ticket erfassen und klassifizieren", "Log and classify ticket", "it-service-desk",
        outputs=["incident-ticket"], systems=["servicenow"], docs=["priority-matrix"],
    )
    priority = d.xor(log, "Priorität?", "Priority?", "it-service-desk")
    critical = d.condition(priority, "Kritisch (P1)", "Critical (P1)", "it-service-desk")
    fork = d.fork(critical, "it-service-desk")
    team = d.task(fork, "Notfallteam einberufen", "Convene emergency team", "it-operations", systems=["m365"])
    notify = d.task(
        fork, "Betroffene Bereiche informieren", "Notify affected departments", "it-service-desk",
        systems=["m365"],
    )
    joined = d.join([team, notify], "it-operations")
    normal = d.condition(priority, "Normal (P2–P4)", "Normal (P2–P4)", "it-service-desk")
    search = d.task(
        normal, "Lösungsdatenbank durchsuchen", "Search knowledge base", "it-service-desk",
        inputs=["incident-ticket"], systems=["servicenow"],
    )
    known = d.xor(search, "Lösung bekannt?", "Solution known?", "it-service-desk")
    solved = d.condition(known, "Lösung bekannt", "Known solution", "it-service-desk")
    unknown = d.condition(known, "Lösung unbekannt", "Unknown solution", "it-service-desk")
    escalated = d.merge([joined, unknown], "it-operations")
    resolve = d.task(
        escalated, "Störung analysieren und beheben", "Analyse and resolve incident", "it-operations",
        inputs=["incident-ticket"], systems=["servicenow"],
    )
    fixed = d.merge([solved, resolve], "it-service-desk")
    verify = d.task(fixed, "Lösung mit Anwender prüfen", "Verify solution with user", "production")
    outcome = d.xor(verify, "Störung behoben?", "Incident resolved?", "production")
    not_fixed = d.condition(outcome, "Nicht behoben", "Not resolved", "production")
    d.loop(not_fixed, resolve)
    done = d.condition(outcome, "Behoben", "Resolved", "production")
    close = d.task(done, "Ticket schließen", "Close ticket", "it-service-desk", outputs=["incident-ticket"],
                   systems=["servicenow"])
    d.end(close, "Störung behoben", "Incident resolved", "it-service-desk")
    return d.items


# ----------------------------------------------------------------------------- processes


def _process(
    key: str,
    type_: str,
    de: str,
    en: str,
    *,
    description: tuple[str, str],
    org: Mapping[str, Sequence[str]],
    people: tuple[str, str, str],
    maturity: str | None = None,
    products_in: Sequence[str] = (),
    products_out: Sequence[str] = (),
    io_in: Sequence[str] = (),
    io_out: Sequence[str] = (),
    docs: Sequence[str] = (),
    children: Sequence[str] = (),
    content: list[Element] | None = None,
    release: int = 0,
    pending_change: bool = False,
) -> Element:
    """A main or sub process.

    ``org`` maps executedBy/responsible/contributes/informed to org unit keys, ``people``
    is (owner, author, reviewer) as user keys; products and inputs/outputs both go to
    hasInput/hasOutput.
    """
    owner, author, reviewer = people
    related = {name: _refs("org", keys) for name, keys in org.items()}
    related |= {
        "hasInput": _refs("product", products_in) + _refs("io", io_in),
        "hasOutput": _refs("product", products_out) + _refs("io", io_out),
        "guidelines": _refs("doc", docs),
        "owner": _refs("user", [owner]),
        "author": _refs("user", [author]),
        "reviewer": _refs("user", [reviewer]),
    }
    attributes: dict[str, dict[str, Any]] = {"description": _text(*description)}
    if maturity:
        attributes["processMaturity"] = {"127": maturity}
    element = _element(
        f"process:{key}", "processes", type_, de, en,
        attributes=attributes, related=related, children=[f"process:{child}" for child in children],
        release=release,
    )
    if content is not None:
        element["content"] = content
    if pending_change:
        element["pending_change"] = True
    return element


_CATEGORIES = (
    ("management", "Managementprozesse", "Management processes", ("strategy-planning", "continuous-improvement")),
    (
        "core",
        "Kernprozesse",
        "Core processes",
        ("product-development", "order-to-cash", "plan-to-produce", "procure-to-pay", "customer-service"),
    ),
    ("support", "Unterstützungsprozesse", "Support processes", ("hire-to-retire", "record-to-report",
                                                               "incident-management")),
)


def _process_house() -> list[Element]:
    house = _element(
        "process:house", "processes", "processHouse",
        "Prozesslandkarte Contoso Fertigung", "Contoso Fertigung process house",
        children=[f"process:{key}" for key, _, _, _ in _CATEGORIES],
    )
    categories = [
        _element(f"process:{key}", "processes", "subCategory", de, en,
                 children=[f"process:{child}" for child in children])
        for key, de, en, children in _CATEGORIES
    ]
    return [house, *categories]


def _sub_processes() -> list[Element]:
    return [
        _process(
            "credit-check", "subProcess", "Kreditprüfung", "Credit check",
            description=(
                "Prüft Zahlungsfähigkeit und Kreditlimit des Kunden vor der Auftragsannahme.",
                "Checks the customer's solvency and credit limit before an order is accepted.",
            ),
            org={"executedBy": ["finance"], "responsible": ["finance"], "contributes": ["sales"],
                 "informed": ["board"]},
            people=("sabine.krueger", "lena.hoffmann", "jonas.weber"),
            maturity="isLived", io_in=["customer-order"], io_out=["credit-report"], docs=["credit-policy"],
            content=_credit_check(), release=1,
        ),
        _process(
            "pick-and-pack", "subProcess", "Kommissionierung und Verpackung", "Pick and pack",
            description=("Stellt die Ware je Lieferung zusammen und verpackt sie transportsicher.",
                         "Picks the goods of a delivery and packs them for safe transport."),
            org={"executedBy": ["warehouse"], "responsible": ["warehouse"], "informed": ["sales"]},
            people=("markus.schaefer", "lena.hoffmann", "sabine.krueger"),
            products_out=["standard-gearbox", "spare-parts"], docs=["packing-guideline"],
        ),
        _process(
            "supplier-selection", "subProcess", "Lieferantenauswahl", "Supplier selection",
            description=("Holt Angebote ein und wählt den Lieferanten nach Preis, Qualität und Termin.",
                         "Requests offers and selects the supplier by price, quality and delivery date."),
            org={"executedBy": ["purchasing"], "responsible": ["purchasing"], "contributes": ["quality"]},
            people=("markus.schaefer", "lena.hoffmann", "jonas.weber"),
            io_in=["purchase-requisition"], docs=["supplier-evaluation", "purchasing-policy"],
        ),
        _process(
            "goods-receipt", "subProcess", "Wareneingang", "Goods receipt",
            description=("Nimmt Lieferungen an, prüft sie gegen die Bestellung und bucht den Wareneingang.",
                         "Accepts deliveries, checks them against the purchase order and posts the receipt."),
            org={"executedBy": ["warehouse"], "responsible": ["warehouse"], "contributes": ["quality"],
                 "informed": ["purchasing", "finance"]},
            people=("markus.schaefer", "lena.hoffmann", "sabine.krueger"),
            io_in=["purchase-order"], io_out=["goods-receipt-slip"],
        ),
        _process(
            "quality-inspection", "subProcess", "Qualitätsprüfung", "Quality inspection",
            description=("Prüft gefertigte Getriebe nach Prüfplan und dokumentiert das Ergebnis.",
                         "Inspects manufactured gearboxes against the inspection plan and records the result."),
            org={"executedBy": ["quality"], "responsible": ["quality"],
                 "contributes": ["production", "engineering"]},
            people=("sabine.krueger", "markus.schaefer", "jonas.weber"),
            maturity="isMeasured", products_in=["custom-gearbox", "standard-gearbox"],
            io_out=["inspection-report"], docs=["inspection-plan", "quality-manual"],
            content=_quality_inspection(), release=1,
        ),
        _process(
            "complaint-handling", "subProcess", "Reklamationsbearbeitung", "Complaint handling",
            description=("Erfasst Kundenreklamationen, klärt die Ursache und veranlasst Ersatz oder Gutschrift.",
                         "Records customer complaints, finds the cause and arranges replacement or credit."),
            org={"executedBy": ["customer-service"], "responsible": ["customer-service"],
                 "contributes": ["quality", "sales"]},
            people=("sabine.krueger", "lena.hoffmann", "jonas.weber"),
            products_in=["custom-gearbox", "standard-gearbox"], products_out=["spare-parts"],
            io_in=["complaint"], docs=["quality-manual"],
        ),
        _process(
            "field-maintenance", "subProcess", "Wartungseinsatz beim Kunden", "On-site maintenance",
            description=("Plant und führt vertraglich vereinbarte Wartungen an Kundenanlagen durch.",
                         "Plans and carries out contracted maintenance on customer installations."),
            org={"executedBy": ["customer-service"], "responsible": ["customer-service"],
                 "contributes": ["warehouse"]},
            people=("markus.schaefer", "lena.hoffmann", "sabine.krueger"),
            products_in=["maintenance-contract"], products_out=["repair-service", "spare-parts"],
        ),
    ]


def _main_processes() -> list[Element]:
    return [
        _process(
            "strategy-planning", "mainProcess", "Strategieplanung", "Strategy planning",
            description=(
                "Legt jährlich Unternehmensziele, Absatz-, Kapazitäts- und Personalplanung sowie das Budget fest.",
                "Sets the annual company objectives, the sales, capacity and headcount plans and the budget.",
            ),
            org={"executedBy": ["board"], "responsible": ["board"],
                 "contributes": ["sales", "production", "hr", "finance"], "informed": ["quality"]},
            people=("thomas.mueller", "markus.schaefer", "sabine.krueger"),
            maturity="defined", io_out=["strategy-paper", "budget"], docs=["planning-calendar"],
            content=_strategy_planning(), release=1,
        ),
        _process(
            "continuous-improvement", "mainProcess", "Kontinuierliche Verbesserung", "Continuous improvement",
            description=("Sammelt Verbesserungsvorschläge, bewertet sie und setzt Maßnahmen um (KVP).",
                         "Collects improvement ideas, evaluates them and implements measures (CIP)."),
            org={"executedBy": ["quality"], "responsible": ["quality"],
                 "contributes": ["production", "warehouse"], "informed": ["board"]},
            people=("sabine.krueger", "lena.hoffmann", "jonas.weber"),
            maturity="getsImproved", docs=["quality-manual"],
        ),
        _process(
            "product-development", "mainProcess", "Produktentwicklung", "Product development",
            description=("Entwickelt neue Getriebebaureihen von der Idee bis zur Serienfreigabe.",
                         "Develops new gearbox series from the idea to release for series production."),
            org={"executedBy": ["engineering"], "responsible": ["engineering"],
                 "contributes": ["production", "quality", "purchasing"], "informed": ["sales", "board"]},
            people=("thomas.mueller", "markus.schaefer", "jonas.weber"),
            products_out=["custom-gearbox", "standard-gearbox"], io_out=["bill-of-materials"],
        ),
        _process(
            "order-to-cash", "mainProcess", "Auftragsabwicklung", "Order to cash",
            description=(
                "Von der Kundenanfrage über Angebot, Kreditprüfung, Kommissionierung, Rechnung und "
                "Versand bis zum Zahlungseingang.",
                "From the customer inquiry through quotation, credit check, picking, invoicing and "
                "shipping to the incoming payment.",
            ),
            org={"executedBy": ["sales", "warehouse", "finance"], "responsible": ["sales"],
                 "contributes": ["engineering", "quality", "production"], "informed": ["board"]},
            people=("sabine.krueger", "lena.hoffmann", "jonas.weber"),
            maturity="isMeasured", products_out=["custom-gearbox", "standard-gearbox", "spare-parts"],
            io_in=["customer-inquiry", "customer-order"], io_out=["invoice", "delivery-note"],
            docs=["credit-policy", "shipping-instructions"],
            children=["credit-check", "pick-and-pack"], content=_order_to_cash(), release=2, pending_change=True,
        ),
        _process(
            "plan-to-produce", "mainProcess", "Produktionsplanung und Fertigung", "Plan to produce",
            description=("Plant Material und Kapazitäten, fertigt die Getriebe und meldet die Fertigware zurück.",
                         "Plans material and capacity, manufactures the gearboxes and confirms finished goods."),
            org={"executedBy": ["production", "warehouse"], "responsible": ["production"],
                 "contributes": ["quality", "purchasing"], "informed": ["sales"]},
            people=("thomas.mueller", "markus.schaefer", "sabine.krueger"),
            maturity="trained", products_in=["custom-gearbox"],
            products_out=["custom-gearbox", "standard-gearbox", "spare-parts"],
            io_in=["sales-forecast", "bill-of-materials"], io_out=["production-order"], docs=["quality-manual"],
            children=["quality-inspection"], content=_plan_to_produce(), release=1,
        ),
        _process(
            "procure-to-pay", "mainProcess", "Beschaffung", "Procure to pay",
            description=("Von der Bestellanforderung über Lieferantenauswahl und Wareneingang bis zur Zahlung.",
                         "From the purchase requisition through supplier selection and goods receipt to payment."),
            org={"executedBy": ["purchasing", "warehouse", "finance"], "responsible": ["purchasing"],
                 "contributes": ["quality", "production"], "informed": ["board"]},
            people=("markus.schaefer", "lena.hoffmann", "sabine.krueger"),
            maturity="isLived", products_out=["spare-parts"],
            io_in=["purchase-requisition", "supplier-invoice"], io_out=["purchase-order", "payment-advice"],
            docs=["purchasing-policy", "signature-rules"],
            children=["supplier-selection", "goods-receipt"], content=_procure_to_pay(), release=2,
        ),
        _process(
            "customer-service", "mainProcess", "Kundendienst und Wartung", "Customer service and maintenance",
            description=("Betreut Kunden nach dem Kauf: Wartungsverträge, Reparaturen und Reklamationen.",
                         "Serves customers after the sale: maintenance contracts, repairs and complaints."),
            org={"executedBy": ["customer-service"], "responsible": ["customer-service"],
                 "contributes": ["warehouse", "quality"], "informed": ["sales"]},
            people=("sabine.krueger", "lena.hoffmann", "anna.becker"),
            maturity="implemented", products_in=["maintenance-contract"],
            products_out=["repair-service", "spare-parts"], io_in=["complaint"],
            children=["complaint-handling", "field-maintenance"], release=1,
        ),
        _process(
            "hire-to-retire", "mainProcess", "Personalmanagement", "Hire to retire",
            description=("Von der Stellenanforderung über Auswahl und Vertrag bis zur Einarbeitung.",
                         "From the job requisition through selection and contract to onboarding."),
            org={"executedBy": ["hr"], "responsible": ["hr"],
                 "contributes": ["it-service-desk", "finance", "production"], "informed": ["board"]},
            people=("thomas.mueller", "lena.hoffmann", "sabine.krueger"),
            maturity="implemented", io_in=["job-requisition"], io_out=["employment-contract"],
            docs=["onboarding-checklist"], content=_hire_to_retire(), release=1,
        ),
        _process(
            "record-to-report", "mainProcess", "Finanzbuchhaltung und Abschluss", "Record to report",
            description=("Bucht Geschäftsvorfälle und erstellt Monats- und Jahresabschlüsse.",
                         "Posts business transactions and prepares the monthly and annual financial statements."),
            org={"executedBy": ["finance"], "responsible": ["finance"], "informed": ["board"]},
            people=("thomas.mueller", "markus.schaefer", "jonas.weber"),
            io_in=["invoice", "supplier-invoice"], io_out=["budget"],
        ),
        _process(
            "incident-management", "mainProcess", "IT-Störungsmanagement", "Incident management",
            description=("Stellt den IT-Betrieb nach Störungen schnellstmöglich wieder her.",
                         "Restores normal IT operation as quickly as possible after an incident."),
            org={"executedBy": ["it-service-desk", "it-operations"], "responsible": ["it-operations"],
                 "contributes": ["production"], "informed": ["board"]},
            people=("markus.schaefer", "lena.hoffmann", "anna.becker"),
            maturity="implemented", io_in=["incident-ticket"], docs=["priority-matrix"],
            content=_incident_management(),
        ),
    ]


def demo_tenant() -> list[Element]:
    """All elements of the demo tenant in creation order (see the module docstring).

    Related and content references only name elements listed earlier; ``children`` lists
    may name elements listed later. Every call builds a fresh, identical list.
    """
    return [
        *_users(),
        *_organization(),
        *_catalog("product", "products", "product", _PRODUCTS),
        *_catalog("io", "inputsoutputs", "inOut", _INPUTS_OUTPUTS),
        *_catalog("system", "it", "system", _SYSTEMS),
        *_catalog("doc", "knowledge", "knowledgeStructureDocument", _DOCUMENTS),
        *_process_house(),
        *_sub_processes(),
        *_main_processes(),
    ]
