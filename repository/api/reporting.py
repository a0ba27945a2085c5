"""Seed endpoint 13: reporting data of a facet (paged) or of one element; expandUri
values point at the reporting path."""

from __future__ import annotations

from typing import Any

from repository import catalog
from repository.api import parameters
from repository.api.common import TenantRequest, page_request, shaping, values_envelope
from repository.api.endpoint import Resource
from repository.api.lookup import matching_element
from repository.api.routes import FACET
from repository.serialize import Serializer, reporting_uri

resource = Resource("reporting", __name__)


@resource.endpoint("GET", FACET + "/reporting", summary="Reporting of a facet",
                   api_version="4.0", answer="ElementValues", parameters=parameters.PAGING)
def report_facet(req: TenantRequest, facet: catalog.Facet) -> dict[str, Any]:
    elements = req.store.reads.page(page_request(facet.name, "reporting"))
    report = Serializer(req.store, shaping(), reporting_uri(req.base))
    return values_envelope(report.elements([(e, None) for e in elements]))


@resource.endpoint("GET", FACET + "/reporting/<element_id>", summary="Reporting of an element",
                   api_version="4.0", answer="ElementValues", parameters=parameters.SHAPING)
def report_element(req: TenantRequest, facet: catalog.Facet,
                   element_id: str) -> dict[str, Any]:
    element, version = matching_element(req, element_id, facet.name)
    report = Serializer(req.store, shaping(), reporting_uri(req.base))
    return values_envelope(report.elements([(element, version)]))
