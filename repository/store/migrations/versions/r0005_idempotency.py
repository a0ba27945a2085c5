"""`idempotency_keys`: the answers of creates sent with an `Idempotency-Key`, kept 24 h
(repository/store/idempotency.py).

Revision 0005, after 0004.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("actor_pk", sa.Integer, sa.ForeignKey("elements.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("tenant_pk", "actor_pk", "key"),
    )
    op.create_index("ix_idempotency_keys_created", "idempotency_keys", ["created"])


def downgrade() -> None:
    op.drop_table("idempotency_keys")
