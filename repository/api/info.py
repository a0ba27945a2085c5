"""Seed endpoint 10: ElementInfo, the caller's permissions and capabilities."""

from __future__ import annotations

from typing import Any

from repository import auth, catalog
from repository.api import parameters
from repository.api.common import TenantRequest, values_envelope
from repository.api.endpoint import Resource
from repository.api.lookup import matching_element
from repository.api.routes import ELEMENT

resource = Resource("info", __name__)


@resource.endpoint("GET", ELEMENT + "/info", summary="Element info", api_version="1.0",
                   answer="ElementInfoValues", parameters=(parameters.FILTER,))
def element_info(req: TenantRequest, facet: catalog.Facet, view: str,
                 element_id: str) -> dict[str, Any]:
    element, _ = matching_element(req, element_id, facet.name)
    store = req.store
    can_edit = auth.EDIT in req.caller.permissions
    can_create = auth.NEW in req.caller.permissions
    root_path = store.reads.root_path(element)
    shape_ids = store.reads.shape_ids_of(element)
    parent = root_path[0] if root_path else None
    hierarchical = view in catalog.HIERARCHICAL_VIEWS
    read_only = "None" if can_edit else "All"
    known = catalog.TYPES.get(element.type)
    return values_envelope([{
        "id": element.id,
        "elementTypeName": element.type,
        "entityIds": [element.id, *shape_ids],
        "entityTypeName": element.type,
        "facetTypeName": element.facet,
        "facetViewKey": view,
        "hasDiagram": store.reads.has_content(element),
        "hasEditPermission": can_edit,
        "insertableDynamicTypes": {},
        "isCurrentCopyable": can_create,
        "isCurrentInsertable": can_create,
        "isCurrentMovable": can_edit,
        "isCurrentRemovable": auth.DELETE in req.caller.permissions,
        "isReadOnly": not can_edit,
        "isReadOnlyCollection": not can_edit,
        "name": store.reads.name_of(element, store.tenant.default_culture),
        "permissions": req.caller.ordered_permissions(),
        "readOnlyCollectionContext": read_only,
        "readOnlyContext": read_only,
        "rootPath": [e.id for e in reversed(root_path)],
        "shapeId": shape_ids[0] if shape_ids else "",
        "typeColor": known.color if known else "#9E9E9E",
        "uid": f"{parent.id if hierarchical and parent else ''}_{element.id}",
    }])
