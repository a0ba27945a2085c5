"""A small tenant in the demo data format (repository/demo_data.py): small enough to
load for every test, rich enough for every endpoint (hierarchy, a diagram with a XOR
gateway and a loop, versioned elements with a release history, users per role)."""

from __future__ import annotations

from typing import Any

HOUSE = "ph"
CATEGORY = "cat-core"
ORDER = "mp-order"
HIRE = "mp-hire"
CREDIT = "sp-credit"
SALES = "org-sales"
FINANCE = "org-finance"
BIKE = "p-bike"
ERP = "sys-erp"
DRAFT = "mp-draft"
STANDIN_WEBHOOK = "standin-webhook"  # a webhook of demo/default (conftest.prepare)


def _names(de: str, en: str) -> dict[str, dict[str, str]]:
    return {"name": {"1031": de, "1033": en}}


def _shape(index: int, type_: str, en: str, predecessors: list[int],
           org: str | None = SALES) -> dict[str, Any]:
    related = {"executedBy": [{"id": org}]} if org else {}
    return {"shapeInfo": {"index": index, "predecessors": predecessors},
            "element": {"type": type_, "attributes": _names(en.upper(), en), "related": related}}


def _user(key: str, name: str, role_flag: str) -> dict[str, Any]:
    return {"id": key, "facetName": "users", "type": "user",
            "attributes": {**_names(name, name), role_flag: {"127": True}}}


ORDER_CONTENT = [
    _shape(0, "evStart", "Order received", []),
    _shape(1, "task", "Check order", [0, 3]),
    _shape(2, "ruleXor", "Order complete?", [1]),
    _shape(3, "task", "Complete order", [2], org=None),
    {"shapeInfo": {"index": 4, "predecessors": [2]}, "element": {"id": CREDIT}},
    _shape(5, "task", "Ship goods", [4], org=FINANCE),
    _shape(6, "evEnd", "Order fulfilled", [5]),
]


def standin_tenant() -> list[dict[str, Any]]:
    return [
        _user("u-approver", "Alice Approver", "roleApprover"),
        _user("u-viewer", "Victor Viewer", "roleViewer"),
        {"id": SALES, "facetName": "organization", "type": "orgUnit",
         "attributes": _names("Vertrieb", "Sales"), "release": 1},
        {"id": FINANCE, "facetName": "organization", "type": "orgUnit",
         "attributes": _names("Finanzen", "Finance")},
        {"id": BIKE, "facetName": "products", "type": "product",
         "attributes": _names("Fahrrad", "Bike")},
        {"id": ERP, "facetName": "it", "type": "system", "attributes": _names("ERP", "ERP")},
        {"id": HOUSE, "facetName": "processes", "type": "processHouse",
         "attributes": _names("Prozesshaus", "Process house"), "children": [{"id": CATEGORY}]},
        {"id": CATEGORY, "facetName": "processes", "type": "subCategory",
         "attributes": _names("Kernprozesse", "Core processes"),
         "children": [{"id": ORDER}, {"id": HIRE}]},
        {"id": CREDIT, "facetName": "processes", "type": "subProcess",
         "attributes": _names("Bonitätsprüfung", "Credit check")},
        {"id": ORDER, "facetName": "processes", "type": "mainProcess",
         "attributes": {**_names("Auftragsabwicklung", "Order to cash"),
                        "processMaturity": {"127": "defined"}, "priority": {"127": 3}},
         "related": {"executedBy": [{"id": SALES}], "hasOutput": [{"id": BIKE}],
                     "usesSystem": [{"id": ERP}]},
         "content": ORDER_CONTENT, "release": 1},
        {"id": HIRE, "facetName": "processes", "type": "mainProcess",
         "attributes": {**_names("Personal einstellen", "Hire to retire"),
                        "priority": {"127": 7}},
         "release": 2, "pending_change": True},
        {"id": DRAFT, "facetName": "processes", "type": "mainProcess",
         "attributes": _names("Entwurf", "Draft process")},
    ]
