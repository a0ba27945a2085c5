"""SQLAlchemy 2 table mappings.

Layout (why it looks like this):
- `elements` holds one row per element with the few columns listing needs (facet, type,
  current state, the sort name, a pointer to the newest version) so a page is one indexed
  range scan of `(tenant_pk, facet, sort_name, id)`.
- `element_versions` are the separate version records of the seed; attributes and
  related links belong to a version, so a released version stays as it was when a new
  in-process version is started. Unversioned elements have exactly one, never exposed.
- `attribute_values` stores one row per (version, name, culture); `$filter` compiles to
  EXISTS sub-queries on it. The JSON text keeps the exact wire value, `value_text` and
  `value_num` are the comparable forms.
- Children (ordered) and content shapes belong to a version too, so changing the content
  of a released diagram changes only its new in-process version. A new version starts as
  a copy of its predecessor's rows with the same shape ids (overlays stay stable). Both
  tables also name the owning element (`parent_pk`, `diagram_pk`): "is this the current
  version's row" is then one primary-key lookup, and tenant checks need no version join.
- `elements.revision` counts every write to the element (any version): the ETag that
  If-Match is checked against. Databases made before it get the column from
  `elrepo db upgrade` (revision 0002 in migrations/).
- Text search (`contains`, `startswith`, `endswith` in `$filter`) has an index per
  dialect, outside these mappings because neither is a plain table or index: on SQLite
  the FTS5 table `attribute_text_search` (trigram tokenizer, kept by triggers), on
  PostgreSQL a pg_trgm GIN index on `lower(value_text)`. `repository.store.db` creates
  them (revision 0003).
"""

from __future__ import annotations

import functools
import sqlite3
import weakref

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ID_LENGTH = 64
NAME_LENGTH = 128
TIMESTAMP_LENGTH = 32  # "2026-11-27T05:19:42", with room to spare


def _ordered_string(length: int) -> String:
    """Byte-order comparison on every backend, so paging is the same on SQLite and
    PostgreSQL (whose default collation would follow the server's locale)."""
    return String(length).with_variant(String(length, collation="C"), "postgresql")


class Base(DeclarativeBase):
    pass


