"""Seed endpoint 16: a diagram rendered as SVG by the engine (`renderer.api.render`).

Errors here use the render error shape (no `output`); app.error_response decides that
by this blueprint's name.

The render cache (repository/render_cache.py) is consulted only after the caller passed
every check. Its key costs two indexed reads, the diagram's newest version (a plain row,
no element loaded) and the tenant's content generation (a counter every write in the
tenant bumps), and no fixture: a hit never builds one. The generation is read before
the fixture of a miss is built, so a write committed in between can only make a picture
newer than its key, never older. Only successful renders are stored, and a hit answers
exactly the bytes a fresh render would; `X-Render-Cache` says which.

The key names everything the picture depends on (data, layout, culture, tenant and
engine), so its digest is the answer's strong `ETag`: a client naming it in
`If-None-Match` gets 304 without any render or cache lookup. Renders run in this
app's render processes under a deadline (repository/render_pool.py): past it 503
with `Retry-After`, and the worker lives on; every render of the same content is then
refused for a while by every worker (`render_cache.content_key`,
repository/render_refusals.py), and each tenant takes its fair share of the processes.

A miss reads what it draws and then ends the request's transaction (`read_drawing`):
the render that follows holds no database connection, however long it takes. Content
stored past the render contract's shape limit (before the write limits held) is refused
from a count of its shapes, before anything grows with it.

A flow layout is kept stable across versions (issue 22; docs/layout.md, "Stable
layout"): the render reads the diagram's sketch record (repository/store/sketches.py,
one more indexed read), draws from the sketch it gives (whose digest joins the cache
key) and keeps the sketch of the new drawing as the version's record.

Every answer of this blueprint, refusals included, carries headers that keep an SVG from
running script or being sniffed as another type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, current_app

from renderer.contract import MAX_SHAPES
from renderer.sketch_svg import SKETCHED_LAYOUTS, sketch_of_svg
from repository import catalog
from repository.api import parameters
from repository.api.common import TenantRequest, cached_answer
from repository.api.endpoint import Answer, Resource
from repository.api.routes import TENANT
from repository.api.session import end_request_session
from repository.errors import InvalidInput, TooLarge
from repository.fixtures import diagram_fixture
from repository.http_contract import DRAWING_HEADERS, RENDER_BLUEPRINT
from repository.input_rules import parse_culture_id
from repository.render_cache import DrawnState, content_key, pool_key, render_key
from repository.render_pool import (
    RenderJob,
    RenderPool,
    Work,
    refuse_if_timed_out,
    render_timeout,
)
from repository.render_refusals import ContentKeys, TimedOutRenders
from repository.store import Store, sketches
from repository.store.maintenance import pool_id
from repository.store.models import Element

resource = Resource(RENDER_BLUEPRINT, __name__, error_schema="RenderError")

@resource.blueprint.after_request
def add_security_headers(response: Response) -> Response:
    response.headers.update(DRAWING_HEADERS)
    return response


@resource.endpoint("GET", TENANT + "/_api/rest/diagram/<diagram_id>/render/<culture_id>/"
                                  "<layout_key>",
                   summary="Render a diagram as SVG", api_version="2.0",
                   answer=Answer("Svg", "image/svg+xml",
                                 ("ETag", *DRAWING_HEADERS, "X-Render-Cache")),
                   parameters=(parameters.IF_NONE_MATCH,), deadline=True)
def render_diagram(req: TenantRequest, diagram_id: str, culture_id: str,
                   layout_key: str) -> Response:
    culture = parse_culture_id(culture_id, "cultureId")
    if layout_key not in catalog.LAYOUT_KEYS:
        raise InvalidInput(f"Unknown layout key {layout_key!r}; layout keys: "
                           f"{', '.join(catalog.LAYOUT_KEYS)}")
    drawn = DrawnState(diagram_id, req.store.reads.newest_version_pk(diagram_id),
                       req.store.reads.content_generation())
    tenant = req.store.tenant  # its stored ids, as maintenance names the pool
    record = (sketches.recorded(req.store.session, tenant.pk, diagram_id, drawn.version_pk, layout_key, culture)
              if layout_key in SKETCHED_LAYOUTS else None)
    sketch = record.sketch_for(drawn.version_pk, drawn.generation) if record else ""
    key = render_key(tenant.collection_id, tenant.storage_id, drawn, layout_key, culture,
                     default_culture=tenant.default_culture, sketch=sketches.sketch_digest(sketch))

    def draw() -> bytes:
        job, fixture = read_drawing(req, "render", key, drawn, diagram_fixture)
        svg = render_fixture(job, fixture, layout_key, culture, tenant.default_culture, sketch).encode("utf-8")
        drawing = drawn_sketch(svg, layout_key)
        if drawing is not None:
            new = sketches.NewRecord(tenant.pk, diagram_id, drawn.version_pk, layout_key, culture,
                                     drawn.generation, drawing, sketch)
            if not new.is_held_by(record):
                sketches.remember(current_app.extensions["elrepo.sessions"], new)
        return svg
    return cached_answer(key, current_app.extensions["elrepo.render_cache"], draw,
                         "image/svg+xml", "X-Render-Cache")


def drawn_sketch(svg: bytes, layout_key: str) -> str | None:
    """The sketch of a flow drawing as JSON; None for other layouts and for a drawing
    without shapes (nothing to keep)."""
    if layout_key not in SKETCHED_LAYOUTS:
        return None
    try:
        return sketch_of_svg(svg, layout_key).to_json()
    except ValueError:
        return None


def render_fixture(job: RenderJob, fixture: dict[str, object], layout_key: str,
                   culture: int, default_culture: int, sketch: str = "") -> str:
    """The engine's SVG, drawn in a render process of this worker within the deadline,
    laid out from `sketch` (JSON; "" for a fresh layout); its input errors (unknown or
    unfinished layouts included) → 400."""
    return render_pool().render(job, fixture, layout_key, culture,
                                render_timeout(current_app.config),
                                default_culture=default_culture, timed_out=timed_out_renders(),
                                sketch=sketch)


def read_drawing(req: TenantRequest, work: Work, key: str, drawn: DrawnState,
                 build: Callable[[Store, Element], dict[str, Any]]
                 ) -> tuple[RenderJob, dict[str, Any]]:
    """The job and the fixture `build` makes of the diagram `drawn` names, for the render
    (or export) `key` names. Refused first, from two indexed reads, when this worker saw
    the same drawn state's content time out lately (`ContentKeys`: the fixture of 19,900
    links takes 80 ms to read); then when a count of its shapes finds them past the render
    contract (413: 100,000 stored shapes took 7.5 s to read into a fixture). Once read,
    the request's read transaction ends and its connection goes back to the pool: the
    render may take its whole deadline, and nothing after it reads the database."""
    tenant = req.store.tenant
    content_keys: ContentKeys = current_app.extensions.setdefault("elrepo.content_keys",
                                                                  ContentKeys())
    drawn_key = pool_key(tenant.collection_id, tenant.storage_id,
                         [work, drawn.diagram_id, drawn.version_pk, drawn.generation])
    known = content_keys.get(drawn_key)
    if known is not None:
        refuse_if_timed_out(work, timed_out_renders(), known, render_timeout(current_app.config))
    diagram = req.store.reads.element(drawn.diagram_id)
    shapes = req.store.reads.shape_count(diagram)
    if shapes > MAX_SHAPES:
        raise TooLarge(f"Diagram {diagram.id!r} holds {shapes:,} shapes; a drawing holds at "
                       f"most {MAX_SHAPES:,}")
    fixture = build(req.store, diagram)
    content = content_key(tenant.collection_id, tenant.storage_id, work, fixture)
    content_keys.put(drawn_key, content)
    end_request_session()
    return RenderJob(key, content, pool_id(tenant)), fixture


def render_pool() -> RenderPool:
    """The app's render processes (repository/app.py makes them)."""
    pool: RenderPool = current_app.extensions["elrepo.render_pool"]
    return pool


def timed_out_renders() -> TimedOutRenders:
    """The server's memory of timed-out renders (repository/render_refusals.py)."""
    memory: TimedOutRenders = current_app.extensions["elrepo.timed_out_renders"]
    return memory
