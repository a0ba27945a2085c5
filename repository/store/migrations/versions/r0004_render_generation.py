"""`content_generations`: each tenant's content generation, the number every write in
the tenant changes (the render cache's key, repository/store/generation.py).

Revision 0004, after 0003. Every tenant present gets a row seeded from the clock, so no
render cached before a downgrade past this revision is named again after it.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "content_generations",
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("generation", sa.BigInteger, nullable=False),
    )
    # The clock as repository/store/generation.py seeds it (a revision stays as written,
    # so it does not import the module).
    op.execute(sa.text("INSERT INTO content_generations (tenant_pk, generation) "
                       "SELECT pk, :seed FROM tenants").bindparams(seed=time.time_ns() // 1000))


def downgrade() -> None:
    op.drop_table("content_generations")
