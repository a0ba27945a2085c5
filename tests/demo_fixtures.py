"""The demo tenant's diagrams as render fixtures, exported by the store itself.

The demo tenant (``repository.demo_data.demo_tenant()``) is loaded once per test session
into an in-memory SQLite database by the demo loader, and ``demo_fixture(key)`` is what
the store's exporter (``repository.fixtures.diagram_fixture``, the render endpoint's input)
makes of the element ``process:<key>``. Two things of the load are made stable, so that
goldens can hold the pictures:

- ids the store draws at random become the renderer's own name for a shape without an
  id, ``shape-<index>``: each shape's id and the id of the element its content created;
- the store's bookkeeping (``catalog.SERVER_ATTRIBUTES`` and ``SERVER_RELATED``: when
  and by whom the load wrote each element, and its release state) is dropped with the
  demo loader's own token, the one element the demo data does not hold.
"""
from __future__ import annotations

import copy
import functools
from typing import Any

from sqlalchemy.orm import Session

from repository import catalog
from repository.demo import load_demo
from repository.demo_data import demo_id, demo_tenant
from repository.fixtures import diagram_fixture
from repository.store import Store
from repository.store.db import create_schema, make_engine

#: Readable keys of the demo elements that carry a diagram (content).
DIAGRAM_KEYS = ("credit-check", "quality-inspection", "strategy-planning", "order-to-cash", "plan-to-produce",
                "procure-to-pay", "hire-to-retire", "incident-management")
#: Keys of elements without content that still render (graphic, matrices).
HIERARCHY_KEYS = ("house", "core")


def demo_fixture(key: str) -> dict[str, Any]:
    """The fixture of the demo element ``process:<key>`` (a copy of its own)."""
    return copy.deepcopy(_exported()[key])


def demo_fixtures() -> dict[str, dict[str, Any]]:
    """Every demo diagram and hierarchy element by key."""
    return {key: demo_fixture(key) for key in (*DIAGRAM_KEYS, *HIERARCHY_KEYS)}


@functools.cache
def _exported() -> dict[str, dict[str, Any]]:
    engine = make_engine("sqlite://")
    create_schema(engine)
    try:
        with Session(engine) as session:
            store = Store(session, load_demo(session))
            demo_ids = frozenset(element["id"] for element in demo_tenant())
            return {key: _stable(diagram_fixture(store, store.reads.element(demo_id(f"process:{key}"))), demo_ids)
                    for key in (*DIAGRAM_KEYS, *HIERARCHY_KEYS)}
    finally:
        engine.dispose()


def _stable(fixture: dict[str, Any], demo_ids: frozenset[str]) -> dict[str, Any]:
    """``fixture`` without the store's random ids and bookkeeping (see the module docstring)."""
    renamed: dict[str, str] = {}
    for item in fixture["values"]:
        info = item["shapeInfo"]
        stable = f"shape-{info['index']}"
        renamed[info.pop("id")] = stable
        if item["element"]["id"] not in demo_ids:
            renamed[item["element"]["id"]] = stable

    def content_of(element: dict[str, Any]) -> dict[str, Any]:
        return {
            **element,
            "id": renamed.get(element["id"], element["id"]),
            "attributes": {name: values for name, values in element["attributes"].items()
                           if name not in catalog.SERVER_ATTRIBUTES},
            "related": {context: [{"id": renamed.get(ref["id"], ref["id"])} for ref in refs]
                        for context, refs in element["related"].items()
                        if context not in catalog.SERVER_RELATED},
        }

    return {
        "diagram": content_of(fixture["diagram"]),
        "elements": [content_of(element) for element in fixture["elements"] if element["id"] in demo_ids],
        "values": [{**item, "element": content_of(item["element"])} for item in fixture["values"]],
    }
