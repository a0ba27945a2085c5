"""`change_events` and `change_counters`: the change feed's outbox and each tenant's
event counter (repository/store/changes.py, docs/events.md).

Revision 0009, after 0008. A tenant present gets its counter with its first event:
the feed starts empty, at the upgrade.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "change_events",
        sa.Column("pk", sa.Integer, primary_key=True),
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("sequence", sa.BigInteger, nullable=False),
        sa.Column("event_type", sa.String(128), nullable=False),
        sa.Column("subject", sa.String(64), nullable=False),
        sa.Column("recorded", sa.Float, nullable=False),
        sa.Column("cloud_event", sa.Text, nullable=False),
    )
    op.create_index("ix_change_events_position", "change_events", ["tenant_pk", "sequence"],
                    unique=True)
    op.create_index("ix_change_events_recorded", "change_events", ["tenant_pk", "recorded"])
    op.create_table(
        "change_counters",
        sa.Column("tenant_pk", sa.Integer, sa.ForeignKey("tenants.pk", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("last_sequence", sa.BigInteger, nullable=False),
        sa.Column("trimmed_through", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("change_counters")
    op.drop_index("ix_change_events_recorded", "change_events")
    op.drop_index("ix_change_events_position", "change_events")
    op.drop_table("change_events")
