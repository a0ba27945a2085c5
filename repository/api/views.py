"""Seed endpoint 1: the views of a facet."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from repository import catalog
from repository.api.common import check_facet, tenant_request, values_envelope
from repository.api.routes import FACET

blueprint = Blueprint("views", __name__)


@blueprint.get(FACET + "/views")
def list_views(collection_id: str, storage_id: str, facet: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    known = check_facet(facet)
    return values_envelope([
        {
            "name": view,
            "displayNames": {str(c): n for c, n in catalog.VIEW_NAMES[view].items()},
            "elements": f"{req.base}/_api/rest/facets/{facet}/views/{view}/elements",
            "isHierarchical": view in catalog.HIERARCHICAL_VIEWS,
        }
        for view in known.views
    ])
