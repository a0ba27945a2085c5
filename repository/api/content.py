"""Seed endpoint 12: content create, shapes appended to a diagram atomically (in bulk
statements; If-Match as on update, see repository/api/elements.py and api/common.if_match)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response

from repository import auth, catalog
from repository.api import parameters
from repository.api.common import TenantRequest, if_match
from repository.api.endpoint import Body, Resource
from repository.api.idempotency import idempotent
from repository.api.routes import FACET
from repository.wire import ContentItem, parse_content_body

resource = Resource("content", __name__)
DIAGRAM_VIEW = "diagram"


@resource.endpoint("POST", FACET + f"/views/{DIAGRAM_VIEW}/elements/<element_id>/content",
                   summary="Content create", api_version="3.0", answer="ContentResult",
                   permission=auth.EDIT,
                   parameters=(parameters.IF_MATCH, parameters.IDEMPOTENCY_KEY),
                   body=Body(parse_content_body, "ContentBody"), view=DIAGRAM_VIEW)
def create_content(req: TenantRequest, facet: catalog.Facet, element_id: str,
                   body: Callable[[], list[ContentItem]]) -> Response | dict[str, Any]:
    diagram = req.store.reads.element(element_id, facet.name)
    items = body()
    expected = if_match()  # a malformed header is a 400 even when a retry would replay

    def create() -> dict[str, Any]:
        if any(item.type is not None and item.element_id is None for item in items):
            req.caller.require(auth.NEW)
        created = req.store.writes.append_content(diagram, items, req.actor_pk, expected)
        return {"values": [{"id": shape_id, "index": index} for shape_id, index in created]}
    return idempotent(req, items, create)
