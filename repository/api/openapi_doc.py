"""GET /openapi.json: the OpenAPI 3 description of every endpoint."""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from repository.openapi import document

blueprint = Blueprint("openapi", __name__)


@blueprint.get("/openapi.json")
def openapi_json() -> dict[str, Any]:
    return document()
