"""A diagram as BPMN 2.0 XML with diagram interchange from one of the BPMN layouts
(docs/api.md, "16a. BPMN export"; docs/interchange.md).

Declared like the render endpoint (repository/api/render.py): the same permission, the
render error shape (its path is under `/_api/rest/diagram/`, which app.error_response
answers in that shape) and the same headers on every answer, refusals included, that
keep it from being run or sniffed as another type. The export runs in this worker's
render processes under the render deadline (repository/render_pool.py): past it 503 with
`Retry-After`, and every export of the same content is refused at once for a while, as
a render is; it reads what it draws and gives its connection back first, as a render
does (`render.read_drawing`). Expanded sub-processes are drawn with their content
(`repository.fixtures.nested_fixture`): nested too deep 400, more than the render
contract's shapes in all 413. `X-Bpmn-Kept` counts what the answer holds per kind, as
`elrepo import` says what it kept of a file (`interchange.kept.kept_counts`).
"""

from __future__ import annotations

from flask import Response, current_app

from interchange import BPMN_LAYOUT_KEYS, read_bpmn
from interchange.kept import kept_counts
from repository.api.common import TenantRequest
from repository.api.endpoint import Answer, Resource
from repository.api.render import (
    add_security_headers,
    read_drawing,
    render_pool,
    timed_out_renders,
)
from repository.api.routes import TENANT
from repository.errors import InvalidInput
from repository.fixtures import nested_fixture
from repository.http_contract import DRAWING_HEADERS
from repository.input_rules import parse_culture_id
from repository.render_cache import DrawnState, render_key
from repository.render_pool import render_timeout

resource = Resource("bpmn", __name__, error_schema="RenderError")
BPMN_MEDIA_TYPE = "application/xml"
KEPT_HEADER = "X-Bpmn-Kept"
resource.blueprint.after_request(add_security_headers)  # refusals included


@resource.endpoint("GET", TENANT + "/_api/rest/diagram/<diagram_id>/bpmn/<culture_id>/<bpmn_layout_key>",
                   summary="Export a diagram as BPMN 2.0 XML with diagram interchange "
                           f"(layout keys: {', '.join(BPMN_LAYOUT_KEYS)})",
                   api_version="2.0", answer=Answer("BpmnXml", BPMN_MEDIA_TYPE, (*DRAWING_HEADERS, KEPT_HEADER)),
                   deadline=True)
def export_bpmn(req: TenantRequest, diagram_id: str, culture_id: str,
                bpmn_layout_key: str) -> Response:
    layout_key = bpmn_layout_key  # its own path parameter: the BPMN layouts are fewer
    culture = parse_culture_id(culture_id, "cultureId")
    if layout_key not in BPMN_LAYOUT_KEYS:
        raise InvalidInput(f"Unknown BPMN layout key {layout_key!r}; BPMN layout keys: "
                           f"{', '.join(BPMN_LAYOUT_KEYS)}")
    tenant = req.store.tenant
    drawn = DrawnState(diagram_id, req.store.reads.newest_version_pk(diagram_id), req.store.reads.content_generation())
    # Names the export (not a render: "bpmn:" keys no render layout) for requests to
    # share one under way.
    key = render_key(tenant.collection_id, tenant.storage_id, drawn, f"bpmn:{layout_key}", culture,
                     default_culture=tenant.default_culture)
    job, fixture = read_drawing(req, "BPMN export", key, drawn, nested_fixture)
    try:
        xml = render_pool().export_bpmn(job, fixture, layout_key, culture,
                                        render_timeout(current_app.config),
                                        default_culture=tenant.default_culture,
                                        timed_out=timed_out_renders())
    except InvalidInput as error:
        raise InvalidInput(f"Diagram {diagram_id!r} cannot be exported as BPMN: {error}") from None
    return Response(xml, mimetype=BPMN_MEDIA_TYPE, headers={KEPT_HEADER: kept_header(xml)})


def kept_header(xml: bytes) -> str:
    """`nodes=26; flows=18; ...`: what a BPMN export holds, read back from it."""
    return "; ".join(f"{kind}={count}" for kind, count in kept_counts(read_bpmn(xml).model).items())
