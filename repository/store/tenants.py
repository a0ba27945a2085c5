"""Tenants and their bearer tokens (rows outside any one tenant's `Store`)."""

from __future__ import annotations

import re

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from repository import catalog
from repository.errors import Conflict, InvalidInput
from repository.store.generation import ContentGeneration, seed
from repository.store.models import Element, Tenant, Token

TENANT_PART = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Every tenant request runs both (repository/api/endpoint.py): built once, their values
# bound when they run (building them anew cost as much as running them).
_TENANT_BY_IDS = select(Tenant).where(Tenant.collection_id == bindparam("collection_id"),
                                      Tenant.storage_id == bindparam("storage_id"))
_TOKEN_BY_HASH = select(Token).where(Token.token_hash == bindparam("token_hash"))


def find_tenant(session: Session, collection_id: str, storage_id: str) -> Tenant | None:
    return session.scalar(_TENANT_BY_IDS, {"collection_id": collection_id,
                                           "storage_id": storage_id})


def create_tenant(session: Session, collection_id: str, storage_id: str) -> Tenant:
    for part in (collection_id, storage_id):
        # No dots: the maintenance pool id is `<collection>.<storage>` and must be unique.
        if not TENANT_PART.match(part):
            raise InvalidInput(f"Tenant ids use letters, digits, '_' and '-' (at most 64): "
                               f"{part!r}")
    if find_tenant(session, collection_id, storage_id) is not None:
        raise Conflict(f"Tenant {collection_id}/{storage_id} already exists")
    tenant = Tenant(collection_id=collection_id, storage_id=storage_id,
                    default_culture=catalog.ENGLISH)
    session.add(tenant)
    session.flush()
    # Seeded from the clock, so a tenant's render keys never repeat another database's,
    # even before its first write (docs/service.md, "Render cache").
    session.add(ContentGeneration(tenant_pk=tenant.pk, generation=seed()))
    session.flush()
    return tenant


def all_tenants(session: Session) -> list[Tenant]:
    """Every tenant, oldest first."""
    return list(session.scalars(select(Tenant).order_by(Tenant.pk)))


def has_elements(session: Session) -> bool:
    """Whether any tenant holds an element."""
    return session.scalar(select(Element.pk).limit(1)) is not None


def find_token(session: Session, token_hash: str) -> Token | None:
    return session.scalar(_TOKEN_BY_HASH, {"token_hash": token_hash})


def add_token(session: Session, tenant: Tenant, token_hash: str, role: str, name: str,
              actor: Element) -> None:
    """Record a token (by its hash) acting as `actor`, its authToken element."""
    session.add(Token(tenant_pk=tenant.pk, token_hash=token_hash, role=role, name=name,
                      element_pk=actor.pk))
    session.flush()
