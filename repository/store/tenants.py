"""Tenants and their bearer tokens (rows outside any one tenant's `Store`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from repository import catalog
from repository.errors import Conflict, InvalidInput, NotFound
from repository.store.generation import ContentGeneration, seed
from repository.store.models import Element, Tenant, Token

TENANT_PART = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TENANT_BY_IDS = select(Tenant).where(Tenant.collection_id == bindparam("collection_id"),
                                      Tenant.storage_id == bindparam("storage_id"))
# Every tenant request runs this one (repository/api/endpoint.py): built once, its values
# bound when it runs, run on the connection for plain rows (building it anew, or loading
# ORM objects, cost more than the statement itself).
_TOKEN_AND_ITS_TENANT = (
    select(Token.tenant_pk, Token.role, Token.element_pk, Token.expires_at, Token.revoked_at,
           Tenant.collection_id, Tenant.storage_id, Tenant.default_culture)
    .join(Tenant, Tenant.pk == Token.tenant_pk)
    .where(Token.token_hash == bindparam("token_hash")))


@dataclass(frozen=True, slots=True)
class TokenGrant:
    """A token found by its hash: the tenant it belongs to (a detached copy, for reading
    its ids and default culture), its role, its actor element, and when it stops being
    usable (`now_timestamp` text; None: never)."""
    tenant: Tenant
    role: str
    element_pk: int
    expires_at: str | None
    revoked_at: str | None

    def usable_at(self, now: str) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """What `elrepo token list` shows of a token (never the token, nor its hash). `id`
    is its authToken element's id, the one changedBy / createdBy name."""
    id: str
    name: str
    role: str
    created_at: str | None
    expires_at: str | None
    revoked_at: str | None


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


def find_token(session: Session, token_hash: str) -> TokenGrant | None:
    """The token of this hash with its tenant, in one statement; None: no such token.
    Whether it may still be used is the caller's question (`TokenGrant.usable_at`)."""
    row = session.connection().execute(_TOKEN_AND_ITS_TENANT,
                                       {"token_hash": token_hash}).first()
    if row is None:
        return None
    tenant = Tenant(pk=row.tenant_pk, collection_id=row.collection_id,
                    storage_id=row.storage_id, default_culture=row.default_culture)
    return TokenGrant(tenant, row.role, row.element_pk, row.expires_at, row.revoked_at)


def list_tokens(session: Session, tenant: Tenant) -> list[TokenRecord]:
    """The tenant's tokens, oldest first."""
    rows = session.execute(
        select(Element.id, Token.name, Token.role, Token.created_at, Token.expires_at,
               Token.revoked_at)
        .join(Element, Element.pk == Token.element_pk)
        .where(Token.tenant_pk == tenant.pk).order_by(Token.pk))
    return [TokenRecord(*row) for row in rows]


def revoke_token(session: Session, tenant: Tenant, now: str, *, name: str | None = None,
                 element_id: str | None = None) -> TokenRecord:
    """Revokes the tenant's one unrevoked token of this name or authToken id (exactly
    one of them given) at `now`; 404 when there is none, 409 when a name is shared (the
    id tells them apart)."""
    if (name is None) == (element_id is None):
        raise ValueError("name or element_id, exactly one")
    query = (select(Token, Element.id).join(Element, Element.pk == Token.element_pk)
             .where(Token.tenant_pk == tenant.pk, Token.revoked_at.is_(None))
             .order_by(Token.pk))
    query = query.where(Token.name == name) if name is not None else query.where(
        Element.id == element_id)
    found = session.execute(query).all()
    described = f"named {name!r}" if name is not None else f"with id {element_id!r}"
    if not found:
        raise NotFound(f"No unrevoked token {described} in {tenant.collection_id}/"
                       f"{tenant.storage_id}")
    if len(found) > 1:
        raise Conflict(f"{len(found)} tokens are {described}; revoke one by its id "
                       f"({', '.join(found_id for _, found_id in found)})")
    token, token_id = found[0]
    token.revoked_at = now
    session.flush()
    return TokenRecord(token_id, token.name, token.role, token.created_at, token.expires_at,
                       token.revoked_at)


def add_token(session: Session, tenant: Tenant, token_hash: str, role: str, name: str,
              actor: Element, *, created_at: str | None = None,
              expires_at: str | None = None) -> None:
    """Record a token (by its hash) acting as `actor`, its authToken element."""
    session.add(Token(tenant_pk=tenant.pk, token_hash=token_hash, role=role, name=name,
                      element_pk=actor.pk, created_at=created_at, expires_at=expires_at))
    session.flush()
