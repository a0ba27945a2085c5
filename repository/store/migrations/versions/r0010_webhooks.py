"""`webhook_endpoints`, `webhook_deliveries` (the delivery log) and `leases` (which
process delivers): the webhooks of issue 24 (repository/webhooks/, docs/events.md).

Revision 0010, after 0009.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("types", sa.Text, nullable=False),
        sa.Column("secret", sa.String(128), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("disabled_reason", sa.Text, nullable=True),
        sa.Column("cursor", sa.BigInteger, nullable=False),
        sa.Column("failing_since", sa.Float, nullable=True),
        sa.Column("next_attempt_at", sa.Float, nullable=False),
        sa.UniqueConstraint("tenant_pk", "id"),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("endpoint_pk", sa.Integer,
                  sa.ForeignKey("webhook_endpoints.pk", ondelete="CASCADE"), nullable=False),
        sa.Column("sequence", sa.BigInteger, nullable=False),
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("event_type", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("last_status", sa.Integer, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("first_attempt_at", sa.Float, nullable=False),
        sa.Column("last_attempt_at", sa.Float, nullable=False),
        sa.UniqueConstraint("endpoint_pk", "sequence"),
    )
    op.create_index("ix_webhook_deliveries_endpoint_pk", "webhook_deliveries", ["endpoint_pk"])
    op.create_table(
        "leases",
        sa.Column("name", sa.String(128), primary_key=True),
        sa.Column("holder", sa.String(128), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("leases")
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
