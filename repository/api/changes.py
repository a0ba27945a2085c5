"""The change feed (docs/events.md, docs/api.md "Changes"): the tenant's committed
changes as CloudEvents in commit order, a page at a time, with the cursor of the next.

Any role that may read elements reads it, each shown the events its role may know of
(`hidden_from`: the webhooks' events only to roles that manage webhooks). The answer is
never cached: it is the newest state of the feed."""

from __future__ import annotations

from typing import Any

from flask import request

from repository.api import parameters
from repository.api.common import TenantRequest, int_param
from repository.api.endpoint import Resource
from repository.api.routes import TENANT
from repository.events.feed import hidden_from, read_page

resource = Resource("changes", __name__)


@resource.endpoint("GET", TENANT + "/_api/rest/changes", summary="Change feed",
                   api_version="4.0", answer="ChangeList",
                   parameters=(parameters.CURSOR, parameters.PAGE_SIZE))
def list_changes(req: TenantRequest) -> dict[str, Any]:
    cursor = request.args.get(parameters.CURSOR.name) or None
    page = read_page(req.store.session, req.store.tenant.pk, cursor,
                     int_param(parameters.PAGE_SIZE), hidden_from(req.caller.permissions))
    return {"count": len(page.events), "values": [event.cloud_event for event in page.events],
            "cursor": page.cursor}
