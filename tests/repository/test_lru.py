"""The one in-process LRU (repository/lru.py) every memory cache of the service uses."""

from __future__ import annotations

import threading

import pytest

from repository.lru import Lru


def test_entries_are_evicted_least_recently_used_first_by_weight() -> None:
    cache: Lru[str, bytes] = Lru(6, len)
    cache.put("a", b"aa")
    cache.put("b", b"bb")
    assert cache.get("a") == b"aa"  # now b is the least recently used
    cache.put("c", b"ccc")
    assert (cache.get("b"), cache.get("a"), cache.get("c")) == (None, b"aa", b"ccc")
    assert cache.weight == 5 and len(cache) == 2


def test_an_entry_heavier_than_the_budget_is_not_stored_and_evicts_nothing() -> None:
    cache: Lru[str, bytes] = Lru(3, len)
    cache.put("a", b"aaa")
    cache.put("b", b"bbbb")
    assert cache.get("b") is None and cache.get("a") == b"aaa"


def test_replacing_an_entry_counts_its_new_weight_only() -> None:
    cache: Lru[str, bytes] = Lru(10, len)
    cache.put("a", b"aaaa")
    cache.put("a", b"aa")
    assert cache.weight == 2 and len(cache) == 1


def test_the_default_weight_counts_entries() -> None:
    cache: Lru[int, str] = Lru(2)
    for key in range(5):
        cache.put(key, str(key))
    assert len(cache) == 2 and cache.get(3) == "3" and cache.get(4) == "4"


def test_a_stale_entry_reads_as_a_miss_and_is_dropped() -> None:
    cache: Lru[str, int] = Lru(5)
    cache.put("a", 1)
    assert cache.get("a", fresh=lambda value: value > 1) is None
    assert len(cache) == 0


def test_a_held_entry_can_keep_its_place() -> None:
    cache: Lru[str, int] = Lru(5)
    cache.put("a", 7)
    cache.put("a", 3, keeps=lambda held: held > 3)
    assert cache.get("a") == 7
    cache.put("a", 9, keeps=lambda held: held > 9)
    assert cache.get("a") == 9


def test_drop_where_and_clear_answer_how_many_they_dropped() -> None:
    cache: Lru[str, bytes] = Lru(100, len)
    for key in ("p.s:1", "p.s:2", "q.s:1"):
        cache.put(key, b"x")
    assert cache.drop_where(lambda key: key.startswith("p.s:")) == 2
    assert cache.weight == 1
    assert cache.clear() == 1 and cache.weight == 0 and len(cache) == 0


def test_a_negative_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        Lru(-1)


def test_threads_sharing_a_cache_keep_its_weight_exact() -> None:
    cache: Lru[int, bytes] = Lru(1000, len)

    def churn(offset: int) -> None:
        for key in range(2000):
            cache.put((key * 7 + offset) % 300, b"x" * (key % 13))
            cache.get(key % 300)

    threads = [threading.Thread(target=churn, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    held = [cache.get(key) for key in range(300)]
    assert cache.weight == sum(len(value) for value in held if value is not None) <= 1000
