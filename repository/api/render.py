"""Seed endpoint 16: a diagram rendered as SVG by the engine (`renderer.api.render`).

Errors here use the render error shape (no `output`); app.error_response decides that
by this blueprint's name.

The render cache (repository/render_cache.py) is consulted only after the caller passed
every check and the diagram's fixture is built, because the fixture is the key: a
changed element is a new key, never a stale picture. Only successful renders are stored,
and a hit answers exactly the bytes a fresh render would; `X-Render-Cache` says which.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from repository import catalog
from repository.api.common import tenant_request
from repository.api.routes import TENANT
from repository.errors import InvalidInput
from repository.fixtures import diagram_fixture
from repository.render_cache import RenderCache, render_key

blueprint = Blueprint("render", __name__)


@blueprint.get(TENANT + "/_api/rest/diagram/<diagram_id>/render/<culture_id>/<layout_key>")
def render_diagram(collection_id: str, storage_id: str, diagram_id: str, culture_id: str,
                   layout_key: str) -> Response:
    req = tenant_request(collection_id, storage_id, "2.0")
    if not culture_id.isdigit():
        raise InvalidInput(f"cultureId must be a numeric culture id such as 1033, got "
                           f"{culture_id!r}")
    if layout_key not in catalog.LAYOUT_KEYS:
        raise InvalidInput(f"Unknown layout key {layout_key!r}; layout keys: "
                           f"{', '.join(catalog.LAYOUT_KEYS)}")
    culture = int(culture_id)
    fixture = diagram_fixture(req.store, req.store.element(diagram_id))
    cache: RenderCache = current_app.extensions["elrepo.render_cache"]
    tenant = req.store.tenant  # its stored ids, as maintenance names the pool
    key = render_key(tenant.collection_id, tenant.storage_id, fixture, layout_key, culture)
    svg = cache.get(key)
    outcome = "hit"
    if svg is None:
        svg = render_fixture(fixture, layout_key, culture).encode("utf-8")
        cache.put(key, svg)
        outcome = "miss"
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["X-Render-Cache"] = outcome
    return response


def render_fixture(fixture: dict[str, object], layout_key: str, culture: int) -> str:
    """The engine's SVG; its input errors (unknown or unfinished layouts included) → 400."""
    try:
        # Imported here: the engine is built alongside and may be absent in this build.
        from renderer.api import RenderInputError, render
    except ImportError:
        raise InvalidInput(f"Layout {layout_key!r} is not available in this build") from None
    try:
        return render(fixture, layout_key, culture)
    except RenderInputError as error:
        raise InvalidInput(str(error)) from None
