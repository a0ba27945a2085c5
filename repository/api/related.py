"""Seed endpoint 9: one related context of an element (GET, and POST as the seed's
examples send it)."""

from __future__ import annotations

from typing import Any

from repository import catalog
from repository.api import parameters
from repository.api.common import TenantRequest, shaping, values_envelope
from repository.api.endpoint import Resource
from repository.api.lookup import matching_element, serializer
from repository.api.routes import ELEMENT
from repository.errors import NotFound

resource = Resource("related", __name__)


@resource.endpoint(("GET", "POST"), ELEMENT + "/related/<related_id>", summary="Related get",
                   api_version="1.0", answer="RelatedValues",
                   parameters=(parameters.FILTER, parameters.EXPAND_RELATED), writes=False)
def get_related(req: TenantRequest, facet: catalog.Facet, view: str, element_id: str,
                related_id: str) -> dict[str, Any]:
    element, version = matching_element(req, element_id, facet.name)
    present = req.store.reads.links([version.pk])[version.pk]
    known_type = catalog.TYPES.get(element.type)
    offered = set(present) | catalog.SERVER_RELATED | set(known_type.related if known_type else ())
    if related_id not in offered:
        raise NotFound(f"Element {element_id!r} has no related context {related_id!r}")
    values = serializer(req, shaping()).related_values(element, version, [related_id])
    return values_envelope(values)
