"""The change feed (repository/events/feed.py) as the deliveries' `EventSource`: the one
place the webhooks meet the feed."""

from __future__ import annotations

from sqlalchemy.orm import Session

from repository.events.feed import ChangeEvent, read_events, record_event
from repository.store.changes import feed_bounds


class FeedSource:
    def read(self, session: Session, tenant_pk: int, after: int,
             limit: int) -> list[ChangeEvent]:
        return read_events(session, tenant_pk, after, limit)

    def latest(self, session: Session, tenant_pk: int) -> int:
        return feed_bounds(session, tenant_pk)[1]

    def record(self, session: Session, tenant_pk: int, event_type: str, subject: str,
               data: dict[str, object]) -> None:
        record_event(session, tenant_pk, event_type, subject, data)


FEED_SOURCE = FeedSource()
