"""Seed endpoint 13: reporting data of a facet (paged) or of one element; expandUri
values point at the reporting path."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from repository.api.common import check_facet, page_request, shaping, tenant_request, \
    values_envelope
from repository.api.lookup import matching_element
from repository.api.routes import FACET
from repository.serialize import Serializer, reporting_uri

blueprint = Blueprint("reporting", __name__)


@blueprint.get(FACET + "/reporting")
def report_facet(collection_id: str, storage_id: str, facet: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet)
    elements = req.store.page(page_request(facet, "reporting"))
    report = Serializer(req.store, shaping(), reporting_uri(req.base))
    return values_envelope(report.elements([(e, None) for e in elements]))


@blueprint.get(FACET + "/reporting/<element_id>")
def report_element(collection_id: str, storage_id: str, facet: str,
                   element_id: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet)
    element, version = matching_element(req, element_id, facet)
    report = Serializer(req.store, shaping(), reporting_uri(req.base))
    return values_envelope(report.elements([(element, version)]))
