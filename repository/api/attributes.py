"""Seed endpoints 7-8: an element's attributes, all or one."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from repository.api.common import check_facet, shaping, tenant_request, values_envelope
from repository.api.lookup import matching_element
from repository.api.routes import ELEMENT
from repository.errors import NotFound

blueprint = Blueprint("attributes", __name__)
ATTRIBUTES = ELEMENT + "/attributes"


def _attributes(collection_id: str, storage_id: str, facet: str, view: str,
                element_id: str) -> dict[str, dict[str, Any]]:
    req = tenant_request(collection_id, storage_id, "1.0")
    check_facet(facet, view)
    _, version = matching_element(req, element_id, facet)
    stored = req.store.attributes([version.pk])[version.pk]
    return {name: {str(c): v for c, v in per_culture.items()}
            for name, per_culture in stored.items()}


@blueprint.get(ATTRIBUTES)
def list_attributes(collection_id: str, storage_id: str, facet: str, view: str,
                    element_id: str) -> dict[str, Any]:
    values = _attributes(collection_id, storage_id, facet, view, element_id)
    wanted = shaping()
    return values_envelope({n: v for n, v in values.items() if wanted.wants(n)})


@blueprint.get(ATTRIBUTES + "/<attribute_id>")
def get_attribute(collection_id: str, storage_id: str, facet: str, view: str,
                  element_id: str, attribute_id: str) -> dict[str, Any]:
    values = _attributes(collection_id, storage_id, facet, view, element_id)
    if attribute_id not in values:
        raise NotFound(f"Element {element_id!r} has no attribute {attribute_id!r}")
    return values_envelope({attribute_id: values[attribute_id]})
