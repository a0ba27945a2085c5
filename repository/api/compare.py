"""Two versions of a diagram compared (issue 22, item 3; docs/api.md, "16b. Compare two
versions"): what changed as JSON, and the compare drawing as SVG.

Declared like the render endpoint (repository/api/render.py): the same api-version,
permission and tenant checks (the prelude), the render error shape (the path is under
`/_api/rest/diagram/`), the drawing's headers on every answer, refusals included. The
versions are named by their version ids (the diagram's id names its newest version) and
must be versions of the diagram in the path: any other id, another element's version or
another tenant's, is a 404 that says which.
Both versions' shapes are counted before they are read (413 past the render contract),
both fixtures are read and the request's transaction ends before the diff or the drawing.

The drawing runs in the render processes under the render deadline, as a render does,
with its own kind of work ("compare"), so a compare that ran too long refuses its repeats
for a while, and is cached as a render is: its key names both versions, the tenant's
content generation, layout, culture and engine; its digest is the strong ETag. The JSON
diff is computed here: linear in the two versions' size, no layout.
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app

from renderer.compare import compare_diagrams
from renderer.contract import MAX_SHAPES, RenderInputError
from renderer.culture import LANGUAGE_NEUTRAL
from renderer.identity import engine_version
from renderer.model import parse_diagram
from repository import catalog, release
from repository.api import parameters
from repository.api.common import TenantRequest, cached_answer
from repository.api.endpoint import Answer, Resource
from repository.api.render import add_security_headers, render_pool, timed_out_renders
from repository.api.routes import TENANT
from repository.api.session import end_request_session
from repository.errors import InvalidInput, NotFound, TooLarge
from repository.fixtures import diagram_fixture
from repository.http_contract import DRAWING_HEADERS
from repository.input_rules import parse_culture_id
from repository.render_cache import content_key, pool_key
from repository.render_pool import RenderJob, refuse_if_timed_out, render_timeout
from repository.render_refusals import ContentKeys
from repository.store.maintenance import pool_id
from repository.store.models import Element, ElementVersion

resource = Resource("compare", __name__, error_schema="RenderError")
resource.blueprint.after_request(add_security_headers)  # refusals included

COMPARE = TENANT + "/_api/rest/diagram/<diagram_id>/compare/<from_version_id>/<to_version_id>"


@resource.endpoint("GET", COMPARE, summary="Compare two versions of a diagram: shapes, elements "
                   "and flows added, removed, changed or moved", api_version="2.0",
                   answer="Comparison")  # no layout: reads (statement deadline) and a linear diff
def compare_versions(req: TenantRequest, diagram_id: str, from_version_id: str,
                     to_version_id: str) -> dict[str, Any]:
    diagram, older, newer = _versions(req, diagram_id, from_version_id, to_version_id)
    old_fixture, new_fixture = _fixtures(req, diagram, older, newer)
    try:
        changes = compare_diagrams(parse_diagram(old_fixture), parse_diagram(new_fixture),
                                   written_since(older, newer, old_fixture, new_fixture))
    except RenderInputError as error:
        raise InvalidInput(f"Diagram {diagram_id!r} cannot be compared: {error}") from None
    return {"diagramId": diagram_id, "fromVersionId": from_version_id, "toVersionId": to_version_id,
            **changes.to_json()}


@resource.endpoint("GET", COMPARE + "/render/<culture_id>/<layout_key>",
                   summary="Draw the newer of two versions of a diagram laid out from the older, "
                           "its changes marked, as SVG", api_version="2.0",
                   answer=Answer("Svg", "image/svg+xml", ("ETag", *DRAWING_HEADERS, "X-Render-Cache")),
                   parameters=(parameters.IF_NONE_MATCH,), deadline=True)
def render_compare(req: TenantRequest, diagram_id: str, from_version_id: str, to_version_id: str,
                   culture_id: str, layout_key: str) -> Response:
    culture = parse_culture_id(culture_id, "cultureId")
    if layout_key not in catalog.LAYOUT_KEYS:
        raise InvalidInput(f"Unknown layout key {layout_key!r}; layout keys: "
                           f"{', '.join(catalog.LAYOUT_KEYS)}")
    diagram, older, newer = _versions(req, diagram_id, from_version_id, to_version_id)
    tenant = req.store.tenant
    drawn = ["compare", diagram_id, older.pk, newer.pk, req.store.reads.content_generation()]
    key = pool_key(tenant.collection_id, tenant.storage_id,
                   [*drawn, layout_key, culture, tenant.default_culture, engine_version()])

    def draw() -> bytes:
        content_keys: ContentKeys = current_app.extensions.setdefault("elrepo.content_keys", ContentKeys())
        drawn_key = pool_key(tenant.collection_id, tenant.storage_id, drawn)
        timeout = render_timeout(current_app.config)
        known = content_keys.get(drawn_key)
        if known is not None:  # refused before anything is read (render.read_drawing)
            refuse_if_timed_out("compare", timed_out_renders(), known, timeout)
        fixtures = _fixtures(req, diagram, older, newer)
        content = pool_key(tenant.collection_id, tenant.storage_id,
                           [content_key(tenant.collection_id, tenant.storage_id, "compare", f) for f in fixtures])
        content_keys.put(drawn_key, content)
        svg = render_pool().compare(RenderJob(key, content, pool_id(tenant)), fixtures,
                                    written_since(older, newer, *fixtures), layout_key, culture,
                                    timeout, default_culture=tenant.default_culture,
                                    timed_out=timed_out_renders())
        return svg.encode("utf-8")
    return cached_answer(key, current_app.extensions["elrepo.render_cache"], draw,
                         "image/svg+xml", "X-Render-Cache")


def _versions(req: TenantRequest, diagram_id: str, from_version_id: str,
              to_version_id: str) -> tuple[Element, ElementVersion, ElementVersion]:
    """The diagram (404 when the tenant has none of that id) and its two versions named,
    the diagram's own id naming its newest version (as everywhere an element or version id
    is taken); a version id that is not one of this diagram's is a 404 naming it."""
    diagram = req.store.reads.element(diagram_id)
    versions = {version.version_id: version for version in req.store.reads.versions(diagram)}
    versions[diagram.id] = req.store.reads.current_version(diagram)
    found = []
    for version_id in (from_version_id, to_version_id):
        if version_id not in versions:
            raise NotFound(f"Diagram {diagram_id!r} has no version {version_id!r}")
        found.append(versions[version_id])
    return diagram, found[0], found[1]


