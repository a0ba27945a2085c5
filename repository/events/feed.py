"""The change feed (docs/events.md): each tenant's committed changes as CloudEvents, in
commit order, from the outbox the store writes in every change's own transaction
(repository/store/changes.py).

Readers page through it with a cursor: an opaque string naming the last event a reader
has, handed back with each page. A cursor behind what retention removed is refused
(410): the reader has missed events and must start again from the oldest kept.

A reader is shown the events its role may know of (`hidden_from`): the element events to
every reading role, the webhooks' own events only to those who may read the webhooks.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from sqlalchemy.orm import Session

from repository.auth import MANAGE_WEBHOOKS
from repository.errors import Gone, InvalidInput
from repository.store.changes import (
    WEBHOOK_TYPES,
    Change,
    ChangeEvent,
    changes_after,
    feed_bounds,
    record_changes,
)

__all__ = ["ChangeEvent", "FeedPage", "decode_cursor", "encode_cursor", "hidden_from",
           "read_events", "read_page", "record_event"]

_CURSOR_PREFIX = "c1."
_CURSOR_TEXT = re.compile(r"^c1\.([0-9]{1,19})$")
MAX_CURSOR_LENGTH = 64


def record_event(session: Session, tenant_id: int, event_type: str, subject: str,
                 data: dict[str, object]) -> ChangeEvent:
    """One event, numbered after the tenant's last, in the caller's transaction. Call it
    after the transaction's element writes: they take the tenant's content generation
    lock first, and this the counter's; the other order could deadlock with a writer."""
    return record_changes(session, tenant_id, [Change(event_type, subject, data)])[0]


def read_events(session: Session, tenant_id: int, after_sequence: int, limit: int,
                without: frozenset[str] = frozenset()) -> list[ChangeEvent]:
    """Up to `limit` events of the tenant after `after_sequence` (0: from the oldest
    kept), in commit order, none of the types `without`."""
    return changes_after(session, tenant_id, after_sequence, limit, without)


def hidden_from(permissions: frozenset[str]) -> frozenset[str]:
    """The event types a reader with these permissions is not shown. Element events are
    shown to every reading role, since each may read every element of its tenant (the
    listings answer them all, the access tokens' `authToken` elements too, and an event
    holds attribute names, never values). A webhook's events name its URL and its
    receiver's errors, which only `MANAGE_WEBHOOKS` may read through the API."""
    return frozenset() if MANAGE_WEBHOOKS in permissions else WEBHOOK_TYPES


def encode_cursor(sequence: int) -> str:
    """The cursor after the event numbered `sequence`: opaque to readers, so its form
    may change (a new prefix) without breaking them."""
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{sequence}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The event number a cursor of `encode_cursor` names; 400 for any other text."""
    refusal = InvalidInput(f"cursor {cursor[:MAX_CURSOR_LENGTH]!r} is not a cursor of this "
                           "feed; pass back the `cursor` of an earlier answer, or none to "
                           "start from the oldest event kept")
    if len(cursor) > MAX_CURSOR_LENGTH or not cursor.isascii():
        raise refusal
    try:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, ValueError):
        raise refusal from None
    match = _CURSOR_TEXT.fullmatch(decoded)
    if match is None or encode_cursor(int(match[1])) != cursor:
        raise refusal
    return int(match[1])


@dataclass(frozen=True, slots=True)
class FeedPage:
    events: list[ChangeEvent]
    cursor: str  # after the page's last event (the one given back when it is empty)


def read_page(session: Session, tenant_id: int, cursor: str | None, limit: int,
              without: frozenset[str] = frozenset()) -> FeedPage:
    """The events after `cursor` (None: from the oldest kept), none of the types
    `without`: 410 when retention has removed events the reader has not had. The cursor
    of a page names its last event shown, so a hidden one never stops a reader."""
    after = 0 if cursor is None else decode_cursor(cursor)
    trimmed, last = feed_bounds(session, tenant_id)
    if after > last:
        raise InvalidInput(f"cursor names event {after}, which this feed has not reached "
                           f"(its newest is {last})")
    if after < trimmed and cursor is not None:
        raise Gone(f"Events up to {trimmed} were removed by retention after this cursor; "
                   "start again without a cursor (from the oldest event kept)")
    events = read_events(session, tenant_id, max(after, trimmed), limit, without)
    return FeedPage(events, encode_cursor(events[-1].sequence if events else max(after, trimmed)))
