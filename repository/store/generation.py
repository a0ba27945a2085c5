"""The tenant's content generation: a number that every write to one of the tenant's
elements changes, in the write's own transaction. It is the cheap half of a render cache
key (docs/service.md, "Render cache"): a diagram's drawing depends on many elements (its
shapes' elements, their related elements, its descendants), so "has anything drawn
changed" is answered for the whole tenant by one primary-key read instead of by
reading the drawing.

A generation never comes back: a row starts at the time of its first write in
microseconds (`seed`) and then counts up. A key made before the row was lost (a
downgrade past revision 0004 drops the table) therefore never names a later state. A
tenant without a row is at generation 0; the revision that adds the table gives every
tenant then present a row, so only a tenant created since and never written to is.
"""

from __future__ import annotations

import time

from sqlalchemy import BigInteger, ColumnElement, ForeignKey, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from repository.store.models import Base


class ContentGeneration(Base):
    __tablename__ = "content_generations"

    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"),
                                           primary_key=True)
    generation: Mapped[int] = mapped_column(BigInteger)


# Read by every cache hit: built once, run on the connection (no ORM work per read).
_GENERATION = select(ContentGeneration.generation).where(
    ContentGeneration.tenant_pk == bindparam("tenant_pk"))


def seed() -> int:
    """A new row's generation: the time in microseconds, beyond every earlier row's."""
    return time.time_ns() // 1000


def content_generation(session: Session, tenant_pk: int) -> int:
    """The tenant's generation now (in the session's snapshot)."""
    generation = session.connection().execute(_GENERATION, {"tenant_pk": tenant_pk}).scalar()
    return generation or 0


def generation_column(tenant_pk: int) -> ColumnElement[int]:
    """The tenant's generation as a column of another statement: read in that
    statement's snapshot, it says which generation the statement's other columns saw."""
    return func.coalesce(select(ContentGeneration.generation)
                         .where(ContentGeneration.tenant_pk == tenant_pk).scalar_subquery(), 0)


def bump_content_generation(session: Session, tenant_pk: int) -> None:
    """+1 (an upsert: two first writers cannot both insert), first thing in a write: on
    PostgreSQL the row lock it takes queues the tenant's writers here, before any
    element lock, so they cannot deadlock on it."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    session.execute(dialect.insert(ContentGeneration)
                    .values(tenant_pk=tenant_pk, generation=seed())
                    .on_conflict_do_update(index_elements=[ContentGeneration.tenant_pk],
                                           set_={"generation": ContentGeneration.generation + 1}))
