"""Loading the demo tenant (`demo/default`) through the store, so every demo element
gets the versions, states, server attributes and release history a real one would.

The content itself is plain data in repository/demo_data.py (`demo_tenant()`); see its
docstring for the format (`release` count and `pending_change` included).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from repository import auth, release
from repository.store import Store, create_tenant, has_elements
from repository.store.models import Element, Tenant
from repository.wire import ElementInput, parse_content_body, parse_element

DEMO_COLLECTION = "demo"
DEMO_STORAGE = "default"
_RELEASE = release.find("InProcessToReleased")


def load_demo(session: Session, collection: str = DEMO_COLLECTION,
              storage: str = DEMO_STORAGE,
              elements: Sequence[dict[str, Any]] | None = None) -> Tenant:
    """Create the tenant and its elements; the caller commits."""
    if elements is None:
        from repository.demo_data import demo_tenant
        elements = demo_tenant()
    tenant = create_tenant(session, collection, storage)
    store = Store(session, tenant)
    loader = store.writes.create("automation", _actor_input(), actor_pk=None)
    parsed = [(raw, parse_element(_without_extras(raw), raw.get("id", "?"))) for raw in elements]
    # Related references only name earlier elements; children and content may name later
    # ones, so they are set once everything exists.
    for _, data in parsed:
        store.writes.create(data.facet or "", _attributes_and_related(data), loader.pk,
                            element_id=data.id)
    for raw, data in parsed:
        element = store.reads.element(data.id or "")
        if data.children:
            store.writes.update(element, _only_children(data), loader.pk)
        if raw.get("content"):
            items = parse_content_body({"values": raw["content"]})
            store.writes.append_content(element, items, loader.pk)
    for raw, data in parsed:
        _release(store, store.reads.element(data.id or ""), int(raw.get("release") or 0),
                 bool(raw.get("pending_change")), loader.pk)
    return tenant


def create_role_tokens(session: Session, tenant: Tenant) -> dict[str, str]:
    """One bearer token per role (named after it), e.g. for tests and first steps."""
    return {role: auth.create_token(session, tenant, role, f"demo {role}")
            for role in auth.ROLE_PERMISSIONS}


def is_empty(session: Session) -> bool:
    return not has_elements(session)


def _release(store: Store, element: Element, times: int, pending_change: bool,
             actor_pk: int) -> None:
    """Release `times` times, revising in between; optionally leave a revision open."""
    for revision in range(times):
        if revision > 0:
            store.writes.update(element, _revision_input(revision), actor_pk)
        store.releases.transition(element, _RELEASE, actor_pk)
    if pending_change and times > 0:
        store.writes.update(element, _revision_input(times), actor_pk)


def _revision_input(number: int) -> ElementInput:
    return ElementInput(
        id=None, version_id=None, type=None, facet=None,
        attributes={"reasonForRevision": {1031: f"Überarbeitung {number}",
                                          1033: f"Revision {number}"}},
        related=None, children=None, content=None)


def _actor_input() -> ElementInput:
    return ElementInput(id=None, version_id=None, type="authToken", facet="automation",
                        attributes={"name": {127: "Demo loader"}}, related=None,
                        children=None, content=None)


def _without_extras(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in raw.items()
            if k not in ("content", "children", "release", "pending_change")} | {
        "children": raw.get("children") or None}


def _attributes_and_related(data: ElementInput) -> ElementInput:
    return ElementInput(id=data.id, version_id=None, type=data.type, facet=data.facet,
                        attributes=data.attributes, related=data.related, children=None,
                        content=None)


def _only_children(data: ElementInput) -> ElementInput:
    return ElementInput(id=None, version_id=None, type=None, facet=None, attributes={},
                        related=None, children=data.children, content=None)
