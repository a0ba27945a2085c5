"""`Idempotency-Key` on the POSTs that create (update, content create): a client that
timed out retries with the same key and gets the first answer, nothing written again
(docs/api.md, "Idempotency-Key"; the rows: repository/store/idempotency.py).

The key is the caller's, within its tenant and token; it is bound to the request it was
first sent with (method, path and query, and the body as the service read it): the same
key with another request is 422, since answering the first request's result to a
different one would hide that the second never ran. Only a committed create is
remembered: a refusal wrote nothing, and its retry is answered afresh.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from flask import Response, request

from repository.api import parameters
from repository.api.common import TenantRequest
from repository.errors import InvalidInput, RepositoryError
from repository.json_provider import json_body
from repository.store.idempotency import MAX_KEY_LENGTH

REPLAYED_HEADER = "Idempotent-Replayed"
# Visible ASCII without spaces (a UUID, a hash, a counter).
_KEY = re.compile(r"[!-~]+")


class KeyReused(RepositoryError):
    """An Idempotency-Key sent again with a different request."""

    status = 422


def idempotent(req: TenantRequest, parsed: object,
               create: Callable[[], dict[str, Any]]) -> Response | dict[str, Any]:
    """`create()`'s answer; with an Idempotency-Key, the answer first given for that key
    (marked `Idempotent-Replayed: true`) instead of running `create` again. `parsed`: the
    request's body as parsed, which the key is bound to."""
    key = request.headers.get(parameters.IDEMPOTENCY_KEY.name)
    if key is None:
        return create()
    if len(key) > MAX_KEY_LENGTH or not _KEY.fullmatch(key):
        raise InvalidInput(f"{parameters.IDEMPOTENCY_KEY.name} must be 1 to {MAX_KEY_LENGTH} "
                           "visible ASCII characters, no spaces")
    fingerprint = hashlib.sha256(
        f"{request.method} {request.full_path}\n{parsed!r}".encode()).hexdigest()
    stored = req.store.writes.claim_idempotency_key(req.actor_pk, key, fingerprint)
    if stored is not None:
        if stored.fingerprint != fingerprint:
            raise KeyReused(f"This {parameters.IDEMPOTENCY_KEY.name} was used for another "
                            "request (a different path or body); use a new key for a new "
                            "request")
        replay = Response(stored.body, stored.status, mimetype="application/json")
        replay.headers[REPLAYED_HEADER] = "true"
        return replay
    body = json_body(create()).decode()
    req.store.writes.remember_answer(req.actor_pk, key, 200, body)
    return Response(body, 200, mimetype="application/json")
