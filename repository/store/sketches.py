"""`layout_sketches`: what the next render of a diagram needs to keep its drawing stable
(issue 22, item 1; docs/layout.md, "Stable layout").

One row per diagram version, flow layout key and culture: the sketch of its last drawing
(`layouts.sketch.Sketch` as JSON: each shape's centre and each edge's route, along and
across the flow), the tenant's content generation it was drawn at, and the sketch that
drawing was itself drawn from (`base`, "" for a fresh layout). A render of a version at
a content generation takes as its sketch (`SketchRecord.sketch_for`):

- the row of the same version drawn at the same generation (the same content, for sure):
  its `base` again, so the drawing is the one that row holds, byte for byte;
- else the version's row drawn at an older generation, or the newest row of an earlier
  version of the diagram: its `sketch`, the previous drawing.

The choice needs no fixture, so the render cache key names the sketch a render takes
(its digest): the same content drawn from the same previous drawing is the same key,
the same bytes and the same ETag, whichever worker draws it. (A write elsewhere in the
tenant moves the generation without changing this diagram: its next render is drawn
from its own last drawing, which gives that drawing again.)

Rows are written lazily, by the render that drew at a generation its row does not hold
yet (not when a write or a release happens): a write does not know which layouts and
cultures will be drawn, and drawing each one at the write would cost a render per key
inside the write's transaction; the drawing a reader saw last is what keeps their
mental map. A row is written in a session of its own after the render, so a render
never waits on a write lock, and a failed write costs the next render its sketch, never
the drawing.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from repository.errors import ServiceUnavailable
from repository.store.db import open_session
from repository.store.models import NAME_LENGTH, Base, Element

_log = logging.getLogger(__name__)


class LayoutSketch(Base):
    __tablename__ = "layout_sketches"
    __table_args__ = (UniqueConstraint("version_pk", "layout_key", "culture"),
                      Index("ix_layout_sketches_diagram", "diagram_pk", "layout_key", "culture", "version_pk"))

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"))
    diagram_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    version_pk: Mapped[int] = mapped_column(ForeignKey("element_versions.pk", ondelete="CASCADE"))
    layout_key: Mapped[str] = mapped_column(String(NAME_LENGTH))
    culture: Mapped[int] = mapped_column(Integer)
    generation: Mapped[int] = mapped_column(BigInteger)
    sketch: Mapped[str] = mapped_column(Text)
    base: Mapped[str] = mapped_column(Text)


@dataclass(frozen=True, slots=True)
class SketchRecord:
    """A row as the render reads it."""

    version_pk: int
    generation: int
    sketch: str
    base: str

    def sketch_for(self, version_pk: int, generation: int) -> str:
        """The sketch a render of `version_pk` at `generation` takes ("" for none): this
        row's base when it was drawn at the same ones, else its drawing."""
        if self.version_pk == version_pk and self.generation == generation:
            return self.base
        return self.sketch


def sketch_digest(sketch: str) -> str:
    """What the render cache key holds of the sketch a render takes ("" for none)."""
    return hashlib.sha256(sketch.encode("utf-8")).hexdigest() if sketch else ""


def recorded(session: Session, tenant_pk: int, diagram_id: str, version_pk: int, layout_key: str,
             culture: int) -> SketchRecord | None:
    """The row of `version_pk`, else the newest of an earlier version of the tenant's
    diagram `diagram_id`, for this layout key and culture; None without one (one
    indexed read)."""
    row = session.execute(
        select(LayoutSketch.version_pk, LayoutSketch.generation, LayoutSketch.sketch, LayoutSketch.base)
        .join(Element, Element.pk == LayoutSketch.diagram_pk)
        .where(Element.tenant_pk == tenant_pk, Element.id == diagram_id, LayoutSketch.tenant_pk == tenant_pk,
               LayoutSketch.layout_key == layout_key, LayoutSketch.culture == culture,
               LayoutSketch.version_pk <= version_pk)
        .order_by(LayoutSketch.version_pk.desc()).limit(1)).one_or_none()
    return None if row is None else SketchRecord(*row)


@dataclass(frozen=True, slots=True)
class NewRecord:
    """What a render drew: the row its version, layout key and culture now hold."""

    tenant_pk: int
    diagram_id: str
    version_pk: int
    layout_key: str
    culture: int
    generation: int
    sketch: str
    base: str

    def is_held_by(self, record: SketchRecord | None) -> bool:
        """Whether `record` (the row the render read) already holds this drawing's row."""
        return record is not None and (record.version_pk, record.generation) == (self.version_pk, self.generation)


def remember(sessions: sessionmaker[Session], new: NewRecord) -> bool:
    """Writes `new` over its version's row (or as a new row) in a transaction of its own;
    whether it was written. A failure (the database busy or gone, a concurrent render
    writing the same row first) is logged and costs only the next render's sketch."""
    try:
        session = open_session(sessions, write=True)
    except (SQLAlchemyError, ServiceUnavailable) as error:
        _log.warning("layout sketch not kept: %s", error)
        return False
    try:
        diagram_pk = session.scalar(select(Element.pk).where(Element.tenant_pk == new.tenant_pk,
                                                             Element.id == new.diagram_id))
        if diagram_pk is None:  # deleted since the render read it
            return False
        row = session.scalars(select(LayoutSketch).where(
            LayoutSketch.version_pk == new.version_pk, LayoutSketch.layout_key == new.layout_key,
            LayoutSketch.culture == new.culture)).one_or_none()
        if row is None:
            row = LayoutSketch(tenant_pk=new.tenant_pk, diagram_pk=diagram_pk, version_pk=new.version_pk,
                               layout_key=new.layout_key, culture=new.culture)
            session.add(row)
        row.generation, row.sketch, row.base = new.generation, new.sketch, new.base
        session.commit()
        return True
    except (SQLAlchemyError, ServiceUnavailable) as error:
        session.rollback()
        _log.warning("layout sketch not kept: %s", error)
        return False
    finally:
        session.close()
