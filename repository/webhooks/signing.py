"""Signatures as the Standard Webhooks specification defines them: the secret is `whsec_`
and the base64 of random bytes (the key); each delivery carries `webhook-id` (the event's
id, the same on every retry), `webhook-timestamp` (Unix seconds of this attempt) and
`webhook-signature`, `v1,` and the base64 HMAC-SHA256 under the key of
`{id}.{timestamp}.{body}`. `verify` is the receiver's side (tests, docs/events.md)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
SIGNATURE_VERSION = "v1"
ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
# How old (or how far ahead) a timestamp a receiver accepts: the specification's advice.
DEFAULT_TOLERANCE_SECONDS = 300


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signing_key(secret: str) -> bytes:
    """The key a secret stands for. ValueError when it is not `whsec_` and base64."""
    try:
        return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except binascii.Error:
        raise ValueError("A webhook secret is whsec_ followed by base64") from None


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(signing_key(secret), signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode()}"


def signed_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {ID_HEADER: message_id, TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: signature(secret, message_id, timestamp, body)}


def verify(secret: str, headers: dict[str, str], body: bytes, now: float,
           tolerance: float = DEFAULT_TOLERANCE_SECONDS) -> bool:
    """Whether `headers` (lower-case names) sign `body` with `secret` at a timestamp
    within `tolerance` of `now`. The signature header may list several, space-separated
    (a secret being rotated); one match is enough."""
    try:
        message_id, stamp = headers[ID_HEADER], int(headers[TIMESTAMP_HEADER])
        given = headers[SIGNATURE_HEADER].split()
    except (KeyError, ValueError):
        return False
    if abs(now - stamp) > tolerance:
        return False
    expected = signature(secret, message_id, stamp, body)
    return any(hmac.compare_digest(expected, candidate) for candidate in given)
