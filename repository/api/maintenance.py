"""Seed endpoint 17: maintain one pool or all; needs the service-auth-token header."""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy.orm import Session

from repository.api.common import values_envelope
from repository.api.endpoint import Resource
from repository.errors import NotFound
from repository.store import all_tenants
from repository.store.db import lift_statement_deadline
from repository.store.maintenance import maintain_pool, pool_id

resource = Resource("maintenance", __name__)
MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"


@resource.endpoint("GET", (MAINTAIN, MAINTAIN + "/<pool>"), summary="Maintain pools",
                   api_version="4.0", answer="PoolResults", service=True, writes=True)
def maintain(db: Session, pool: str | None = None) -> dict[str, Any]:
    lift_statement_deadline(db.connection())  # the service's own work, as long as it needs
    tenants = [t for t in all_tenants(db)
               if pool is None or pool_id(t) == pool]
    if pool is not None and not tenants:
        raise NotFound(f"Pool {pool!r} not found")
    caches = [current_app.extensions["elrepo.render_cache"],
              current_app.extensions["elrepo.listing_cache"]]
    retention = current_app.extensions["elrepo.settings"].event_retention_days
    return values_envelope([{"item1": pool_id(t), "item2": maintain_pool(db, t, caches, retention)}
                            for t in tenants])
