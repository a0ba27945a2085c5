"""Leases: a job that one process of all sharing the database runs at a time (the webhook
deliveries of every `elrepo serve` worker, on every host). A process takes the lease when
it is free or expired and keeps it by renewing it before it expires; one that stops
renewing (killed, hung) loses it after its time-to-live. Both statements are single
atomic writes, so two processes racing for it on SQLite or PostgreSQL never both win."""

from __future__ import annotations

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from repository.store.models import Lease


def take_lease(session: Session, name: str, holder: str, now: float, ttl: float) -> bool:
    """Take or renew the lease `name` for `holder` until `now + ttl`; whether it is now
    held by `holder`. The caller commits."""
    renewed = session.execute(
        update(Lease).where(Lease.name == name,
                            or_(Lease.holder == holder, Lease.expires_at < now))
        .values(holder=holder, expires_at=now + ttl)
        .execution_options(synchronize_session=False))
    if renewed.rowcount == 1:  # type: ignore[attr-defined]
        return True
    if session.get(Lease, name) is not None:
        return False  # another holder's, unexpired
    try:
        with session.begin_nested():
            session.add(Lease(name=name, holder=holder, expires_at=now + ttl))
    except IntegrityError:
        return False  # another process inserted it first
    return True


def current_holder(session: Session, name: str, now: float) -> str | None:
    """Who holds the lease `name` at `now`; None when it is free or expired."""
    return session.scalar(select(Lease.holder).where(Lease.name == name, Lease.expires_at >= now))


def holds_lease(session: Session, name: str, holder: str, now: float) -> bool:
    return current_holder(session, name, now) == holder
