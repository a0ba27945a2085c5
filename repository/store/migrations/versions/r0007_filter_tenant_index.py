"""`ix_elements_tenant_version`: a `$filter`'s attribute sub-queries read the rows of one
tenant's newest versions (repository/store/filters.py); this index finds those versions
from the tenant alone, so the cost of a filter follows the tenant's size, not the size
of every tenant together.

Revision 0007, after 0006.
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_elements_tenant_version", "elements", ["tenant_pk", "current_version_pk"])


def downgrade() -> None:
    op.drop_index("ix_elements_tenant_version", "elements")
