"""The one least-recently-used cache of the service's process memory, safe to share
between the threads of one process.

Each entry weighs something (`weigh`: its length for bytes, 1 by default so that the
budget counts entries) and the entries together weigh at most `budget`; a `put` evicts
the least recently used entries until that holds. Every in-process cache is one:
finished SVG and listing answers by bytes (`render_cache.MemoryRenderCache`), timed-out
renders and the content keys of drawn states by count (repository/render_refusals.py),
listing milestones by count (repository/store/positions.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Lru"]

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


def _one(_value: object) -> int:
    return 1


class Lru(Generic[Key, Value]):
    """At most `budget` of weight, least recently used evicted first. An entry heavier
    than the whole budget is not stored (it would evict everything)."""

    def __init__(self, budget: int, weigh: Callable[[Value], int] = _one) -> None:
        if budget < 0:
            raise ValueError("a cache budget must not be negative")
        self.budget = budget
        self._weigh = weigh
        self._entries: OrderedDict[Key, Value] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    @property
    def weight(self) -> int:
        """What the entries weigh together."""
        return self._weight

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Key, fresh: Callable[[Value], bool] | None = None) -> Value | None:
        """The entry, now the most recently used; None on a miss. An entry that is not
        `fresh` is dropped and reads as a miss."""
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                return None
            if fresh is not None and not fresh(value):
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return value

    def put(self, key: Key, value: Value,
            keeps: Callable[[Value], bool] | None = None) -> None:
        """Stores `value` as the most recently used entry, unless the entry held under
        `key` `keeps` its place (a newer one, say)."""
        weight = self._weigh(value)
        if weight > self.budget:
            return
        with self._lock:
            held = self._entries.get(key)
            if held is not None:
                if keeps is not None and keeps(held):
                    return
                self._drop(key)
            self._entries[key] = value
            self._weight += weight
            while self._weight > self.budget:
                evicted = next(iter(self._entries))
                self._drop(evicted)

    def drop_where(self, matches: Callable[[Key], bool]) -> int:
        """Drops every entry whose key `matches`; answers how many."""
        with self._lock:
            keys = [key for key in self._entries if matches(key)]
            for key in keys:
                self._drop(key)
            return len(keys)

    def clear(self) -> int:
        """Drops every entry; answers how many."""
        with self._lock:
            dropped = len(self._entries)
            self._entries.clear()
            self._weight = 0
            return dropped

    def _drop(self, key: Key) -> None:
        self._weight -= self._weigh(self._entries.pop(key))
