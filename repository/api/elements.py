"""Seed endpoints 2-6: list, get, update (and create), children, versions.

Optimistic concurrency (docs/contract.md, "Limits and robustness"): element GET answers
a strong `ETag`, the element's revision (`"7"`), which changes on every write to the
element. Update and content create honour `If-Match` (RFC 9110 13.1.1): a list of entity
tags or `*`; no listed revision current → 412, nothing written. Update takes If-Match
only for a body of exactly one existing element (the header names one resource).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Blueprint, request
from sqlalchemy import select

from repository import auth
from repository.api.common import (
    check_facet,
    checked_body,
    elements_envelope,
    if_match,
    page_request,
    page_selection_key,
    shaping,
    tenant_request,
)
from repository.api.lookup import matching_element, serializer
from repository.api.routes import ELEMENT, VIEW
from repository.errors import InvalidInput
from repository.filters import VERSIONS, compile_filter
from repository.models import Element, ElementVersion
from repository.serialize import Shaping
from repository.wire import parse_update_body

blueprint = Blueprint("elements", __name__)


def entity_tag(element: Element, version: ElementVersion) -> str:
    """The strong ETag of an element GET: its revision. An older version's tag adds the
    version's number, so it changes with the element yet never passes If-Match."""
    if version.pk == element.current_version_pk:
        return f'"{element.revision}"'
    return f'"{element.revision}-{version.seq}"'


@blueprint.get(VIEW + "/elements")
def list_elements(collection_id: str, storage_id: str, facet: str, view: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet, view)
    listing = page_request(facet, view)
    key = page_selection_key()
    if key is not None:
        listing = replace(listing, page=req.store.page_of(listing, key))
    elements = req.store.page(listing)
    return elements_envelope(serializer(req, shaping()).elements([(e, None) for e in elements]))


@blueprint.get(ELEMENT)
def get_element(collection_id: str, storage_id: str, facet: str, view: str,
                element_id: str) -> tuple[dict[str, Any], dict[str, str]]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet, view)
    element, version = matching_element(req, element_id, facet)
    body = elements_envelope(serializer(req, shaping()).elements([(element, version)]))
    return body, {"ETag": entity_tag(element, version)}


@blueprint.post(VIEW + "/elements")
def update_elements(collection_id: str, storage_id: str, facet: str,
                    view: str) -> dict[str, Any]:
    body = checked_body(parse_update_body)
    req = tenant_request(collection_id, storage_id, "4.0", auth.EDIT)
    check_facet(facet, view)
    inputs = body()
    expected = if_match()
    if expected is not None and (len(inputs) != 1 or inputs[0].id is None):
        raise InvalidInput("If-Match names one element: send exactly one element, with its "
                           "id, in the body")
    for i, data in enumerate(inputs):
        if data.facet is not None and data.facet != facet:
            raise InvalidInput(f"elements[{i}].facetName is {data.facet!r} but the path's "
                               f"facet is {facet!r}")
    new_inputs = [(facet, data) for data in inputs if data.id is None]
    if new_inputs:
        req.caller.require(auth.NEW)
    # New elements cannot be named by the others (their ids are made now), so they are
    # all created first; every write is in bulk.
    created = iter(req.store.create_all(new_inputs, req.actor_pk))
    existing = req.store.elements_by_id([data.id for data in inputs if data.id is not None],
                                        facet)
    req.store.update_many([(existing[data.id], data) for data in inputs if data.id is not None],
                          req.actor_pk, expected)
    changed = [existing[data.id] if data.id is not None else next(created) for data in inputs]
    return elements_envelope(serializer(req, Shaping()).elements([(e, None) for e in changed]))


@blueprint.get(ELEMENT + "/children")
def list_children(collection_id: str, storage_id: str, facet: str, view: str,
                  element_id: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet, view)
    _, version = matching_element(req, element_id, facet, apply_filter=False)
    children = req.store.children(version)
    return elements_envelope(serializer(req, shaping()).elements([(c, None) for c in children]))


@blueprint.get(ELEMENT + "/versions")
def list_versions(collection_id: str, storage_id: str, facet: str, view: str,
                  element_id: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet, view)
    element, _ = matching_element(req, element_id, facet, apply_filter=False)
    query = (select(ElementVersion).where(ElementVersion.element_pk == element.pk)
             .order_by(ElementVersion.seq))
    raw_filter = request.args.get("$filter")
    if raw_filter is not None:
        query = query.join(Element, Element.pk == ElementVersion.element_pk).where(
            compile_filter(raw_filter, VERSIONS))
    versions = list(req.store.session.scalars(query)) if element.versioned else []
    return elements_envelope(serializer(req, shaping()).elements([(element, v) for v in versions]))
