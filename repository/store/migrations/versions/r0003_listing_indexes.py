"""Indexes for listing with a `$filter` at 100,000 elements and more.

Revision 0003, after 0002:
- `ix_elements_current_version`: a selective filter finds its few versions first, then
  their elements;
- `ix_attributes_number` and (SQLite) `ix_attributes_text` end with `version_pk`, so a
  filter's sub-query reads the index alone;
- the dialect's text-search index (`repository.store.db.create_text_search`: SQLite's FTS5
  trigram table and its triggers, filled from the rows there; PostgreSQL's pg_trgm index).
"""

from __future__ import annotations

from alembic import op

from repository.store.db import create_text_search, drop_text_search

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _attribute_indexes(*, covering: bool) -> None:
    """`ix_attributes_number` and SQLite's `ix_attributes_text`, with or without the
    trailing `version_pk`."""
    trailing = ["version_pk"] if covering else []
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.drop_index("ix_attributes_number", "attribute_values")
    op.create_index("ix_attributes_number", "attribute_values", ["name", "value_num", *trailing])
    if sqlite:
        op.drop_index("ix_attributes_text", "attribute_values")
        op.create_index("ix_attributes_text", "attribute_values",
                        ["name", "value_text", *trailing])


def upgrade() -> None:
    op.create_index("ix_elements_current_version", "elements", ["current_version_pk"])
    _attribute_indexes(covering=True)
    create_text_search(op.get_bind())


def downgrade() -> None:
    drop_text_search(op.get_bind())
    _attribute_indexes(covering=False)
    op.drop_index("ix_elements_current_version", "elements")
