"""Seed endpoint 9: one related context of an element (GET, and POST as the seed's
examples send it)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from repository import catalog
from repository.api.common import check_facet, shaping, tenant_request, values_envelope
from repository.api.lookup import matching_element, serializer
from repository.api.routes import ELEMENT
from repository.errors import NotFound

blueprint = Blueprint("related", __name__)


@blueprint.route(ELEMENT + "/related/<related_id>", methods=["GET", "POST"])
def get_related(collection_id: str, storage_id: str, facet: str, view: str, element_id: str,
                related_id: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "1.0")
    check_facet(facet, view)
    element, version = matching_element(req, element_id, facet)
    present = req.store.links([version.pk])[version.pk]
    known_type = catalog.TYPES.get(element.type)
    offered = set(present) | catalog.SERVER_RELATED | set(known_type.related if known_type else ())
    if related_id not in offered:
        raise NotFound(f"Element {element_id!r} has no related context {related_id!r}")
    values = serializer(req, shaping()).related_values(element, version, [related_id])
    return values_envelope(values)
