"""The first schema: every table as the first release created it (before `elements.revision`).

Revision 0001. A database made by that release's `create_all` has these tables and no
`alembic_version`; `repository.store.db` recognises it and stamps it 0001 before upgrading.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _ordered_string(length: int) -> sa.String:
    """Byte-order comparison on PostgreSQL too (models._ordered_string as it was)."""
    return sa.String(length).with_variant(sa.String(length, collation="C"), "postgresql")


def _element_fk(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer, sa.ForeignKey("elements.pk", ondelete="CASCADE"),
                     nullable=False)


def _version_fk(name: str, *, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(name, sa.Integer,
                     sa.ForeignKey("element_versions.pk", ondelete="CASCADE"),
                     nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("collection_id", sa.String(128), nullable=False),
        sa.Column("storage_id", sa.String(128), nullable=False),
        sa.Column("default_culture", sa.Integer, nullable=False),
        sa.UniqueConstraint("collection_id", "storage_id"),
    )
    op.create_table(
        "elements",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("id", _ordered_string(64), nullable=False),
        sa.Column("facet", sa.String(128), nullable=False),
        sa.Column("type", sa.String(128), nullable=False),
        sa.Column("versioned", sa.Boolean, nullable=False),
        sa.Column("state", sa.String(128), nullable=True),
        sa.Column("sort_name", _ordered_string(512), nullable=False),
        sa.Column("current_version_pk", sa.Integer, nullable=True),
        sa.UniqueConstraint("tenant_pk", "id"),
    )
    op.create_index("ix_elements_page", "elements", ["tenant_pk", "facet", "sort_name", "id"])
    op.create_index("ix_elements_type", "elements", ["tenant_pk", "type"])
    op.create_table(
        "element_versions",
        sa.Column("pk", sa.Integer, primary_key=True),
        _element_fk("element_pk"),
        sa.Column("version_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("state", sa.String(128), nullable=True),
    )
    op.create_index("ix_versions_element", "element_versions", ["element_pk", "seq"])
    op.create_index("ix_versions_version_id", "element_versions", ["version_id"])
    op.create_table(
        "attribute_values",
        sa.Column("pk", sa.Integer, primary_key=True),
        _version_fk("version_pk"),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("culture", sa.Integer, nullable=False),
        sa.Column("value_json", sa.Text, nullable=False),
        sa.Column("value_text", sa.Text, nullable=False),
        sa.Column("value_num", sa.Float, nullable=True),
        sa.UniqueConstraint("version_pk", "name", "culture"),
    )
    op.create_index("ix_attributes_number", "attribute_values", ["name", "value_num"])
    # PostgreSQL's B-tree cannot hold long texts: a hash index there (equality only).
    if op.get_bind().dialect.name == "postgresql":
        op.create_index("ix_attributes_text_hash", "attribute_values", ["value_text"],
                        postgresql_using="hash")
    else:
        op.create_index("ix_attributes_text", "attribute_values", ["name", "value_text"])
    op.create_table(
        "related_links",
        sa.Column("pk", sa.Integer, primary_key=True),
        _version_fk("version_pk"),
        sa.Column("context", sa.String(128), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        _element_fk("target_pk"),
        _version_fk("target_version_pk", nullable=True),
    )
    op.create_index("ix_related_source", "related_links", ["version_pk", "context", "position"])
    op.create_index("ix_related_target", "related_links", ["target_pk"])
    op.create_table(
        "children",
        sa.Column("pk", sa.Integer, primary_key=True),
        _version_fk("version_pk"),
        _element_fk("parent_pk"),
        _element_fk("child_pk"),
        sa.Column("position", sa.Integer, nullable=False),
        sa.UniqueConstraint("version_pk", "child_pk"),
    )
    op.create_index("ix_children_version", "children", ["version_pk", "position"])
    op.create_index("ix_children_child", "children", ["child_pk"])
    op.create_table(
        "shapes",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("shape_id", sa.String(64), nullable=False),
        _version_fk("version_pk"),
        _element_fk("diagram_pk"),
        _element_fk("element_pk"),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("predecessors", sa.Text, nullable=False),
    )
    op.create_index("ix_shapes_version", "shapes", ["version_pk", "position"])
    op.create_index("ix_shapes_shape_id", "shapes", ["shape_id"])
    op.create_index("ix_shapes_element", "shapes", ["element_pk"])
    op.create_table(
        "tokens",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        _element_fk("element_pk"),
    )


def downgrade() -> None:
    for table in ("tokens", "shapes", "children", "related_links", "attribute_values",
                  "element_versions", "elements", "tenants"):
        op.drop_table(table)
