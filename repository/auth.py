"""Tenants' bearer tokens and the role → permission table (docs/contract.md,
"Authentication and permissions").

A token is shown once; only its SHA-256 is stored. Each token is an `authToken` element
of facet `automation`, which is what appears in createdBy / changedBy. A token may expire
and may be revoked (`elrepo token revoke`); either way it is then an unknown token (401).

The maintenance token (`service-auth-token`) is one secret for the whole service, so it
is the one worth guessing: `ServiceTokenGuard` stops answering guesses after a few wrong
ones (docs/reliability.md, "Front door (issue 18)").
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from repository.errors import Forbidden, InvalidInput, TooManyRequests, Unauthenticated
from repository.input_rules import check_text
from repository.store import Store, add_token, find_token, now_timestamp
from repository.store.models import Tenant
from repository.wire import ElementInput

SHOW = "ShowElement"
OPEN = "OpenElement"
NEW = "NewElement"
EDIT = "EditElement"
DELETE = "DeleteElement"
APPROVE = "ApproveElement"
# Not one of the seed's element permissions (the info endpoint does not report it): who
# registers, lists and removes a tenant's webhooks, which see every change of the tenant.
MANAGE_WEBHOOKS = "ManageWebhooks"

_READ = (SHOW, OPEN)
_WRITE = _READ + (NEW, EDIT, DELETE)
ROLE_PERMISSIONS: dict[str, frozenset[str]] = {
    "viewer": frozenset(_READ),
    "analyzer": frozenset(_READ),
    "editor": frozenset(_WRITE),
    "architect": frozenset(_WRITE),
    "approver": frozenset(_READ + (APPROVE,)),
    "administrator": frozenset(_WRITE + (APPROVE, MANAGE_WEBHOOKS)),
}
# The order the info endpoint reports them in (the seed's order).
PERMISSION_ORDER = (NEW, EDIT, DELETE, SHOW, APPROVE, OPEN)
#: `elrepo serve` refuses a shorter maintenance token: it is guessed against the service.
MIN_SERVICE_TOKEN_LENGTH = 16
UNKNOWN_TOKEN = "Unknown, expired or revoked bearer token"
MAX_EXPIRY_DAYS = 36_500  # `--expires-in`: a hundred years is "never" written as a date


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

    def ordered_permissions(self) -> list[str]:
        return [p for p in PERMISSION_ORDER if p in self.permissions]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, tenant: Tenant, role: str, name: str | None = None, *,
                 expires_in_days: float | None = None) -> str:
    """A new bearer token for the tenant; returns the plain token (shown only once).
    With `expires_in_days` it is refused (401) from then on."""
    if role not in ROLE_PERMISSIONS:
        raise InvalidInput(f"Unknown role {role!r}; roles: {', '.join(ROLE_PERMISSIONS)}")
    if expires_in_days is not None and not (math.isfinite(expires_in_days)
                                            and 0 < expires_in_days <= MAX_EXPIRY_DAYS):
        raise InvalidInput(f"A token expires in more than 0 and at most {MAX_EXPIRY_DAYS} "
                           f"days, not {expires_in_days:g}")
    created = now_timestamp()
    expires = None if expires_in_days is None else (
        datetime.fromisoformat(created) + timedelta(days=expires_in_days)).isoformat(
        timespec="seconds")
    label = name or f"{role} token"
    check_text(label, "A token name")  # it becomes an element's name, drawn and exported
    token = secrets.token_urlsafe(32)
    actor = Store(session, tenant).writes.create("automation", ElementInput(
        id=None, version_id=None, type="authToken", facet="automation",
        attributes={"name": {127: label}, "role": {127: role}},
        related=None, children=None, content=None), actor_pk=None)
    add_token(session, tenant, hash_token(token), role, label, actor, created_at=created,
              expires_at=expires)
    return token


def authorise(session: Session, authorization: str | None, collection_id: str,
              storage_id: str, permission: str) -> tuple[Caller, Tenant]:
    """The caller behind `Authorization: Bearer <token>` and its tenant, in the contract's
    order: 401 unless the token is known, unexpired and unrevoked; 403 unless it belongs
    to the tenant of these ids; 403 unless its role has `permission`.

    A token of another tenant gets the same 403 whether the tenant it names exists or
    not: the answer tells a token's holder nothing about other tenants. Only the token's
    own row and its tenant are read (one statement), nothing of the tenant named."""
    token = _bearer(authorization)
    grant = find_token(session, hash_token(token))
    if grant is None or not grant.usable_at(now_timestamp()):
        raise Unauthenticated(UNKNOWN_TOKEN)
    tenant = grant.tenant
    if (tenant.collection_id, tenant.storage_id) != (collection_id, storage_id):
        raise Forbidden("This token does not belong to this tenant")
    caller = Caller(tenant_pk=tenant.pk, role=grant.role, actor_pk=grant.element_pk)
    caller.require(permission)
    return caller, tenant


class ServiceTokenGuard:
    """Checks the maintenance token and makes guessing it useless. Once `free_failures`
    wrong tokens arrived (from anywhere) within `window` seconds, every maintenance
    request, the right token's too, answers 429 with Retry-After until the oldest of
    them is `window` seconds old: no request waits, no thread is held, and a guesser
    gets `free_failures` tries per window per worker process. The right token never
    tells apart a locked window from a wrong guess, so a locked window must refuse it
    too; the administrator waits at most `window` seconds after the guessing stops."""

    def __init__(self, expected: str | None, free_failures: int = 5, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.expected = expected
        self.free_failures = free_failures
        self.window = window
        self._clock = clock
        self._failures: deque[float] = deque()  # when each recent wrong token came
        self._lock = threading.Lock()

    def check(self, presented: str | None) -> None:
        """Maintenance: the header must equal the service token (None: nobody).
        Service tokens are ASCII, like bearer tokens; compared as bytes because
        compare_digest raises on non-ASCII text (the environment may hold undecodable
        bytes as escapes)."""
        with self._lock:
            now = self._clock()
            while self._failures and self._failures[0] <= now - self.window:
                self._failures.popleft()
            if len(self._failures) >= self.free_failures:
                wait = self._failures[0] + self.window - now
                raise TooManyRequests(
                    f"Too many wrong service-auth-token headers; maintenance is refused "
                    f"for {math.ceil(wait)} s", retry_after=max(1, math.ceil(wait)))
            if _is_service_token(presented, self.expected):
                return
            self._failures.append(now)
        raise Unauthenticated("A valid service-auth-token header is required")


def _is_service_token(presented: str | None, expected: str | None) -> bool:
    return bool(expected and presented and presented.isascii() and hmac.compare_digest(
        presented.encode(), expected.encode("utf-8", "surrogateescape")))


def _bearer(authorization: str | None) -> str:
    """Issued tokens are ASCII (token_urlsafe), so other text is no token of ours."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("Send 'Authorization: Bearer <token>'")
    if not token.isascii():
        raise Unauthenticated(UNKNOWN_TOKEN)
    return token.strip()
