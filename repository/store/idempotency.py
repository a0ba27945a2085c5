"""Answers of creates sent with an `Idempotency-Key` (docs/api.md, "Idempotency-Key"),
kept so that a client retrying after a timeout gets the first answer instead of a second
write.

A key belongs to a tenant and the caller's token (its actor element): two tokens never
see each other's keys. A row is written in the create's own transaction, so it exists
exactly when the create was committed; a refused or failed create leaves no row and its
retry runs afresh. The row is inserted before the create writes (`claim`): a concurrent
duplicate blocks on the unique key (PostgreSQL) or on the write lock (SQLite) until the
first commits, then reads its answer. Rows older than `KEEP_SECONDS` are deleted: the
caller's own when it sends a key, every tenant's by pool maintenance.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from repository.store.models import Base

KEEP_SECONDS = 24 * 3600
MAX_KEY_LENGTH = 255
FINGERPRINT_LENGTH = 64  # a SHA-256 in hex
_PENDING = 0  # the status of a row whose create has not answered yet (never committed)


class IdempotentAnswer(Base):
    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("tenant_pk", "actor_pk", "key"),
                      Index("ix_idempotency_keys_created", "created"))

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"))
    actor_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(MAX_KEY_LENGTH))
    fingerprint: Mapped[str] = mapped_column(String(FINGERPRINT_LENGTH))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    created: Mapped[float] = mapped_column(Float)  # seconds since the epoch


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    fingerprint: str
    status: int
    body: str


def claim(session: Session, tenant_pk: int, actor_pk: int, key: str,
          fingerprint: str) -> StoredAnswer | None:
    """The answer committed under this key, or None after reserving the key for the
    caller's create (in its transaction: `remember` fills it in)."""
    now = time.time()
    session.execute(delete(IdempotentAnswer).where(
        IdempotentAnswer.tenant_pk == tenant_pk, IdempotentAnswer.actor_pk == actor_pk,
        IdempotentAnswer.created < now - KEEP_SECONDS))
    stored = _stored(session, tenant_pk, actor_pk, key)
    if stored is not None:
        return stored
    try:
        with session.begin_nested():
            session.add(IdempotentAnswer(tenant_pk=tenant_pk, actor_pk=actor_pk, key=key,
                                         fingerprint=fingerprint, status=_PENDING, body="",
                                         created=now))
    except IntegrityError:
        # A concurrent duplicate committed first (the insert waited for it): its answer.
        stored = _stored(session, tenant_pk, actor_pk, key)
        assert stored is not None, "the unique key's other row is committed"
        return stored
    return None


def remember(session: Session, tenant_pk: int, actor_pk: int, key: str, status: int,
             body: str) -> None:
    """The answer of the create that claimed `key`, committed with it."""
    row = session.scalars(select(IdempotentAnswer).where(
        IdempotentAnswer.tenant_pk == tenant_pk, IdempotentAnswer.actor_pk == actor_pk,
        IdempotentAnswer.key == key)).one()
    row.status, row.body = status, body
    session.flush()


def purge_expired(session: Session, tenant_pk: int) -> None:
    """Every key of the tenant older than KEEP_SECONDS (pool maintenance)."""
    session.execute(delete(IdempotentAnswer).where(
        IdempotentAnswer.tenant_pk == tenant_pk,
        IdempotentAnswer.created < time.time() - KEEP_SECONDS))


def _stored(session: Session, tenant_pk: int, actor_pk: int, key: str) -> StoredAnswer | None:
    row = session.execute(select(IdempotentAnswer.fingerprint, IdempotentAnswer.status,
                                 IdempotentAnswer.body).where(
        IdempotentAnswer.tenant_pk == tenant_pk, IdempotentAnswer.actor_pk == actor_pk,
        IdempotentAnswer.key == key)).one_or_none()
    return None if row is None else StoredAnswer(*row)
