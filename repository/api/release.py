"""Seed endpoints 14-15: the transitions allowed now, and running one. Reachable with and
without the `rest` segment; the list also answers POST (under `transitions`)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from repository import release
from repository.api.common import elements_envelope, tenant_request
from repository.api.lookup import serializer
from repository.api.routes import RELEASE_PREFIXES
from repository.errors import InvalidInput, NotFound
from repository.serialize import Shaping

blueprint = Blueprint("release", __name__)


def _transitions(collection_id: str, storage_id: str, element_id: str) -> list[dict[str, str]]:
    req = tenant_request(collection_id, storage_id, "1.0")
    element = req.store.element(element_id)
    state = req.store.current_version(element).state if element.versioned else None
    return [{"transitionId": t.transition_id, "sourceState": t.source,
             "targetState": t.target}
            for t in release.allowed(state, req.caller.permissions)]


def list_transitions(collection_id: str, storage_id: str, element_id: str) -> dict[str, Any]:
    values = _transitions(collection_id, storage_id, element_id)
    if request.method == "POST":
        return {"count": len(values), "transitions": values}
    return {"count": len(values), "values": values}


def change_state(collection_id: str, storage_id: str, element_id: str,
                 transition_id: str) -> dict[str, Any]:
    req = tenant_request(collection_id, storage_id, "4.0")
    ignore_warnings = request.args.get("ignoreWarnings")
    if ignore_warnings is not None and ignore_warnings.lower() not in ("true", "false"):
        raise InvalidInput(f"ignoreWarnings must be true or false, got {ignore_warnings!r}")
    try:
        transition = release.find(transition_id)
    except release.UnknownTransition:
        raise NotFound(f"Transition {transition_id!r} not found") from None
    element = req.store.element(element_id)
    req.caller.require(transition.permission)
    req.store.transition(element, transition, req.actor_pk)
    return elements_envelope(serializer(req, Shaping()).elements([(element, None)]))


for _variant, _prefix in enumerate(RELEASE_PREFIXES):
    blueprint.add_url_rule(_prefix + "/<element_id>/transitions", view_func=list_transitions,
                           methods=["GET", "POST"], endpoint=f"list_transitions_{_variant}")
    blueprint.add_url_rule(_prefix + "/<element_id>/transitions/<transition_id>",
                           view_func=change_state, methods=["POST"],
                           endpoint=f"change_state_{_variant}")
