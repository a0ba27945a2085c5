"""Seed endpoints 2-6: list, get, update (and create), children, versions.

Optimistic concurrency (docs/contract.md, "Limits and robustness"): element GET answers
a strong `ETag`, the element's revision (`"7"`), which changes on every write to the
element. Update and content create honour `If-Match` (RFC 9110 13.1.1): a list of entity
tags or `*`; no listed revision current → 412, nothing written. Update takes If-Match
only for a body of exactly one existing element (the header names one resource).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, request

from repository import auth, catalog
from repository.api import parameters
from repository.api.common import (
    TenantRequest,
    cached_listing,
    elements_envelope,
    if_match,
    page_request,
    page_selection_key,
    shaping,
)
from repository.api.endpoint import Answer, Body, Resource
from repository.api.idempotency import idempotent
from repository.api.lookup import matching_element, serializer
from repository.api.routes import ELEMENT, VIEW
from repository.errors import InvalidInput
from repository.serialize import Shaping
from repository.store.models import Element, ElementVersion
from repository.wire import ElementInput, parse_update_body

resource = Resource("elements", __name__)


def entity_tag(element: Element, version: ElementVersion) -> str:
    """The strong ETag of an element GET: its revision. An older version's tag adds the
    version's number, so it changes with the element yet never passes If-Match."""
    if version.pk == element.current_version_pk:
        return f'"{element.revision}"'
    return f'"{element.revision}-{version.seq}"'


@resource.endpoint("GET", VIEW + "/elements", summary="List elements", api_version="4.0",
                   answer=Answer("ElementList",
                                 headers=("ETag", "Cache-Control", "X-Listing-Cache")),
                   parameters=(*parameters.PAGING, parameters.PAGE_SELECTION_KEY,
                               parameters.IF_NONE_MATCH))
def list_elements(req: TenantRequest, facet: catalog.Facet, view: str) -> Response:
    listing = page_request(facet.name, view)
    key = page_selection_key()
    asked = shaping()

    def build() -> dict[str, Any]:
        rows = req.store.reads.page(listing) if key is None else req.store.reads.page_holding(listing, key)
        return elements_envelope(serializer(req, asked).elements([(e, e.version) for e in rows]))
    return cached_listing(req, build)


@resource.endpoint("GET", ELEMENT, summary="Get element", api_version="4.0",
                   answer=Answer("ElementList", headers=("ETag",)),
                   parameters=parameters.SHAPING)
def get_element(req: TenantRequest, facet: catalog.Facet, view: str,
                element_id: str) -> tuple[dict[str, Any], dict[str, str]]:
    element, version = matching_element(req, element_id, facet.name)
    body = elements_envelope(serializer(req, shaping()).elements([(element, version)]))
    return body, {"ETag": entity_tag(element, version)}


@resource.endpoint("POST", VIEW + "/elements", summary="Update or create elements",
                   api_version="4.0", answer="ElementList", permission=auth.EDIT,
                   parameters=(parameters.IF_MATCH, parameters.IDEMPOTENCY_KEY),
                   body=Body(parse_update_body, "UpdateBody"))
def update_elements(req: TenantRequest, facet: catalog.Facet, view: str,
                    body: Callable[[], list[ElementInput]]) -> Response | dict[str, Any]:
    inputs = body()
    expected = if_match()  # a malformed header is a 400 even when a retry would replay
    return idempotent(req, inputs, lambda: _update(req, facet, inputs, expected))


def _update(req: TenantRequest, facet: catalog.Facet, inputs: list[ElementInput],
            expected: frozenset[int] | None) -> dict[str, Any]:
    if expected is not None and (len(inputs) != 1 or inputs[0].id is None):
        raise InvalidInput("If-Match names one element: send exactly one element, with its "
                           "id, in the body")
    for i, data in enumerate(inputs):
        if data.facet is not None and data.facet != facet.name:
            raise InvalidInput(f"elements[{i}].facetName is {data.facet!r} but the path's "
                               f"facet is {facet.name!r}")
    new_inputs = [(facet.name, data) for data in inputs if data.id is None]
    if new_inputs:
        req.caller.require(auth.NEW)
    # New elements cannot be named by the others (their ids are made now), so they are
    # all created first; every write is in bulk.
    created = iter(req.store.writes.create_all(new_inputs, req.actor_pk))
    existing = req.store.reads.elements_by_id([data.id for data in inputs if data.id is not None],
                                              facet.name)
    req.store.writes.update_many([(existing[data.id], data) for data in inputs if data.id is not None],
                                 req.actor_pk, expected)
    changed = [existing[data.id] if data.id is not None else next(created) for data in inputs]
    return elements_envelope(serializer(req, Shaping()).elements([(e, None) for e in changed]))


@resource.endpoint("GET", ELEMENT + "/children", summary="Children", api_version="4.0",
                   answer="ElementList",
                   parameters=(parameters.RESOURCES, parameters.SELECT,
                               parameters.EXPAND_RELATED))
def list_children(req: TenantRequest, facet: catalog.Facet, view: str,
                  element_id: str) -> dict[str, Any]:
    _, version = matching_element(req, element_id, facet.name, apply_filter=False)
    children = req.store.reads.children(version)
    return elements_envelope(serializer(req, shaping()).elements([(c, None) for c in children]))


@resource.endpoint("GET", ELEMENT + "/versions", summary="Versions", api_version="4.0",
                   answer="ElementList", parameters=parameters.SHAPING)
def list_versions(req: TenantRequest, facet: catalog.Facet, view: str,
                  element_id: str) -> dict[str, Any]:
    element, _ = matching_element(req, element_id, facet.name, apply_filter=False)
    versions = req.store.reads.versions_matching(element, request.args.get("$filter"))
    asked = shaping()
    if parameters.RESOURCES.name not in request.args:
        asked = asked.selected_resources()  # every version's content only when asked for
    return elements_envelope(serializer(req, asked).elements([(element, v) for v in versions]))
