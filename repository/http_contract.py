"""The HTTP contract every layer shares: size limits, the error envelope, the headers of
every answer and of a drawing, and the render endpoint's names.

The bottom of the web side: it imports nothing of the project, so the server layer
(repository/server.py), the app factory, the endpoints and the OpenAPI document all read
the same facts without importing one another (docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_REQUEST_LINE = 8190  # gunicorn's ceiling; a URL up to about 8 KiB
MAX_HEADER_FIELD = 8190
MAX_HEADER_BYTES = 16 * 1024

RENDER_BLUEPRINT = "render"
RENDER_PATH_PART = "/_api/rest/diagram/"

#: Revalidate every time: the ETag makes that a cheap 304.
REVALIDATE = "private, no-cache"
#: On every answer: a browser never reads a JSON refusal, an SVG or the OpenAPI document
#: as something it could run.
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff"}
#: On every drawing (SVG, BPMN XML): inline styles and the embedded font are all an SVG of
#: ours needs; no script, no fetch.
DRAWING_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; font-src data:",
    **SECURITY_HEADERS,
    "Cache-Control": REVALIDATE,
}


def error_body(status: int, result_type: str, message: str, details: list[str] | None,
               *, render: bool) -> dict[str, Any]:
    """The contract's error envelope; the render endpoint's form has no `output`. Also
    used by the server layer, for refusals that never reach Flask."""
    body: dict[str, Any] = {"message": message}
    if not render:
        body["output"] = "inline" if status < 500 else "dialog"
    body["type"] = result_type
    body["data"] = [{"error": d} for d in (details if details is not None else [message])]
    return body
