"""The caller's own token: its name, role and permissions, so a client (the viewer's
header) can say who is signed in without decoding anything (docs/viewer.md, "Identity").
Not in the seed; an extension of ours (docs/contract.md, "Endpoints")."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from repository.api.common import TenantRequest, values_envelope
from repository.api.endpoint import Resource
from repository.api.routes import TENANT
from repository.store.models import Element, Token

resource = Resource("caller", __name__)


@resource.endpoint("GET", (TENANT + "/_api/rest/token", TENANT + "/_api/token"),
                   summary="The caller's own token: name, role, permissions",
                   api_version="1.0", answer="CallerValues")
def own_token(req: TenantRequest) -> dict[str, Any]:
    session = req.store.context.session
    token = session.scalars(select(Token).where(Token.element_pk == req.caller.actor_pk)).first()
    element_id = session.scalar(select(Element.id).where(Element.pk == req.caller.actor_pk))
    return values_envelope([{
        "id": element_id,
        "name": token.name if token is not None else "",
        "role": req.caller.role,
        "permissions": req.caller.ordered_permissions(),
        "expiresAt": token.expires_at if token is not None else None,
    }])