def written_since(older: ElementVersion, newer: ElementVersion, old_fixture: dict[str, Any],
                  new_fixture: dict[str, Any]) -> frozenset[str]:
    """The elements both versions draw that were written after the earlier of the two was
    frozen (released, requestToExpire, expired): both fixtures describe such an element
    by its one newest state, so only its `changedOn` can tell that it changed since (a
    task renamed for the pending release). None when the earlier version is not frozen
    (it is then the newest, and shares every element's state)."""
    earlier, earlier_fixture = (older, old_fixture) if older.seq <= newer.seq else (newer, new_fixture)
    if older.pk == newer.pk or earlier.state not in release.FROZEN_STATES:
        return frozenset()
    saved = _changed_on(earlier_fixture["diagram"])
    if saved is None:
        return frozenset()
    drawn_before = {value["element"]["id"] for value in earlier_fixture["values"]}
    return frozenset(value["element"]["id"] for value in new_fixture["values"]
                     if value["element"]["id"] in drawn_before
                     and (_changed_on(value["element"]) or "") > saved)


def _changed_on(element: dict[str, Any]) -> str | None:
    """The server's `changedOn` stamp (ISO 8601, seconds: compared as text)."""
    value = element.get("attributes", {}).get("changedOn", {}).get(str(LANGUAGE_NEUTRAL))
    return value if isinstance(value, str) else None


def _fixtures(req: TenantRequest, diagram: Element, older: ElementVersion,
              newer: ElementVersion) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both versions' fixtures, each counted first (413 past the render contract's
    shapes); the request's read transaction ends once they are read."""
    for version in (older, newer):
        shapes = req.store.reads.shape_count(diagram, version)
        if shapes > MAX_SHAPES:
            raise TooLarge(f"Version {version.version_id!r} of diagram {diagram.id!r} holds {shapes:,} "
                           f"shapes; a drawing holds at most {MAX_SHAPES:,}")
    fixtures = (diagram_fixture(req.store, diagram, older), diagram_fixture(req.store, diagram, newer))
    end_request_session()
    return fixtures
