"""Webhooks (issue 24; docs/events.md, "Webhooks"): a tenant's administrators register
endpoints that receive its change feed, list and remove them, and read each one's
delivery log. The secret is in the answer of the POST only."""

from __future__ import annotations

from typing import Any

from flask import current_app

from repository import auth
from repository.api.common import TenantRequest, values_envelope
from repository.api.endpoint import Body, Resource
from repository.api.routes import TENANT
from repository.errors import InvalidInput
from repository.input_rules import check_text
from repository.webhooks import endpoints
from repository.webhooks.source import EVENT_SOURCE, EventSource
from repository.webhooks.targets import TargetRefused, parse_target

resource = Resource("webhooks", __name__)
WEBHOOKS = TENANT + "/_api/rest/webhooks"
WEBHOOK = WEBHOOKS + "/<webhook_id>"


def parse_registration(raw: Any) -> tuple[str, list[str]]:
    """`{"url": ..., "types": [...]}`: the URL and the event types (none: all)."""
    if not isinstance(raw, dict):
        raise InvalidInput('The body is an object: {"url": "https://...", "types": [...]}')
    unknown = sorted(set(raw) - {"url", "types"})
    if unknown:
        raise InvalidInput(f"Unknown field(s) {', '.join(unknown)}; a webhook has url and types")
    url, types = raw.get("url"), raw.get("types")
    if not isinstance(url, str):
        raise InvalidInput("url is required: the http:// or https:// URL to deliver to")
    if types is None:
        types = []
    if not (isinstance(types, list) and all(isinstance(t, str) and 0 < len(t) <= endpoints.MAX_TYPE_LENGTH
                                            for t in types)):
        raise InvalidInput(f"types is a list of event types (text of 1 to "
                           f"{endpoints.MAX_TYPE_LENGTH} characters), such as "
                           "elrepo.element.updated")
    if len(types) > endpoints.MAX_TYPES:
        raise InvalidInput(f"types lists at most {endpoints.MAX_TYPES} event types")
    for value in types:
        check_text(value, "A webhook's type")
    try:
        parse_target(url)
    except TargetRefused as error:
        raise InvalidInput(str(error)) from None
    return url.removesuffix("\n"), sorted(set(types))  # the one line feed the pattern allows


@resource.endpoint("POST", WEBHOOKS, summary="Register a webhook (its secret is shown once)",
                   api_version="4.0", answer="WebhookCreated", permission=auth.MANAGE_WEBHOOKS,
                   body=Body(parse_registration, "WebhookRegistration"))
def register(req: TenantRequest, body: Any) -> dict[str, Any]:
    url, types = body()
    session, tenant_pk = req.store.session, req.store.tenant.pk
    source: EventSource = current_app.extensions[EVENT_SOURCE]
    endpoint = endpoints.register(session, tenant_pk, url, types,
                                  source.latest(session, tenant_pk))
    return values_envelope([endpoints.describe(endpoint, with_secret=True)])


@resource.endpoint("GET", WEBHOOKS, summary="The tenant's webhooks", api_version="4.0",
                   answer="Webhooks", permission=auth.MANAGE_WEBHOOKS)
def list_webhooks(req: TenantRequest) -> dict[str, Any]:
    return values_envelope([endpoints.describe(endpoint) for endpoint in
                            endpoints.listed(req.store.session, req.store.tenant.pk)])


@resource.endpoint("DELETE", WEBHOOK, summary="Remove a webhook", api_version="4.0",
                   answer="Webhooks", permission=auth.MANAGE_WEBHOOKS)
def remove(req: TenantRequest, webhook_id: str) -> dict[str, Any]:
    removed = endpoints.remove(req.store.session, req.store.tenant.pk, webhook_id)
    return values_envelope([endpoints.describe(removed)])


@resource.endpoint("GET", WEBHOOK + "/deliveries",
                   summary="A webhook's recent deliveries, newest first", api_version="4.0",
                   answer="WebhookDeliveries", permission=auth.MANAGE_WEBHOOKS)
def deliveries(req: TenantRequest, webhook_id: str) -> dict[str, Any]:
    endpoint = endpoints.find(req.store.session, req.store.tenant.pk, webhook_id)
    return values_envelope(endpoints.delivery_log(req.store.session, endpoint))
