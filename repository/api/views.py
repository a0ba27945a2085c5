"""Seed endpoint 1: the views of a facet."""

from __future__ import annotations

from typing import Any

from renderer.culture import text_keyed
from repository import catalog
from repository.api.common import TenantRequest, values_envelope
from repository.api.endpoint import Resource
from repository.api.routes import FACET

resource = Resource("views", __name__)


@resource.endpoint("GET", FACET + "/views", summary="List views", api_version="4.0",
                   answer="FacetViews")
def list_views(req: TenantRequest, facet: catalog.Facet) -> dict[str, Any]:
    return values_envelope([
        {
            "name": view,
            "displayNames": text_keyed(catalog.VIEW_NAMES[view]),
            "elements": f"{req.base}/_api/rest/facets/{facet.name}/views/{view}/elements",
            "isHierarchical": view in catalog.HIERARCHICAL_VIEWS,
        }
        for view in facet.views
    ])
