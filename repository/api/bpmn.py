"""A diagram as BPMN 2.0 XML with diagram interchange from one of the BPMN layouts
(docs/api.md, "16a. BPMN export"; docs/interchange.md).

Declared like the render endpoint (repository/api/render.py): the same permission, the
render error shape (its path is under `/_api/rest/diagram/`, which app.error_response
answers in that shape) and the same headers that keep the answer from being run or
sniffed as another type. The export runs in the request's thread: a BPMN layout has no
render process of its own.
"""

from __future__ import annotations

from flask import Response

from interchange import BPMN_LAYOUT_KEYS, BpmnError, diagram_to_bpmn
from repository.api.common import TenantRequest
from repository.api.endpoint import Answer, Resource
from repository.api.render import SECURITY_HEADERS
from repository.api.routes import TENANT
from repository.errors import InvalidInput
from repository.fixtures import diagram_fixture
from repository.wire import parse_culture_id

resource = Resource("bpmn", __name__, error_schema="RenderError")
BPMN_MEDIA_TYPE = "application/xml"


@resource.endpoint("GET", TENANT + "/_api/rest/diagram/<diagram_id>/bpmn/<culture_id>/<layout_key>",
                   summary="Export a diagram as BPMN 2.0 XML with diagram interchange "
                           f"(layout keys: {', '.join(BPMN_LAYOUT_KEYS)})",
                   api_version="2.0", answer=Answer("BpmnXml", BPMN_MEDIA_TYPE, tuple(SECURITY_HEADERS)))
def export_bpmn(req: TenantRequest, diagram_id: str, culture_id: str, layout_key: str) -> Response:
    culture = parse_culture_id(culture_id, "cultureId")
    if layout_key not in BPMN_LAYOUT_KEYS:
        raise InvalidInput(f"Unknown BPMN layout key {layout_key!r}; BPMN layout keys: "
                           f"{', '.join(BPMN_LAYOUT_KEYS)}")
    fixture = diagram_fixture(req.store, req.store.element(diagram_id))
    try:
        xml = diagram_to_bpmn(fixture, layout_key, culture, req.store.tenant.default_culture)
    except BpmnError as error:
        raise InvalidInput(f"Diagram {diagram_id!r} cannot be exported as BPMN: {error}") from None
    response = Response(xml, mimetype=BPMN_MEDIA_TYPE)
    response.headers.update(SECURITY_HEADERS)
    return response
