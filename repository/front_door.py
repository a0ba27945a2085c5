"""What every answer of the app carries, and the guard of the maintenance token: the
front door's rules inside Flask (the server layer's own are in repository/server.py;
docs/reliability.md, "Front door (issue 18)").

- Every answer says `X-Content-Type-Options: nosniff`: a browser never reads a JSON
  refusal, an SVG or the OpenAPI document as something it could run.
- OPTIONS answers 204 with `Allow` and no body (Flask's own answer is an empty
  `text/html` page).
- The maintenance token's `ServiceTokenGuard` (repository/auth.py) is one per app: one
  per worker process.
"""

from __future__ import annotations

from flask import Flask, Response, request

from repository.auth import ServiceTokenGuard
from repository.http_contract import SECURITY_HEADERS

SERVICE_TOKEN_GUARD = "elrepo.service_token_guard"


def register_front_door(app: Flask, service_token: str | None) -> None:
    """`app.config` may set SERVICE_TOKEN_GUARD, a ready `ServiceTokenGuard` (tests);
    else the guard checks `service_token`."""
    guard = app.config.get("SERVICE_TOKEN_GUARD")
    app.extensions[SERVICE_TOKEN_GUARD] = guard if guard is not None else ServiceTokenGuard(service_token)
    app.after_request(_front_door_headers)


def _front_door_headers(response: Response) -> Response:
    if request.method == "OPTIONS" and response.status_code == 200:
        # Flask's automatic answer (no endpoint declares OPTIONS): keep only its Allow.
        response.status_code = 204
        response.set_data(b"")
        for name in ("Content-Type", "Content-Length"):
            response.headers.pop(name, None)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response
