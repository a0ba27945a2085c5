"""Finding the element a path names, and building its serializer."""

from __future__ import annotations

from flask import request

from repository.api.common import TenantRequest
from repository.errors import NotFound
from repository.serialize import Serializer, Shaping, detail_uri
from repository.store.models import Element, ElementVersion


def matching_element(req: TenantRequest, element_id: str, facet: str,
                     apply_filter: bool = True) -> tuple[Element, ElementVersion]:
    """The element (or version) of the path; with `$filter`, 404 unless it matches."""
    element, version = req.store.reads.resolve(element_id, facet)
    raw_filter = request.args.get("$filter") if apply_filter else None
    if raw_filter is not None and not req.store.reads.element_matches(element, raw_filter):
        raise NotFound(f"Element {element_id!r} does not match $filter")
    return element, version


def serializer(req: TenantRequest, shaping: Shaping) -> Serializer:
    return Serializer(req.store, shaping, detail_uri(req.base))