class Tenant(Base):
    __tablename__ = "tenants"
    __table_args__ = (UniqueConstraint("collection_id", "storage_id"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    collection_id: Mapped[str] = mapped_column(String(NAME_LENGTH))
    storage_id: Mapped[str] = mapped_column(String(NAME_LENGTH))
    default_culture: Mapped[int] = mapped_column(Integer, default=1033)


class Element(Base):
    __tablename__ = "elements"
    __table_args__ = (
        UniqueConstraint("tenant_pk", "id"),
        Index("ix_elements_page", "tenant_pk", "facet", "sort_name", "id"),
        Index("ix_elements_type", "tenant_pk", "type"),
        # A selective `$filter` (an exact name, a text search) finds its few versions
        # first, then their elements here, instead of testing every element of the page order.
        Index("ix_elements_current_version", "current_version_pk"),
        # A `$filter`'s sub-queries read the tenant's newest versions alone (filters.py).
        Index("ix_elements_tenant_version", "tenant_pk", "current_version_pk"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"))
    id: Mapped[str] = mapped_column(_ordered_string(ID_LENGTH))
    facet: Mapped[str] = mapped_column(String(NAME_LENGTH))
    type: Mapped[str] = mapped_column(String(NAME_LENGTH))
    versioned: Mapped[bool] = mapped_column(Boolean)
    state: Mapped[str | None] = mapped_column(String(NAME_LENGTH), nullable=True)
    # Name in the tenant's default culture, lower-cased: the stable listing order.
    sort_name: Mapped[str] = mapped_column(_ordered_string(512), default="")
    # No FK: versions point at their element, and a cycle of FKs makes inserts order-bound.
    current_version_pk: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Counts the writes to the element (any version: attributes, related, children,
    # content, state): its ETag, checked against If-Match
    # (docs/contract.md, "Limits and robustness").
    revision: Mapped[int] = mapped_column(Integer, default=1, server_default=text("1"))


class ElementVersion(Base):
    __tablename__ = "element_versions"
    __table_args__ = (
        Index("ix_versions_element", "element_pk", "seq"),
        Index("ix_versions_version_id", "version_id"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    element_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    version_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    seq: Mapped[int] = mapped_column(Integer)
    state: Mapped[str | None] = mapped_column(String(NAME_LENGTH), nullable=True)


class AttributeValue(Base):
    __tablename__ = "attribute_values"
    __table_args__ = (
        UniqueConstraint("version_pk", "name", "culture"),
        # `$filter` on values; `version_pk` last, so the filter's sub-query reads the
        # index alone. PostgreSQL's B-tree cannot hold long texts (rich-text
        # descriptions), so it gets a hash index for text: equality only, any length.
        Index("ix_attributes_number", "name", "value_num", "version_pk"),
        Index("ix_attributes_text", "name", "value_text", "version_pk").ddl_if(dialect="sqlite"),
        Index("ix_attributes_text_hash", "value_text",
              postgresql_using="hash").ddl_if(dialect="postgresql"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("element_versions.pk", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    culture: Mapped[int] = mapped_column(Integer)
    value_json: Mapped[str] = mapped_column(Text)
    value_text: Mapped[str] = mapped_column(Text)
    value_num: Mapped[float | None] = mapped_column(Float, nullable=True)


class RelatedLink(Base):
    __tablename__ = "related_links"
    __table_args__ = (
        Index("ix_related_source", "version_pk", "context", "position"),
        Index("ix_related_target", "target_pk"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("element_versions.pk", ondelete="CASCADE")
    )
    context: Mapped[str] = mapped_column(String(NAME_LENGTH))
    position: Mapped[int] = mapped_column(Integer)
    target_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    # Set for links to one version (releaseHistory), else the element's newest version.
    target_version_pk: Mapped[int | None] = mapped_column(
        ForeignKey("element_versions.pk", ondelete="CASCADE"), nullable=True
    )


class Child(Base):
    __tablename__ = "children"
    __table_args__ = (
        UniqueConstraint("version_pk", "child_pk"),
        Index("ix_children_version", "version_pk", "position"),
        Index("ix_children_child", "child_pk"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("element_versions.pk", ondelete="CASCADE")
    )
    # The element of `version_pk` (denormalized, see the module docstring).
    parent_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    child_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)


class Shape(Base):
    __tablename__ = "shapes"
    __table_args__ = (
        Index("ix_shapes_version", "version_pk", "position"),
        Index("ix_shapes_shape_id", "shape_id"),
        Index("ix_shapes_element", "element_pk"),
    )

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Stable across the versions of a diagram: a new version copies its shapes with their ids.
    shape_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    version_pk: Mapped[int] = mapped_column(
        ForeignKey("element_versions.pk", ondelete="CASCADE")
    )
    # The element of `version_pk` (denormalized, see the module docstring).
    diagram_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    element_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    # Predecessor shape ids as a JSON list: read whole with the diagram, never filtered on.
    predecessors: Mapped[str] = mapped_column(Text, default="[]")


class Token(Base):
    __tablename__ = "tokens"

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    # The authToken element (facet automation) that appears in changedBy / createdBy.
    element_pk: Mapped[int] = mapped_column(ForeignKey("elements.pk", ondelete="CASCADE"))
    # UTC timestamps in `now_timestamp`'s form (they compare as text). A token created
    # before revision 0006 has no `created_at`; without `expires_at` it never expires.
    created_at: Mapped[str | None] = mapped_column(String(TIMESTAMP_LENGTH), nullable=True)
    expires_at: Mapped[str | None] = mapped_column(String(TIMESTAMP_LENGTH), nullable=True)
    revoked_at: Mapped[str | None] = mapped_column(String(TIMESTAMP_LENGTH), nullable=True)


# SQLite's FTS5 table over `attribute_values.value_text` (external content: it holds only
# the trigram index, keyed by `attribute_values.pk` as its rowid). Mapped in a MetaData of
# its own so that `create_all` leaves it to `repository.store.db`.
TEXT_SEARCH_TABLE = "attribute_text_search"
text_search = Table(TEXT_SEARCH_TABLE, MetaData(),
                    Column("rowid", Integer, primary_key=True), Column("value_text", Text))
# The trigram tokenizer matches substrings of at least this many characters.
TRIGRAM = 3
# The SQLite engines (by their dialect object) whose database has `text_search`: a
# database made with a SQLite library that lacked the trigram tokenizer has none, and its
# text search scans. `repository.store.db.create_schema` records each engine it checks.
DIALECTS_WITH_TEXT_SEARCH: weakref.WeakSet[Dialect] = weakref.WeakSet()


@functools.cache
def sqlite_has_trigram_search() -> bool:
    """Whether this process's SQLite library has FTS5 with the trigram tokenizer
    (SQLite 3.34 and later, when built with FTS5). Without it, text search scans."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='trigram')")
    except sqlite3.OperationalError:
        return False
    finally:
        connection.close()
    return True


class WebhookEndpoint(Base):
    """A receiver an administrator registered (repository/api/webhooks.py) and where its
    deliveries stand (repository/webhooks/worker.py): the feed's sequence delivered (or given
    up) up to (`cursor`) and when the next attempt is due; the attempts at the event after
    the cursor are counted in its delivery log row."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (UniqueConstraint("tenant_pk", "id"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_pk: Mapped[int] = mapped_column(ForeignKey("tenants.pk", ondelete="CASCADE"))
    id: Mapped[str] = mapped_column(String(ID_LENGTH))
    url: Mapped[str] = mapped_column(Text)
    types: Mapped[str] = mapped_column(Text, default="[]")  # JSON list; empty: every type
    # Kept as given (whsec_ + base64): signing needs it; docs/events.md says who may read it.
    secret: Mapped[str] = mapped_column(String(NAME_LENGTH))
    created_at: Mapped[str] = mapped_column(String(TIMESTAMP_LENGTH))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    cursor: Mapped[int] = mapped_column(BigInteger, default=0)
    # Epoch seconds: when the first failure since the last success happened (None: none),
    # when the next attempt is due.
    failing_since: Mapped[float | None] = mapped_column(Float, nullable=True)
    next_attempt_at: Mapped[float] = mapped_column(Float, default=0.0)


class WebhookDelivery(Base):
    """One event's delivery to one endpoint: the delivery log (recent rows only)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (UniqueConstraint("endpoint_pk", "sequence"),)

    pk: Mapped[int] = mapped_column(Integer, primary_key=True)
    endpoint_pk: Mapped[int] = mapped_column(
        ForeignKey("webhook_endpoints.pk", ondelete="CASCADE"), index=True)
    sequence: Mapped[int] = mapped_column(BigInteger)
    event_id: Mapped[str] = mapped_column(String(NAME_LENGTH))
    event_type: Mapped[str] = mapped_column(String(NAME_LENGTH))
    status: Mapped[str] = mapped_column(String(16))  # delivered, retrying, failed
    attempts: Mapped[int] = mapped_column(Integer)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)  # HTTP status
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    first_attempt_at: Mapped[float] = mapped_column(Float)
    last_attempt_at: Mapped[float] = mapped_column(Float)


class Lease(Base):
    """A job only one process of all that share the database may run at a time (the
    webhook deliveries): held by `holder` until `expires_at` (epoch seconds) unless
    renewed."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String(NAME_LENGTH), primary_key=True)
    holder: Mapped[str] = mapped_column(String(NAME_LENGTH))
    expires_at: Mapped[float] = mapped_column(Float)
