"""Seed endpoints 14-15: the transitions allowed now, and running one. Reachable with and
without the `rest` segment; the list also answers POST (under `transitions`)."""

from __future__ import annotations

from typing import Any

from flask import request

from repository import release
from repository.api import parameters
from repository.api.common import TenantRequest, elements_envelope
from repository.api.endpoint import Resource
from repository.api.lookup import serializer
from repository.api.routes import RELEASE_PREFIXES
from repository.errors import InvalidInput, NotFound
from repository.input_rules import check_text
from repository.serialize import Shaping

resource = Resource("release", __name__)


@resource.endpoint(("GET", "POST"),
                   tuple(prefix + "/<element_id>/transitions" for prefix in RELEASE_PREFIXES),
                   summary="List transitions allowed now", api_version="1.0",
                   answer="Transitions", writes=False)
def list_transitions(req: TenantRequest, element_id: str) -> dict[str, Any]:
    element = req.store.reads.element(element_id)
    state = req.store.reads.current_version(element).state if element.versioned else None
    values = [{"transitionId": t.transition_id, "sourceState": t.source,
               "targetState": t.target}
              for t in release.allowed(state, req.caller.permissions)]
    if request.method == "POST":
        return {"count": len(values), "transitions": values}
    return {"count": len(values), "values": values}


@resource.endpoint("POST", tuple(prefix + "/<element_id>/transitions/<transition_id>"
                                 for prefix in RELEASE_PREFIXES),
                   summary="Change state", api_version="4.0", answer="ElementList",
                   parameters=(parameters.IGNORE_WARNINGS, parameters.RELEASE_COMMENT))
def change_state(req: TenantRequest, element_id: str, transition_id: str) -> dict[str, Any]:
    name = parameters.IGNORE_WARNINGS.name
    ignore_warnings = request.args.get(name)
    if ignore_warnings is not None and ignore_warnings.lower() not in ("true", "false"):
        raise InvalidInput(f"{name} must be true or false, got {ignore_warnings!r}")
    try:
        transition = release.find(transition_id)
    except release.UnknownTransition:
        raise NotFound(f"Transition {transition_id!r} not found") from None
    comment = _release_comment(transition)
    element = req.store.reads.element(element_id)
    req.caller.require(transition.permission)
    req.store.releases.transition(element, transition, req.actor_pk, comment=comment)
    return elements_envelope(serializer(req, Shaping()).elements([(element, None)]))


def _release_comment(transition: release.Transition) -> str | None:
    """The optional `comment` of a release: plain text of bounded length; refused (400)
    with a transition that does not release, which would have nowhere to keep it."""
    comment = request.args.get(parameters.RELEASE_COMMENT.name)
    if comment is None or not comment.strip():
        return None
    if transition.effect is not release.Effect.RELEASE:
        raise InvalidInput(f"A comment goes with a release; {transition.transition_id} "
                           "does not release")
    if len(comment) > parameters.RELEASE_COMMENT_LENGTH:
        raise InvalidInput(f"A release comment holds at most {parameters.RELEASE_COMMENT_LENGTH} "
                           f"characters, not {len(comment)}")
    check_text(comment, "The release comment")
    return comment.strip()
