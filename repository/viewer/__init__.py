"""The built-in web viewer: a single page under `/ui/` that talks only to this service
(docs/viewer.md).

The page is static (index.html, viewer.css and the ES modules viewer.js imports; no build
step); this module serves it with strict security headers, plus two things the page cannot
get from the REST API:
`catalog.json` (facets, element types, layout keys and cultures, derived from
`repository.catalog` so the page never repeats them) and the Source Sans Pro face the
renderer measures text with, so labels fit their shapes in the browser too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources

from flask import Blueprint, Flask, Response, abort, redirect, request

from interchange.kept import KEPT_ATTRIBUTES
from renderer.culture import text_keyed
from renderer.names import RELATION_NAMES
from repository import auth, catalog, release

__all__ = ["URL_PREFIX", "register_viewer"]

URL_PREFIX = "/ui"
CATALOG_ASSET = "catalog.json"
FONT_ASSET = "SourceSansPro-Regular.ttf"
JAVASCRIPT = "text/javascript; charset=utf-8"  # what browsers require of module scripts
# The page's own files and their content types; nothing else in the package is served.
STATIC_ASSETS: dict[str, str] = {
    "index.html": "text/html; charset=utf-8",
    "viewer.css": "text/css; charset=utf-8",
    "viewer.js": JAVASCRIPT,  # the entry module; it imports the others
    "page.js": JAVASCRIPT,
    "api.js": JAVASCRIPT,
    "tree.js": JAVASCRIPT,
    "diagram.js": JAVASCRIPT,
    "view.js": JAVASCRIPT,
    "flow.js": JAVASCRIPT,
    "search.js": JAVASCRIPT,
    "edit.js": JAVASCRIPT,
    "panel.js": JAVASCRIPT,
    "compare.js": JAVASCRIPT,
    "bpmn.js": JAVASCRIPT,
    "i18n.js": JAVASCRIPT,
}
# Rendered SVG is inserted into the page (after diagram.js sanitizes it); PNG export draws
# it from a blob: URL, the only source beyond 'self' the page needs.
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' blob: data:; object-src 'none'; "
                           "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_CULTURE_NAMES = {catalog.ENGLISH: "English", catalog.GERMAN: "Deutsch"}


def register_viewer(app: Flask) -> None:
    """Serve the viewer at `/ui/` on `app`; the service's root leads there."""
    app.register_blueprint(_blueprint())
    app.add_url_rule("/", "viewer_home", lambda: redirect(f"{URL_PREFIX}/"))


def _blueprint() -> Blueprint:
    blueprint = Blueprint("viewer", __name__, url_prefix=URL_PREFIX)

    @blueprint.get("/")
    def index() -> Response:
        return _asset_response("index.html")

    @blueprint.get("/<asset>")
    def asset(asset: str) -> Response:
        return _asset_response(asset)

    return blueprint


def _asset_response(name: str) -> Response:
    if name in STATIC_ASSETS:
        body = (resources.files(__package__) / name).read_bytes()
        mimetype = STATIC_ASSETS[name]
    elif name == CATALOG_ASSET:
        body = json.dumps(catalog_document(), ensure_ascii=False, sort_keys=True).encode()
        mimetype = "application/json"
    elif name == FONT_ASSET:
        body = (resources.files("font_source_sans_pro") / "files" / FONT_ASSET).read_bytes()
        mimetype = "font/ttf"
    else:
        abort(404)
    response = Response(body, content_type=mimetype)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    # Revalidated on every load (cheap: 304 by ETag), so a new elrepo's page shows at once.
    response.headers["Cache-Control"] = "no-cache"
    response.add_etag()
    response.make_conditional(request)  # 304 when the client's copy is current
    return response


def catalog_document() -> dict[str, object]:
    """What the page needs to know of the catalog: each facet's views, each type's facet
    and display names, the layout keys and the cultures it offers, the attributes a BPMN
    import keeps (the panel says them in a line of their own, `bpmn.js`), and the words
    a reader sees instead of keys: facets, views, layouts, attributes and their selection
    values, related contexts, states, transitions and roles (`repository.catalog`)."""
    return {
        "facets": [{"name": facet.name, "views": list(facet.views),
                    "displayNames": text_keyed(catalog.FACET_NAMES[facet.name])}
                   for facet in catalog.FACETS.values()],
        "types": {key: {"facet": catalog.facet_of_type(key),
                        "displayNames": text_keyed(element_type.display_names),
                        "color": element_type.color}
                  for key, element_type in catalog.TYPES.items()},
        "layouts": list(catalog.LAYOUT_KEYS),
        "cultures": [{"id": culture, "name": name} for culture, name in _CULTURE_NAMES.items()],
        "neutralCulture": catalog.NEUTRAL,
        "keptAttributes": sorted(KEPT_ATTRIBUTES),
        "internalAttributes": sorted(catalog.INTERNAL_ATTRIBUTES),
        "nextStepBy": _next_step_roles(),
        "names": {
            "layouts": _each_by_culture(catalog.LAYOUT_NAMES),
            "views": _each_by_culture(catalog.VIEW_NAMES),
            "attributes": _each_by_culture(catalog.ATTRIBUTE_NAMES),
            "selectionValues": {attribute: _each_by_culture(values)
                                for attribute, values in catalog.SELECTION_VALUE_NAMES.items()},
            "related": _each_by_culture(RELATION_NAMES),
            "states": _each_by_culture(catalog.STATE_DISPLAY_NAMES),
            "transitions": _each_by_culture(catalog.TRANSITION_NAMES),
            "roles": _each_by_culture(catalog.ROLE_NAMES),
        },
    }


def _next_step_roles() -> dict[str, list[str]]:
    """Release state -> the roles whose turn it is there: for each step out of it, the
    narrowest role holding the step's permission (an editor for EditElement, an approver
    for ApproveElement). The panel says so to a role with no step of its own."""
    def meant_for(permission: str) -> str:
        holders = [role for role, permissions in auth.ROLE_PERMISSIONS.items() if permission in permissions]
        return min(holders, key=lambda role: len(auth.ROLE_PERMISSIONS[role]))

    turns: dict[str, list[str]] = {}
    for transition in release.TRANSITIONS:
        roles = turns.setdefault(transition.source, [])
        if (role := meant_for(transition.permission)) not in roles:
            roles.append(role)
    return turns


def _each_by_culture(table: Mapping[str, Mapping[int, str]]) -> dict[str, dict[str, str]]:
    return {key: text_keyed(names) for key, names in table.items()}
