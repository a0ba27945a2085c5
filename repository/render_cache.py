"""The render cache: finished SVG by key, shared when Redis is configured.

Rendering is the service's expensive call (half a second for a 540-shape diagram) and
`renderer.api.render` is pure: the same fixture, layout key, culture and default culture
give the same bytes. Building the fixture is itself a dozen statements, so the key does
not hash it: it names what the fixture is a function of, read in two indexed reads
(docs/service.md, "Render cache"). The tenant's content generation
(repository/store/generation.py) changes with every write to any of the tenant's
elements, so a key never names a stale picture; together with the diagram, its newest
version, the request (layout, culture), the tenant's default culture and the engine's
identity (`renderer.identity.engine_version`) it is the whole input. Entries never need
invalidating: old ones only age out (LRU in memory, TTL in Redis). Keys start with the
pool id `<collection>.<storage>` so maintenance can drop one tenant's entries, and
because the tenant is hashed in too, no tenant can ever be served another tenant's
picture. A generation is unique within one database only: databases that share a Redis
use separate namespaces.

A second key, `content_key`, names what a drawing costs rather than what it shows: the
diagram's shapes and links, whatever the culture, layout or generation. It is computed
from the fixture of a miss, and the memory of renders that ran past their deadline is
kept by it (repository/render_refusals.py).

Two implementations of one small protocol: `MemoryRenderCache`, the default, embedded
and private to each process (each gunicorn worker has its own), and `RedisRenderCache`,
shared by every worker and server that points at the same Redis. A Redis that does not
answer never fails a request: the cache reads as empty, writes are skipped, one warning
is logged per outage, and Redis is tried again after a pause.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from renderer.culture import DEFAULT_CULTURE
from renderer.identity import engine_version
from repository.lru import Lru
from repository.settings import REDIS_URL_ENV

if TYPE_CHECKING:
    import redis

__all__ = [
    "DEFAULT_MEMORY_BYTES",
    "DEFAULT_NAMESPACE",
    "DEFAULT_TTL_SECONDS",
    "DrawnState",
    "KEY_PREFIX",
    "MemoryRenderCache",
    "RedisRenderCache",
    "RenderCache",
    "content_key",
    "make_render_cache",
    "pool_key",
    "render_key",
]

KEY_PREFIX = "elrepo:render:"
DEFAULT_NAMESPACE = "default"
DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024
DEFAULT_TTL_SECONDS = 24 * 60 * 60
#: Pool ids and namespaces are made of these, never ':' or glob characters, so one
#: namespace's or pool's SCAN pattern cannot match another's keys.
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_SCAN_BATCH = 500

_log = logging.getLogger(__name__)


class RenderCache(Protocol):
    """Finished SVG by `render_key`; a miss is None. `clear` drops every entry of one
    pool (or all entries of this cache) and answers how many it dropped."""

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, svg: bytes) -> None: ...

    def clear(self, pool: str | None = None) -> int: ...


@dataclass(frozen=True, slots=True)
class DrawnState:
    """What a diagram's drawing depends on in the store, read without building it: the
    diagram, its newest version and the tenant's content generation at the time."""

    diagram_id: str
    version_pk: int
    generation: int


def render_key(collection_id: str, storage_id: str, drawn: DrawnState, layout_key: str,
               culture: int, *, default_culture: int = DEFAULT_CULTURE, sketch: str = "") -> str:
    """`<collection>.<storage>:<sha256>` over the drawn state, the request
    (`default_culture` as passed to `renderer.api.render`), the tenant, the engine
    version and, for a drawing kept stable, the digest of the sketch record it is drawn
    from (`sketch`, repository/store/sketches.py; "" for none)."""
    return pool_key(collection_id, storage_id, [
        drawn.diagram_id, drawn.version_pk, drawn.generation, layout_key, culture,
        default_culture, engine_version(), *([sketch] if sketch else [])])


