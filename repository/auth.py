"""Tenants' bearer tokens and the role → permission table (docs/contract.md,
"Authentication and permissions").

A token is shown once; only its SHA-256 is stored. Each token is an `authToken` element
of facet `automation`, which is what appears in createdBy / changedBy.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass

from sqlalchemy.orm import Session

from repository.errors import Forbidden, InvalidInput, Unauthenticated
from repository.store import Store, add_token, token_and_tenant
from repository.store.models import Tenant
from repository.wire import ElementInput

SHOW = "ShowElement"
OPEN = "OpenElement"
NEW = "NewElement"
EDIT = "EditElement"
DELETE = "DeleteElement"
APPROVE = "ApproveElement"

_READ = (SHOW, OPEN)
_WRITE = _READ + (NEW, EDIT, DELETE)
ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    "viewer": frozenset(_READ),
    "analyzer": frozenset(_READ),
    "editor": frozenset(_WRITE),
    "architect": frozenset(_WRITE),
    "approver": frozenset(_READ + (APPROVE,)),
    "administrator": frozenset(_WRITE + (APPROVE,)),
}
# The order the info endpoint reports them in (the seed's order).
PERMISSION_ORDER = (NEW, EDIT, DELETE, SHOW, APPROVE, OPEN)
SERVICE_TOKEN_ENV = "ELREPO_SERVICE_AUTH_TOKEN"


@dataclass(frozen=True, slots=True)
class Caller:
    tenant_pk: int
    role: str
    actor_pk: int  # the authToken element

    @property
    def permissions(self) -> frozenset[str]:
        return ROLE_PERMISSIONS[self.role]

    def require(self, permission: str) -> None:
        if permission not in self.permissions:
            raise Forbidden(f"The role {self.role!r} lacks the permission {permission}")

    def check_tenant(self, tenant: Tenant) -> None:
        """403 before anything of another tenant is read."""
        if tenant.pk != self.tenant_pk:
            raise Forbidden("This token belongs to another tenant")

    def ordered_permissions(self) -> list[str]:
        return [p for p in PERMISSION_ORDER if p in self.permissions]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, tenant: Tenant, role: str, name: str | None = None) -> str:
    """A new bearer token for the tenant; returns the plain token (shown only once)."""
    if role not in ROLE_PERMISSIONS:
        raise InvalidInput(f"Unknown role {role!r}; roles: {', '.join(ROLE_PERMISSIONS)}")
    token = secrets.token_urlsafe(32)
    label = name or f"{role} token"
    actor = Store(session, tenant).create("automation", ElementInput(
        id=None, version_id=None, type="authToken", facet="automation",
        attributes={"name": {127: label}, "role": {127: role}},
        related=None, children=None, content=None), actor_pk=None)
    add_token(session, tenant, hash_token(token), role, label, actor)
    return token


def authenticate(session: Session, authorization: str | None, collection_id: str,
                 storage_id: str) -> tuple[Caller, Tenant | None]:
    """The caller behind `Authorization: Bearer <token>` (else 401), and the tenant of
    these ids (None when there is none), read together."""
    token = _bearer(authorization)
    found = token_and_tenant(session, hash_token(token), collection_id, storage_id)
    if found is None:
        raise Unauthenticated("Unknown or revoked bearer token")
    grant, tenant = found
    return Caller(tenant_pk=grant.tenant_pk, role=grant.role, actor_pk=grant.element_pk), tenant


def check_service_token(presented: str | None) -> None:
    """Maintenance: the header must equal ELREPO_SERVICE_AUTH_TOKEN (unset: nobody).
    Service tokens are ASCII, like bearer tokens; compared as bytes because compare_digest
    raises on non-ASCII text (os.environ may hold undecodable bytes as escapes)."""
    expected = os.environ.get(SERVICE_TOKEN_ENV)
    if not expected or not presented or not presented.isascii() or not hmac.compare_digest(
            presented.encode(), expected.encode("utf-8", "surrogateescape")):
        raise Unauthenticated("A valid service-auth-token header is required")


def _bearer(authorization: str | None) -> str:
    """Issued tokens are ASCII (token_urlsafe), so other text is no token of ours."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("Send 'Authorization: Bearer <token>'")
    if not token.isascii():
        raise Unauthenticated("Unknown or revoked bearer token")
    return token.strip()
