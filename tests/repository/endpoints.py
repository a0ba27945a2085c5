"""One request per endpoint and variant, for tests that sweep them all (auth, errors,
OpenAPI). Paths are filled with the stand-in tenant's ids."""

from __future__ import annotations

from typing import Any, NamedTuple

from tests.repository.standin import DRAFT, ORDER, STANDIN_WEBHOOK

P = "/_api/rest/facets/processes"


class Call(NamedTuple):
    method: str
    path: str  # relative to the tenant root, e.g. "/_api/rest/facets/processes/views"
    body: Any = None
    permission: str = "ShowElement"


UPDATE_BODY = {"count": 1, "elements": [{"id": DRAFT, "attributes": {
    "authorNote": {"1033": "touched"}}}]}
CONTENT_BODY = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                            "element": {"id": DRAFT}}]}

CALLS: list[Call] = [
    Call("GET", f"{P}/views"),
    Call("GET", f"{P}/views/list/elements"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}"),
    Call("POST", f"{P}/views/detail/elements/", UPDATE_BODY, "EditElement"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}/children"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}/versions"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}/attributes"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}/attributes/name"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}/related/executedBy"),
    Call("POST", f"{P}/views/detail/elements/{ORDER}/related/executedBy"),
    Call("GET", f"{P}/views/detail/elements/{ORDER}/info"),
    Call("GET", f"{P}/views/list/config"),
    Call("GET", f"{P}/views/list/config/mainProcess"),
    Call("POST", f"{P}/views/diagram/elements/{ORDER}/content", CONTENT_BODY, "EditElement"),
    Call("GET", f"{P}/reporting"),
    Call("GET", f"{P}/reporting/{ORDER}"),
    Call("GET", f"/_api/release/{DRAFT}/transitions"),
    Call("POST", f"/_api/release/{DRAFT}/transitions"),
    Call("GET", f"/_api/rest/release/{DRAFT}/transitions"),
    Call("POST", f"/_api/rest/release/{DRAFT}/transitions"),
    Call("POST", f"/_api/release/{DRAFT}/transitions/InProcessToInReview", None, "EditElement"),
    Call("POST", f"/_api/rest/release/{DRAFT}/transitions/InProcessToReleased", None,
         "ApproveElement"),
    Call("GET", f"/_api/rest/diagram/{ORDER}/render/1033/horizontal"),
    Call("GET", f"/_api/rest/diagram/{ORDER}/bpmn/1033/horizontal"),
    Call("GET", f"/_api/rest/diagram/{ORDER}/compare/{ORDER}/{ORDER}"),
    Call("GET", f"/_api/rest/diagram/{ORDER}/compare/{ORDER}/{ORDER}/render/1033/horizontal"),
    Call("GET", "/_api/rest/changes"),
    Call("GET", "/_api/rest/token"),
    Call("GET", "/_api/token"),
    Call("POST", "/_api/rest/webhooks", {"url": "https://hooks.example.com/elrepo"},
         "ManageWebhooks"),
    Call("GET", "/_api/rest/webhooks", None, "ManageWebhooks"),
    Call("DELETE", f"/_api/rest/webhooks/{STANDIN_WEBHOOK}", None, "ManageWebhooks"),
    Call("GET", f"/_api/rest/webhooks/{STANDIN_WEBHOOK}/deliveries", None, "ManageWebhooks"),
]