def content_key(collection_id: str, storage_id: str, work: str,
                fixture: Mapping[str, Any]) -> str:
    """`<collection>.<storage>:<sha256>` over what drawing `fixture` costs, as `work` (a
    render or a BPMN export) with this engine: the diagram's type, each shape's element
    type, predecessors and related links (counted by context), how many other elements
    the fixture describes, and the same of each nested fixture (an export's expanded
    sub-processes). No names, culture, layout, diagram id or generation: every culture
    and layout of a diagram, and every copy of its content in the tenant, share the key
    (repository/render_refusals.py). Hashing 19,900 links takes a few milliseconds."""
    return pool_key(collection_id, storage_id, [work, engine_version(), _skeleton(fixture)])


def _skeleton(fixture: Mapping[str, Any]) -> list[Any]:
    shapes = [[value["element"].get("type"), value["shapeInfo"].get("predecessors", []),
               sorted((context, len(links))
                      for context, links in value["element"].get("related", {}).items())]
              for value in fixture.get("values", [])]
    inner = fixture.get("inner", {})
    return [fixture["diagram"].get("type"), shapes, len(fixture.get("elements", [])),
            [[element_id, _skeleton(inner[element_id])] for element_id in sorted(inner)]]


def pool_key(collection_id: str, storage_id: str, parts: list[Any]) -> str:
    """`<collection>.<storage>:<sha256>` over the tenant's ids and `parts` (JSON values):
    the form of every cache key, whose pool prefix lets maintenance drop a tenant's
    entries."""
    payload = json.dumps([collection_id, storage_id, *parts], ensure_ascii=False)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    return f"{collection_id}.{storage_id}:{digest}"


def _pool_prefix(pool: str) -> str:
    if not _NAME.fullmatch(pool):
        raise ValueError(f"not a pool id: {pool!r}")
    return pool + ":"


class MemoryRenderCache:
    """A least-recently-used cache bounded by the SVG bytes it holds (keys are not
    counted; repository/lru.py), safe to share between the threads of one process."""

    def __init__(self, max_bytes: int = DEFAULT_MEMORY_BYTES) -> None:
        self._entries: Lru[str, bytes] = Lru(max_bytes, len)

    @property
    def max_bytes(self) -> int:
        return self._entries.budget

    @property
    def total_bytes(self) -> int:
        return self._entries.weight

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> bytes | None:
        return self._entries.get(key)

    def put(self, key: str, svg: bytes) -> None:
        """Stores and evicts the least recently used entries until the bound holds; an
        SVG larger than the whole bound is not stored (it would evict everything)."""
        self._entries.put(key, svg)

    def clear(self, pool: str | None = None) -> int:
        if pool is None:
            return self._entries.clear()
        prefix = _pool_prefix(pool)
        return self._entries.drop_where(lambda key: key.startswith(prefix))


