"""The change feed's outbox (docs/events.md): one row per committed change of a tenant,
written in the change's own transaction, so a change and its event are committed or
rolled back together.

Order is the tenant's commit order, without gaps: each event takes the next number of
the tenant's counter row (`change_counters`), incremented by the statement that numbers
the events. On PostgreSQL that update holds the row's lock until the transaction ends,
so the tenant's writers take their numbers one after another, each only once the
previous holder has committed (and is visible) or rolled back (and its numbers with
it). A reader paging by number therefore never meets a number that a later commit
fills in: an autoincrement key would not do, as a transaction may commit before one that
drew a smaller key. SQLite has one writer at a time anyway (BEGIN IMMEDIATE).

Each row keeps the CloudEvents 1.0 JSON it answers, made once here: readers and the
webhook deliveries hand out the same bytes, with the same `id`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CursorResult,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    delete,
    insert,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from repository.store.models import ID_LENGTH, Base, Element, Tenant
from repository.store.values import new_id

SPEC_VERSION = "1.0"
TYPE_PREFIX = "elrepo.element."
CREATED = TYPE_PREFIX + "created"
UPDATED = TYPE_PREFIX + "updated"
CONTENT_CHANGED = TYPE_PREFIX + "contentChanged"
STATE_CHANGED = TYPE_PREFIX + "stateChanged"
VERSION_CREATED = TYPE_PREFIX + "versionCreated"
REMOVED = TYPE_PREFIX + "removed"
ELEMENT_TYPES = (CREATED, UPDATED, CONTENT_CHANGED, STATE_CHANGED, VERSION_CREATED, REMOVED)
WEBHOOK_DISABLED = "elrepo.webhook.disabled"
#: Events about the tenant's webhooks: they name a receiver's URL (its query may hold a
#: key of the receiver's) and its errors, which only those who may read the webhooks see.
WEBHOOK_TYPES = frozenset({WEBHOOK_DISABLED})
EVENT_TYPE_LENGTH = 128
SEQUENCE_DIGITS = 20  # a BigInteger's largest number has 19


class ChangeRecord(Base):
    __tablename__ = "change_events"
    __table_args__ = (Index("ix_change_events_position", "tenant_pk", "sequence", unique=True),
                      Index("ix_change_events_recorded", "tenant_pk", "recorded"))

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"))
    sequence: Mapped[int] = mapped_column(BigInteger)  # the tenant's commit order, from 1
    event_type: Mapped[str] = mapped_column(String(EVENT_TYPE_LENGTH))
    subject: Mapped[str] = mapped_column(String(ID_LENGTH))
    recorded: Mapped[float] = mapped_column(Float)  # seconds since the epoch (retention)
    cloud_event: Mapped[str] = mapped_column(Text)  # the CloudEvents JSON, as answered


class ChangeCounter(Base):
    """The tenant's last event number, and the last one retention removed (readers
    behind it have missed events: they are told so)."""
    __tablename__ = "change_counters"

    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"),
                                           primary_key=True)
    last_sequence: Mapped[int] = mapped_column(BigInteger)
    trimmed_through: Mapped[int] = mapped_column(BigInteger, default=0)


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """One event of the feed: `sequence` is its position in the tenant's commit order."""
    sequence: int
    tenant_id: int
    event_type: str
    subject: str
    cloud_event: dict[str, object]


@dataclass(frozen=True, slots=True)
class Change:
    """An event to record: its type, the element id it is about, and its `data`."""
    event_type: str
    subject: str
    data: dict[str, object]


def record_changes(session: Session, tenant_pk: int,
                   changes: Sequence[Change]) -> list[ChangeEvent]:
    """Number the changes after the tenant's last event and write them, in the caller's
    transaction (two statements however many)."""
    if not changes:
        return []
    last = _advance_counter(session, tenant_pk, len(changes))
    tenant = session.get_one(Tenant, tenant_pk)
    source = f"/{tenant.collection_id}/{tenant.storage_id}"
    now = time.time()
    stamp = datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds")
    stamp = stamp.replace("+00:00", "Z")
    first = last - len(changes) + 1
    events = [ChangeEvent(sequence=first + offset, tenant_id=tenant_pk,
                          event_type=change.event_type, subject=change.subject,
                          cloud_event=cloud_event(source, first + offset, change, stamp))
              for offset, change in enumerate(changes)]
    session.execute(insert(ChangeRecord), [
        {"tenant_pk": tenant_pk, "sequence": event.sequence, "event_type": event.event_type,
         "subject": event.subject, "recorded": now,
         "cloud_event": json.dumps(event.cloud_event, ensure_ascii=False,
                                   separators=(",", ":"))}
        for event in events])
    return events


