"""`tokens.created_at`, `expires_at`, `revoked_at`: tokens that expire and can be revoked
(`elrepo token create --expires-in`, `elrepo token revoke`, `elrepo token list`).

Revision 0006, after 0005. Tokens already issued keep working: no expiry, not revoked,
created at an unknown time (NULL).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_COLUMNS = ("created_at", "expires_at", "revoked_at")


def upgrade() -> None:
    # Batch mode: SQLite cannot drop columns in place (downgrade), and adds them alike.
    with op.batch_alter_table("tokens") as tokens:
        for name in _COLUMNS:
            tokens.add_column(sa.Column(name, sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tokens") as tokens:
        for name in reversed(_COLUMNS):
            tokens.drop_column(name)
