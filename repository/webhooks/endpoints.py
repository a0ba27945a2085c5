"""The endpoints' rows (`webhook_endpoints`) and the delivery log (`webhook_deliveries`):
what the API registers, lists and removes, and what it shows of past deliveries. Every
function takes the tenant: an endpoint of another tenant is not found."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from repository.errors import Conflict, NotFound
from repository.store import now_timestamp
from repository.store.models import WebhookDelivery, WebhookEndpoint
from repository.webhooks.signing import new_secret

MAX_ENDPOINTS_PER_TENANT = 20
MAX_TYPES = 50
MAX_TYPE_LENGTH = 128
LOG_LENGTH = 100  # delivery log rows kept per endpoint, the newest


def register(session: Session, tenant_pk: int, url: str, types: list[str],
             start_after: int) -> WebhookEndpoint:
    """A new endpoint with a new secret, delivering the events after sequence
    `start_after` (the feed's newest now: it starts with the next change)."""
    count = session.scalar(select(func.count()).select_from(WebhookEndpoint).where(
        WebhookEndpoint.tenant_pk == tenant_pk)) or 0
    if count >= MAX_ENDPOINTS_PER_TENANT:
        raise Conflict(f"A tenant has at most {MAX_ENDPOINTS_PER_TENANT} webhooks; "
                           "remove one first")
    endpoint = WebhookEndpoint(
        tenant_pk=tenant_pk, id=str(uuid.uuid4()), url=url, types=json.dumps(types),
        secret=new_secret(), created_at=now_timestamp(), enabled=True, cursor=start_after,
        next_attempt_at=0.0)
    session.add(endpoint)
    session.flush()
    return endpoint


def listed(session: Session, tenant_pk: int) -> list[WebhookEndpoint]:
    return list(session.scalars(select(WebhookEndpoint).where(
        WebhookEndpoint.tenant_pk == tenant_pk).order_by(WebhookEndpoint.pk)))


def find(session: Session, tenant_pk: int, endpoint_id: str) -> WebhookEndpoint:
    endpoint = session.scalar(select(WebhookEndpoint).where(
        WebhookEndpoint.tenant_pk == tenant_pk, WebhookEndpoint.id == endpoint_id))
    if endpoint is None:
        raise NotFound(f"Webhook {endpoint_id!r} not found")
    return endpoint


def remove(session: Session, tenant_pk: int, endpoint_id: str) -> WebhookEndpoint:
    endpoint = find(session, tenant_pk, endpoint_id)
    session.execute(delete(WebhookDelivery).where(WebhookDelivery.endpoint_pk == endpoint.pk))
    session.delete(endpoint)
    session.flush()
    return endpoint


def wanted_types(endpoint: WebhookEndpoint) -> frozenset[str]:
    """The event types the endpoint asked for; empty: all."""
    return frozenset(json.loads(endpoint.types))


def describe(endpoint: WebhookEndpoint, *, with_secret: bool = False) -> dict[str, Any]:
    """The endpoint as the API shows it; its secret only in the answer that created it."""
    shown: dict[str, Any] = {
        "id": endpoint.id, "url": endpoint.url, "types": json.loads(endpoint.types),
        "createdAt": endpoint.created_at, "enabled": endpoint.enabled,
        "disabledReason": endpoint.disabled_reason,
        "failingSince": _time(endpoint.failing_since)}
    if with_secret:
        shown["secret"] = endpoint.secret
    return shown


def delivery_log(session: Session, endpoint: WebhookEndpoint) -> list[dict[str, Any]]:
    """The endpoint's recent deliveries, newest first."""
    rows = session.scalars(select(WebhookDelivery).where(
        WebhookDelivery.endpoint_pk == endpoint.pk).order_by(
        WebhookDelivery.sequence.desc()).limit(LOG_LENGTH))
    return [{"eventId": row.event_id, "type": row.event_type, "sequence": row.sequence,
             "status": row.status, "attempts": row.attempts, "lastStatus": row.last_status,
             "lastError": row.last_error, "firstAttempt": _time(row.first_attempt_at),
             "lastAttempt": _time(row.last_attempt_at)} for row in rows]


def trim_log(session: Session, endpoint_pk: int) -> None:
    """Keep the endpoint's `LOG_LENGTH` newest delivery rows."""
    oldest_kept = session.scalar(select(WebhookDelivery.sequence).where(
        WebhookDelivery.endpoint_pk == endpoint_pk).order_by(
        WebhookDelivery.sequence.desc()).offset(LOG_LENGTH - 1).limit(1))
    if oldest_kept is not None:
        session.execute(delete(WebhookDelivery).where(
            WebhookDelivery.endpoint_pk == endpoint_pk,
            WebhookDelivery.sequence < oldest_kept))


def _time(epoch: float | None) -> str | None:
    """In `now_timestamp`'s form, as every other time the API shows."""
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).replace(
        tzinfo=None).isoformat(timespec="seconds")
