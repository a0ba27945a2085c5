"""Seed endpoints 7-8: an element's attributes, all or one."""

from __future__ import annotations

from typing import Any

from repository import catalog
from repository.api import parameters
from repository.api.common import TenantRequest, shaping, values_envelope
from repository.api.endpoint import Resource
from repository.api.lookup import matching_element
from repository.api.routes import ELEMENT
from repository.errors import NotFound

resource = Resource("attributes", __name__)
ATTRIBUTES = ELEMENT + "/attributes"


def _attributes(req: TenantRequest, facet: catalog.Facet,
                element_id: str) -> dict[str, dict[str, Any]]:
    _, version = matching_element(req, element_id, facet.name)
    stored = req.store.reads.attributes([version.pk])[version.pk]
    return {name: {str(c): v for c, v in per_culture.items()}
            for name, per_culture in stored.items()}


@resource.endpoint("GET", ATTRIBUTES, summary="Attributes", api_version="1.0",
                   answer="AttributeValues",
                   parameters=(parameters.FILTER, parameters.SELECT))
def list_attributes(req: TenantRequest, facet: catalog.Facet, view: str,
                    element_id: str) -> dict[str, Any]:
    values = _attributes(req, facet, element_id)
    wanted = shaping()
    return values_envelope({n: v for n, v in values.items() if wanted.wants(n)})


@resource.endpoint("GET", ATTRIBUTES + "/<attribute_id>", summary="Attribute get",
                   api_version="1.0", answer="AttributeValues",
                   parameters=(parameters.FILTER,))
def get_attribute(req: TenantRequest, facet: catalog.Facet, view: str, element_id: str,
                  attribute_id: str) -> dict[str, Any]:
    values = _attributes(req, facet, element_id)
    if attribute_id not in values:
        raise NotFound(f"Element {element_id!r} has no attribute {attribute_id!r}")
    return values_envelope({attribute_id: values[attribute_id]})
