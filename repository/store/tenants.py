"""Tenants and their bearer tokens (rows outside any one tenant's `Store`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import and_, bindparam, select
from sqlalchemy.orm import Session

from repository import catalog
from repository.errors import Conflict, InvalidInput
from repository.store.generation import ContentGeneration, seed
from repository.store.models import Element, Tenant, Token

TENANT_PART = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TENANT_BY_IDS = select(Tenant).where(Tenant.collection_id == bindparam("collection_id"),
                                      Tenant.storage_id == bindparam("storage_id"))
# Every tenant request runs this one (repository/api/endpoint.py): built once, its values
# bound when it runs, run on the connection for plain rows (building it anew, or loading
# ORM objects, cost more than the statement itself).
_TOKEN_AND_TENANT = (
    select(Token.tenant_pk, Token.role, Token.element_pk, Tenant.pk.label("named_tenant_pk"),
           Tenant.collection_id, Tenant.storage_id, Tenant.default_culture)
    .outerjoin(Tenant, and_(Tenant.collection_id == bindparam("collection_id"),
                            Tenant.storage_id == bindparam("storage_id")))
    .where(Token.token_hash == bindparam("token_hash")))


@dataclass(frozen=True, slots=True)
class TokenGrant:
    """A token found by its hash: the tenant it belongs to, its role, its actor element."""
    tenant_pk: int
    role: str
    element_pk: int


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


def token_and_tenant(session: Session, token_hash: str, collection_id: str,
                     storage_id: str) -> tuple[TokenGrant, Tenant | None] | None:
    """In one statement: the token of this hash (None: no such token) and the tenant of
    these ids (None: no such tenant), so a request learns both in one round trip and
    still refuses in the contract's order (token, then tenant). The tenant is a detached
    copy for reading its ids and default culture; nothing of a request writes it."""
    row = session.connection().execute(_TOKEN_AND_TENANT, {
        "token_hash": token_hash, "collection_id": collection_id,
        "storage_id": storage_id}).first()
    if row is None:
        return None
    grant = TokenGrant(row.tenant_pk, row.role, row.element_pk)
    if row.named_tenant_pk is None:
        return grant, None
    return grant, Tenant(pk=row.named_tenant_pk, collection_id=row.collection_id,
                         storage_id=row.storage_id, default_culture=row.default_culture)


def add_token(session: Session, tenant: Tenant, token_hash: str, role: str, name: str,
              actor: Element) -> None:
    """Record a token (by its hash) acting as `actor`, its authToken element."""
    session.add(Token(tenant_pk=tenant.pk, token_hash=token_hash, role=role, name=name,
                      element_pk=actor.pk))
    session.flush()
