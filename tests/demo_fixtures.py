"""The demo tenant's diagrams as render fixtures (CONTRACT §7), without a database.

``demo_fixture(key)`` turns one element of ``repository.demo_data.demo_tenant()`` into
``{"diagram", "elements", "values"}`` the way the store's exporter does: ``values`` is
the element's content, ``elements`` the elements under it (children, recursively) and
every element that the diagram, its shapes' elements or those descendants reference
(one level, ``related`` and ``children``), each once, in tenant order.
"""
from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from repository.demo_data import demo_id, demo_tenant

#: Readable keys of the demo elements that carry a diagram (content).
DIAGRAM_KEYS = ("credit-check", "quality-inspection", "strategy-planning", "order-to-cash", "plan-to-produce",
                "procure-to-pay", "hire-to-retire", "incident-management")
#: Keys of elements without content that still render (graphic, matrices).
HIERARCHY_KEYS = ("house", "core")

_STORE_ONLY = ("content", "release", "pending_change")


def demo_fixture(key: str) -> dict[str, Any]:
    """The fixture of the demo element ``process:<key>``."""
    tenant = {element["id"]: element for element in demo_tenant()}
    diagram = tenant[demo_id(f"process:{key}")]
    values = copy.deepcopy(diagram.get("content") or [])
    described = [diagram, *_descendants(diagram, tenant)]
    described += [tenant[item["element"]["id"]] for item in values
                  if "type" not in item["element"] and item["element"].get("id") in tenant]
    wanted = {element["id"] for element in described[1:]}
    for source in [*described, *(item["element"] for item in values)]:
        wanted.update(ref for ref in _references(source) if ref in tenant)
    wanted.discard(diagram["id"])
    return {
        "diagram": _plain(diagram),
        "elements": [_plain(element) for element in tenant.values() if element["id"] in wanted],
        "values": values,
    }


def demo_fixtures() -> dict[str, dict[str, Any]]:
    """Every demo diagram and hierarchy element by key."""
    return {key: demo_fixture(key) for key in (*DIAGRAM_KEYS, *HIERARCHY_KEYS)}


def _descendants(root: dict[str, Any], tenant: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Children recursively, breadth first, each once."""
    found: list[dict[str, Any]] = []
    seen = {root["id"]}
    frontier = [root]
    while frontier:
        next_frontier = []
        for element in frontier:
            for child in element.get("children", []):
                if child["id"] in tenant and child["id"] not in seen:
                    seen.add(child["id"])
                    next_frontier.append(tenant[child["id"]])
        found += next_frontier
        frontier = next_frontier
    return found


def _references(element: dict[str, Any]) -> Iterable[str]:
    for refs in (element.get("related") or {}).values():
        yield from (ref["id"] for ref in refs)
    yield from (child["id"] for child in element.get("children") or [])


def _plain(element: dict[str, Any]) -> dict[str, Any]:
    """The element as a fixture holds it: no content, no release bookkeeping."""
    return {k: copy.deepcopy(v) for k, v in element.items() if k not in _STORE_ONLY}
