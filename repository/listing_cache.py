"""The listing cache: whole answers of the element listing (seed endpoint 2) by key.

A listing answer is a function of the tenant's elements and the request alone: the
path (facet and view), the query (`$filter`, `$page`, `$pageSize`, `$pageSelectionKey`,
`$resources`, `$select`, `$expandRelated`) and the tenant (its ids are in every link of
the answer, its default culture orders the names). The elements change only by writes,
and every write bumps the tenant's content generation (repository/store/generation.py;
maintenance's recomputed listing columns too), so the key names the generation instead
of the data, as the render cache's does (repository/render_cache.py): a hit costs the
generation's one primary-key read, a page of 100 about 1,400 rows less
(docs/performance-service.md). Entries never go stale; old ones age out.

The same two stores as the render cache, kept apart from it: an in-process LRU of its
own (so that a client paging through every filter it can think of evicts listings, not
pictures), or Redis under its own key prefix, shared by every worker and server.
"""

from __future__ import annotations

from collections.abc import Iterable

from repository.render_cache import DEFAULT_NAMESPACE, RenderCache, make_render_cache, pool_key

__all__ = ["KEY_PREFIX", "MEMORY_BYTES", "listing_key", "make_listing_cache"]

KEY_PREFIX = "elrepo:listing:"
#: A page of 100 with every resource is about 200 KB; this keeps some 80 of them.
MEMORY_BYTES = 16 * 1024 * 1024


def listing_key(collection_id: str, storage_id: str, default_culture: int, generation: int,
                path: str, query: Iterable[tuple[str, str]]) -> str:
    """The render cache's key form (`render_cache.pool_key`). The query's parameters are
    ordered by name, keeping the order of a repeated one's values (the first counts)."""
    ordered = sorted(query, key=lambda item: item[0])
    return pool_key(collection_id, storage_id, [default_culture, generation, path, ordered])


def make_listing_cache(url: str | None, namespace: str = DEFAULT_NAMESPACE) -> RenderCache:
    """Redis when a URL is given, else this process's memory."""
    return make_render_cache(url, namespace, key_prefix=KEY_PREFIX, memory_bytes=MEMORY_BYTES)
