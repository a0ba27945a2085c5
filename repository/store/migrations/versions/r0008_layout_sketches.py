"""`layout_sketches`: per diagram version, flow layout key and culture, the sketch of its
last drawing, which the next render keeps stable (repository/store/sketches.py).

Revision 0008, after 0007. Empty at first: a diagram's first render after the upgrade
lays it out fresh, as before, and keeps its sketch.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "layout_sketches",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"), nullable=False),
        sa.Column("diagram_pk", sa.Integer, sa.ForeignKey("elements.pk", ondelete="CASCADE"), nullable=False),
        sa.Column("version_pk", sa.Integer, sa.ForeignKey("element_versions.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("layout_key", sa.String(128), nullable=False),
        sa.Column("culture", sa.Integer, nullable=False),
        sa.Column("generation", sa.BigInteger, nullable=False),
        sa.Column("sketch", sa.Text, nullable=False),
        sa.Column("base", sa.Text, nullable=False),
        sa.UniqueConstraint("version_pk", "layout_key", "culture"),
    )
    op.create_index("ix_layout_sketches_diagram", "layout_sketches",
                    ["diagram_pk", "layout_key", "culture", "version_pk"])


def downgrade() -> None:
    op.drop_table("layout_sketches")
