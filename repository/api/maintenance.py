"""Seed endpoint 17: maintain one pool or all; needs the service-auth-token header."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, request
from sqlalchemy import select

from repository import auth
from repository.api.common import check_api_version, session, values_envelope
from repository.errors import NotFound
from repository.maintenance import maintain_pool, pool_id
from repository.models import Tenant

blueprint = Blueprint("maintenance", __name__)
MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"


@blueprint.get(MAINTAIN)
@blueprint.get(MAINTAIN + "/<pool>")
def maintain(pool: str | None = None) -> dict[str, Any]:
    check_api_version("4.0")
    auth.check_service_token(request.headers.get("service-auth-token"))
    db = session(write=True)
    tenants = [t for t in db.scalars(select(Tenant).order_by(Tenant.pk))
               if pool is None or pool_id(t) == pool]
    if pool is not None and not tenants:
        raise NotFound(f"Pool {pool!r} not found")
    render_cache = current_app.extensions["elrepo.render_cache"]
    return values_envelope([{"item1": pool_id(t), "item2": maintain_pool(db, t, render_cache)}
                            for t in tenants])
