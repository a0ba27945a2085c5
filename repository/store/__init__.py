"""The store: the only part of the service that speaks SQL. No Flask here: the CLI, the
demo loader and the web layer all go through it, so every element gets the same
versions, states and server-set attributes however it was made. The store never
commits: the caller owns the transaction (one per request).

`Store` is one tenant's store, built in layers, each module using only those below it:

    base      session and tenant, id → pk lookups, bulk inserts   (batch: batched reads)
    plain     reads of plain rows: statements built once, keys as one parameter
    reads     elements, listing pages, hierarchy, content, attributes and links
    rows      row writes: attributes, links, children, content, revision bumps
    versions  the version a write goes to (a frozen one gets a new revision)
    guard     who may write tokens, approval tasks and audit actors (repository/protected.py)
    writes    create, update, append_content
    releases  release transitions and their side effects

Beside it: `tenants` (tenants and tokens), `filters` (`$filter` → SQL condition),
`maintenance` (pool maintenance) and `values` (timestamps, ids, encoded values).
"""

from __future__ import annotations

from repository.store.reads import MAX_TREE_DEPTH, with_content
from repository.store.releases import Releases
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


class Store(Releases):
    """Element operations within one tenant; `actor_pk` is the element that acts."""


__all__ = [
    "MAX_TREE_DEPTH",
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
