"""Seed endpoint 12: content create, shapes appended to a diagram atomically (in bulk
statements; If-Match as on update, see repository/api/elements.py and api/common.if_match)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from repository import auth
from repository.api.common import check_facet, checked_body, if_match, tenant_request
from repository.api.routes import FACET
from repository.wire import parse_content_body

blueprint = Blueprint("content", __name__)


@blueprint.post(FACET + "/views/diagram/elements/<element_id>/content")
def create_content(collection_id: str, storage_id: str, facet: str,
                   element_id: str) -> dict[str, Any]:
    body = checked_body(parse_content_body)
    req = tenant_request(collection_id, storage_id, "3.0", auth.EDIT)
    check_facet(facet, "diagram")
    diagram = req.store.element(element_id, facet)
    items = body()
    if any(item.type is not None and item.element_id is None for item in items):
        req.caller.require(auth.NEW)
    created = req.store.append_content(diagram, items, req.actor_pk, if_match())
    return {"values": [{"id": shape_id, "index": index} for shape_id, index in created]}
