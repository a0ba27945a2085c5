"""The store: the only part of the service that speaks SQL. No Flask here: the CLI, the
demo loader and the web layer all go through it, so every element gets the same
versions, states and server-set attributes however it was made. The store never
commits: the caller owns the transaction (one per request).

`Store` is one tenant's store, made of parts, each a small class over the
`StoreContext` and the parts below it (passed in; no part inherits another):

    context   base.StoreContext: session, tenant, listing milestones; plain-row
              statements, id → pk lookups, bulk inserts   (batch: batched reads,
              plain: the row shapes and statements built once)
    reads     elements, listing pages, hierarchy, content, attributes and links
    rows      row writes: attributes, links, children, content, revision bumps  (reads)
    versions  the version a write goes to (a frozen one gets a new revision)  (reads, rows)
    guard     who may write tokens, approval tasks and audit actors (repository/protected.py)
    writes    create, update, append_content  (reads, rows, versions, guard)
    releases  release transitions and their side effects  (reads, rows, writes, guard)

Callers name the part: `store.reads.element(...)`, `store.writes.update(...)`,
`store.releases.transition(...)`; `store.session` and `store.tenant` are the context's.

Beside it: `sketches` (the last drawing's sketch per diagram version, layout key and
culture: issue 22's stable layout), `tenants` (tenants and tokens), `filters` (`$filter`
→ SQL condition), `maintenance` (pool maintenance), `changes` (the change feed's outbox,
which every write records its events in: `StoreContext.record`) and `values`
(timestamps, ids, encoded values).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from repository.store.base import StoreContext
from repository.store.guard import Guard
from repository.store.models import Tenant
from repository.store.positions import ListingPositions
from repository.store.reads import MAX_TREE_DEPTH, Reads, with_content
from repository.store.releases import Releases
from repository.store.rows import Rows
from repository.store.sketches import LayoutSketch  # its table joins the schema with the store
from repository.store.tenants import (
    add_token,
    all_tenants,
    create_tenant,
    find_tenant,
    find_token,
    has_elements,
    list_tokens,
    revoke_token,
)
from repository.store.values import (
    Link,
    PageRequest,
    encode_value,
    label,
    new_id,
    now_timestamp,
    sort_key,
)
from repository.store.versions import Versions
from repository.store.writes import Writes


class Store:
    """Element operations within one tenant, by part (the module's docstring); the store
    never commits: the caller owns the transaction (one per request)."""

    def __init__(self, session: Session, tenant: Tenant,
                 positions: ListingPositions | None = None) -> None:
        """`positions`: the listing milestones this process keeps (the app's, shared by
        its requests); by default the store's own."""
        self.context = StoreContext(session, tenant, positions)
        self.reads = Reads(self.context)
        self.rows = Rows(self.context, self.reads)
        self.versions = Versions(self.context, self.reads, self.rows)
        self.guard = Guard(self.context)
        self.writes = Writes(self.context, self.reads, self.rows, self.versions, self.guard)
        self.releases = Releases(self.context, self.reads, self.rows, self.writes, self.guard)

    @property
    def session(self) -> Session:
        return self.context.session

    @property
    def tenant(self) -> Tenant:
        return self.context.tenant

    @property
    def positions(self) -> ListingPositions:
        return self.context.positions

    @positions.setter
    def positions(self, positions: ListingPositions) -> None:
        self.context.positions = positions


__all__ = [
    "MAX_TREE_DEPTH",
    "LayoutSketch",
    "Link",
    "PageRequest",
    "Store",
    "add_token",
    "all_tenants",
    "create_tenant",
    "encode_value",
    "find_tenant",
    "find_token",
    "has_elements",
    "label",
    "list_tokens",
    "new_id",
    "now_timestamp",
    "revoke_token",
    "sort_key",
    "with_content",
]