def cloud_event(source: str, sequence: int, change: Change, stamp: str) -> dict[str, object]:
    """The event as CloudEvents 1.0 JSON. `sequence` is the CloudEvents sequence
    extension: the number in the tenant's commit order, zero-padded so that it sorts as
    text as it does as a number (the extension's rule)."""
    return {"specversion": SPEC_VERSION, "id": new_id(), "source": source,
            "type": change.event_type, "subject": change.subject, "time": stamp,
            "sequence": f"{sequence:0{SEQUENCE_DIGITS}d}",
            "datacontenttype": "application/json", "data": change.data}


def _advance_counter(session: Session, tenant_pk: int, count: int) -> int:
    """The tenant's counter after adding `count` (an upsert: two first writers cannot
    both insert). Its row lock, on PostgreSQL, is what orders the tenant's events."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = ChangeCounter.__table__
    statement = (dialect.insert(table).values(tenant_pk=tenant_pk, last_sequence=count,
                                               trimmed_through=0)
                 .on_conflict_do_update(index_elements=[table.c.tenant_pk],
                                        set_={"last_sequence": table.c.last_sequence + count})
                 .returning(table.c.last_sequence))
    last: int = session.execute(statement).scalar_one()
    return last


def changes_after(session: Session, tenant_pk: int, after_sequence: int, limit: int,
                  without: frozenset[str] = frozenset()) -> list[ChangeEvent]:
    """Up to `limit` events of the tenant numbered after `after_sequence`, in order,
    leaving out those of the types `without`."""
    selected = select(ChangeRecord.sequence, ChangeRecord.event_type, ChangeRecord.subject,
                      ChangeRecord.cloud_event).where(ChangeRecord.tenant_pk == tenant_pk,
                                                      ChangeRecord.sequence > after_sequence)
    if without:
        selected = selected.where(ChangeRecord.event_type.not_in(sorted(without)))
    rows = session.execute(selected.order_by(ChangeRecord.sequence).limit(limit)).all()
    return [ChangeEvent(sequence=sequence, tenant_id=tenant_pk, event_type=event_type,
                        subject=subject, cloud_event=json.loads(body))
            for sequence, event_type, subject, body in rows]


def feed_bounds(session: Session, tenant_pk: int) -> tuple[int, int]:
    """(last number retention removed, last number given) of the tenant; (0, 0) before
    its first event."""
    row = session.execute(select(ChangeCounter.trimmed_through, ChangeCounter.last_sequence)
                          .where(ChangeCounter.tenant_pk == tenant_pk)).one_or_none()
    return (0, 0) if row is None else (row[0], row[1])


def trim_changes(session: Session, tenant_pk: int, retention_days: float) -> int:
    """Delete the tenant's events older than `retention_days`; how many went. The counter
    remembers the newest number removed, so a reader still behind it learns that it
    missed events instead of silently skipping them."""
    cutoff = time.time() - retention_days * 24 * 3600
    newest_gone = session.execute(
        select(ChangeRecord.sequence).where(ChangeRecord.tenant_pk == tenant_pk,
                                            ChangeRecord.recorded < cutoff)
        .order_by(ChangeRecord.sequence.desc()).limit(1)).scalar()
    if newest_gone is None:
        return 0
    # Numbers follow commit order but times need not (clocks of two servers): everything
    # up to the newest expired number goes, so the feed keeps no hole.
    removed = session.execute(delete(ChangeRecord).where(
        ChangeRecord.tenant_pk == tenant_pk, ChangeRecord.sequence <= newest_gone))
    assert isinstance(removed, CursorResult)
    counter = session.get_one(ChangeCounter, tenant_pk)
    counter.trimmed_through = max(counter.trimmed_through, newest_gone)
    session.flush()
    return removed.rowcount


def element_change(event_type: str, element: Element, version_id: str,
                   **data: object) -> Change:
    """An event about `element`: its reference, the version written and its revision
    after the write, then `data`."""
    return new_element_change(event_type, element.id, element.facet, element.type,
                              version_id, element.revision, **data)


def new_element_change(event_type: str, element_id: str, facet: str, element_type: str,
                       version_id: str, revision: int, **data: object) -> Change:
    """`element_change` from the element's fields (a new element has no object yet)."""
    return Change(event_type, element_id, {
        "element": {"id": element_id, "facet": facet, "type": element_type},
        "versionId": version_id, "revision": revision, **data})