class RedisRenderCache:
    """Entries as Redis strings `elrepo:render:<namespace>:<key>` with a TTL.

    Every Redis error is absorbed: the request renders without the cache. After an error
    Redis is left alone for a few seconds, so an outage costs one failed connection
    attempt per pause instead of two per request; a warning is logged when an outage
    starts and a note when Redis answers again. `clear` deletes by SCAN over this
    namespace's own prefix (never FLUSHDB: the database may hold other data).
    """

    def __init__(self, url: str, namespace: str = DEFAULT_NAMESPACE,
                 ttl_seconds: int = DEFAULT_TTL_SECONDS, connect_timeout: float = 1.0,
                 timeout: float = 2.0, retry_seconds: float = 5.0,
                 key_prefix: str = KEY_PREFIX, tell_outages: bool = True) -> None:
        """Raises ValueError for a URL redis-py cannot use or a bad namespace; does not
        connect (a worker connects on its first render, after gunicorn's fork).
        `retry_seconds` is the pause after a Redis error; `key_prefix` names what is
        cached (the listing cache keeps its answers under its own); `tell_outages` False
        leaves telling an outage to the render cache on the same Redis."""
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise ValueError(f"{REDIS_URL_ENV} or --redis needs the redis package: "
                             "pip install 'elrepo[redis]'") from None
        if not _NAME.fullmatch(namespace):
            raise ValueError(f"render cache namespace {namespace!r}: use letters, digits, "
                             "'_', '.' and '-'")
        if ttl_seconds < 1:
            raise ValueError("ttl_seconds must be at least 1")
        self.prefix = f"{key_prefix}{namespace}:"
        self.ttl_seconds = ttl_seconds
        self.retry_seconds = retry_seconds
        self._log = _log if tell_outages else _log.getChild("quiet")
        if not tell_outages:
            self._log.setLevel(logging.ERROR)
        # No retries inside redis-py (its default retries up to 10 times): the pause
        # after an error below is the retry policy, and a request must not wait long.
        self._client: redis.Redis = redis.Redis.from_url(
            url, socket_connect_timeout=connect_timeout, socket_timeout=timeout,
            retry=Retry(NoBackoff(), 0))
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._lock = threading.Lock()
        self._down_until: float | None = None  # set while Redis is thought unreachable

    def get(self, key: str) -> bytes | None:
        if self._paused():
            return None
        try:
            value = self._client.get(self.prefix + key)
        except self._errors as error:
            self._failed("read", error)
            return None
        self._answered()
        return value if isinstance(value, bytes) else None

    def put(self, key: str, svg: bytes) -> None:
        if self._paused():
            return
        try:
            self._client.set(self.prefix + key, svg, ex=self.ttl_seconds)
        except self._errors as error:
            self._failed("write", error)
            return
        self._answered()

    def clear(self, pool: str | None = None) -> int:
        """Tried even during a pause (maintenance is explicit); when Redis fails midway
        it answers what was dropped until then."""
        pattern = self.prefix + (_pool_prefix(pool) if pool is not None else "") + "*"
        dropped = 0
        try:
            batch: list[bytes] = []
            for key in self._client.scan_iter(match=pattern, count=_SCAN_BATCH):
                batch.append(key)
                if len(batch) == _SCAN_BATCH:
                    dropped += int(self._client.unlink(*batch))
                    batch = []
            if batch:
                dropped += int(self._client.unlink(*batch))
        except self._errors as error:
            self._failed("clear", error)
            return dropped
        self._answered()
        return dropped

    def ping(self) -> bool:
        """Whether Redis answers now (for the hint `elrepo serve` prints at start)."""
        try:
            return bool(self._client.ping())
        except self._errors:
            return False

    def close(self) -> None:
        self._client.close()

    def _paused(self) -> bool:
        down_until = self._down_until
        return down_until is not None and time.monotonic() < down_until

    def _failed(self, action: str, error: BaseException) -> None:
        with self._lock:
            starting = self._down_until is None
            self._down_until = time.monotonic() + self.retry_seconds
        if starting:
            self._log.warning("render cache: Redis %s failed (%s: %s); rendering without "
                              "the cache, retrying every %.0f s", action, type(error).__name__,
                              error, self.retry_seconds)

    def _answered(self) -> None:
        if self._down_until is None:
            return
        with self._lock:
            recovered = self._down_until is not None
            self._down_until = None
        if recovered:
            self._log.info("render cache: Redis answers again")


def make_render_cache(url: str | None, namespace: str = DEFAULT_NAMESPACE, *,
                      key_prefix: str = KEY_PREFIX,
                      memory_bytes: int = DEFAULT_MEMORY_BYTES) -> RenderCache:
    """Redis when a URL is given, else memory. ValueError for an unusable configuration."""
    if url is None:
        return MemoryRenderCache(memory_bytes)
    return RedisRenderCache(url, namespace, key_prefix=key_prefix)
