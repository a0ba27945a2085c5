"""Seed endpoints 2-6: list, get, update (and create), children, versions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Blueprint, request
from sqlalchemy import select

from repository import auth
from repository.api.common import (
    check_facet,
    elements_envelope,
    json_body,
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
                element_id: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    check_facet(facet, view)
    element, version = matching_element(req, element_id, facet)
    return elements_envelope(serializer(req, shaping()).elements([(element, version)]))


@blueprint.post(VIEW + "/elements")
def update_elements(collection_id: str, storage_id: str, facet: str,
                    view: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0", auth.EDIT)
    check_facet(facet, view)
    inputs = parse_update_body(json_body())
    changed = []
    for i, data in enumerate(inputs):
        if data.facet is not None and data.facet != facet:
            raise InvalidInput(f"elements[{i}].facetName is {data.facet!r} but the path's "
                               f"facet is {facet!r}")
        if data.id is None:
            req.caller.require(auth.NEW)
            changed.append(req.store.create(facet, data, req.actor_pk))
        else:
            changed.append(req.store.update(req.store.element(data.id, facet), data,
                                            req.actor_pk))
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
