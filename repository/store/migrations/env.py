"""Alembic's environment: runs the revisions on the connection `repository.store.db` hands over
(`config.attributes`: the connection, and the schema of the version table when the
connection translates schemas), inside that connection's transaction."""

from __future__ import annotations

from alembic import context

from repository.store.models import Base

context.configure(connection=context.config.attributes["connection"],
                  version_table_schema=context.config.attributes["version_table_schema"],
                  target_metadata=Base.metadata)
with context.begin_transaction():
    context.run_migrations()
