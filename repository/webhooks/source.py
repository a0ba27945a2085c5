"""What the deliveries read from the change feed and write to it, as an interface: the
worker is given an `EventSource`, the feed's (`feed_source`) in the service, a list in
the unit tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy.orm import Session

EVENT_SOURCE = "elrepo.event_source"  # the app's `EventSource`, in app.extensions


class FeedEvent(Protocol):
    """One event of a tenant's feed (repository/events/feed.py's `ChangeEvent`)."""

    @property
    def sequence(self) -> int: ...  # its position in the tenant's commit order
    @property
    def tenant_id(self) -> int: ...
    @property
    def event_type(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def cloud_event(self) -> dict[str, object]: ...


class EventSource(Protocol):
    def read(self, session: Session, tenant_pk: int, after: int,
             limit: int) -> Sequence[FeedEvent]:
        """The tenant's events after sequence `after`, in order, at most `limit`."""

    def latest(self, session: Session, tenant_pk: int) -> int:
        """The sequence of the tenant's newest event (0: none yet)."""

    def record(self, session: Session, tenant_pk: int, event_type: str, subject: str,
               data: dict[str, object]) -> None:
        """Add an event to the tenant's feed in the session's transaction."""
