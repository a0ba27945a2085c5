"""`elements.revision`: counts the writes to an element, its ETag (If-Match).

Revision 0002, after 0001. Existing elements start at revision 1.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("elements", sa.Column("revision", sa.Integer, nullable=False,
                                        server_default=sa.text("1")))


def downgrade() -> None:
    op.drop_column("elements", "revision")
