"""The memory of renders that ran past their deadline, shared by every worker of a server.

A render (or BPMN export) that ran past its deadline is remembered for REFUSAL_SECONDS
under its content key (`render_cache.content_key`: the diagram's shapes and links, not
the culture, the layout or the tenant's generation), with its deadline and how long it
had of it in its render process; the render pool refuses a repeat at once instead of
spending another deadline on it (repository/render_pool.py). A memory private to each worker would let a client
spend one deadline per worker, and one per culture if the culture were in the key
(issue 18, item 4), so the memory lives where every worker of a server sees it:

- in Redis when the server has one (the render cache's, `--redis`): shared by every
  server on it too; keys expire by themselves after REFUSAL_SECONDS;
- else in a small SQLite file in the run directory `elrepo serve` makes before its
  workers fork (`FileTimedOutRenders`): a file every worker opens, apart from the
  service's database so that remembering never waits for its write lock; at most
  MAX_REMEMBERED entries, expired ones dropped on every write;
- else (an app without a server: tests, the CLI) in this process's memory, as bounded.

A repeat in another culture or layout would still read the whole diagram to learn its
content key (80 ms for 19,900 links, on a request thread): `ContentKeys` keeps, per
worker, the content key of each recently drawn state (diagram, newest version, tenant
generation), so such a repeat is refused from two indexed reads.

Losing the memory is harmless: a store that fails (Redis down, a file that cannot be
written) reads as empty and the render runs under its deadline as before; one warning
is logged per store.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from repository.lru import Lru
from repository.render_cache import DEFAULT_NAMESPACE, RedisRenderCache

__all__ = [
    "ContentKeys",
    "FILE_NAME",
    "KEY_PREFIX",
    "MAX_REMEMBERED",
    "REFUSAL_SECONDS",
    "FileTimedOutRenders",
    "MemoryTimedOutRenders",
    "RedisTimedOutRenders",
    "TimedOut",
    "TimedOutRenders",
    "make_timed_out_renders",
]

#: How long a render that ran past its deadline is refused without trying again.
REFUSAL_SECONDS = 60
#: Timed-out content keys remembered at most (by the file and memory stores; the oldest
#: go first). Each one cost a whole deadline of a render process, so even an attacker
#: fills few: 1,024 is over an hour of one process's timeouts at the default 10 s.
MAX_REMEMBERED = 1024
#: Drawn states whose content key a worker keeps (about 200 bytes each).
MAX_CONTENT_KEYS = 4096
KEY_PREFIX = "elrepo:timedout:"
FILE_NAME = "timed-out-renders.sqlite3"
#: A file store waits at most this long for another worker's write.
_FILE_BUSY_SECONDS = 1.0

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TimedOut:
    """A remembered timeout: how long the render had in its render process before it was
    stopped (`ran`), of which deadline, and until when (`time.time()`) it is refused."""

    ran: float
    deadline: float
    until: float

    def seconds_left(self) -> float:
        return self.until - time.time()


class TimedOutRenders(Protocol):
    """Timed-out renders by content key: `recall` answers a live entry or None."""

    def recall(self, key: str) -> TimedOut | None: ...

    def remember(self, key: str, ran: float, deadline: float) -> None: ...


class MemoryTimedOutRenders:
    """This process's memory: for an app without a server (tests, the CLI)."""

    def __init__(self, max_keys: int = MAX_REMEMBERED,
                 seconds: float = REFUSAL_SECONDS) -> None:
        self.seconds = seconds
        self._entries: Lru[str, TimedOut] = Lru(max_keys)

    def recall(self, key: str) -> TimedOut | None:
        return self._entries.get(key, fresh=lambda entry: entry.seconds_left() > 0)

    def remember(self, key: str, ran: float, deadline: float) -> None:
        self._entries.put(key, TimedOut(ran, deadline, time.time() + self.seconds))


class FileTimedOutRenders:
    """A SQLite file that every worker of one `elrepo serve` opens (each call its own
    short connection: threads and forks share nothing). Bounded: expired entries and
    all but the newest `max_keys` are dropped on every write."""

    def __init__(self, path: Path, max_keys: int = MAX_REMEMBERED,
                 seconds: float = REFUSAL_SECONDS) -> None:
        self.path = path
        self.max_keys = max_keys
        self.seconds = seconds
        self._warned = False
        with contextlib.suppress(sqlite3.Error, OSError), self._connection() as connection:
            connection.execute("PRAGMA journal_mode=WAL")

    def recall(self, key: str) -> TimedOut | None:
        try:
            with self._connection() as connection:
                row = connection.execute(
                    "SELECT ran, deadline, expires FROM timed_out WHERE key = ? AND expires > ?",
                    (key, time.time())).fetchone()
        except (sqlite3.Error, OSError) as error:
            self._failed(error)
            return None
        return None if row is None else TimedOut(*(float(value) for value in row))

    def remember(self, key: str, ran: float, deadline: float) -> None:
        now = time.time()
        try:
            with self._connection() as connection:
                connection.execute("BEGIN IMMEDIATE")
                connection.execute("INSERT OR REPLACE INTO timed_out VALUES (?, ?, ?, ?)",
                                   (key, ran, deadline, now + self.seconds))
                connection.execute("DELETE FROM timed_out WHERE expires <= ?", (now,))
                connection.execute("DELETE FROM timed_out WHERE key NOT IN (SELECT key FROM "
                                   "timed_out ORDER BY expires DESC LIMIT ?)", (self.max_keys,))
                connection.execute("COMMIT")
        except (sqlite3.Error, OSError) as error:
            self._failed(error)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        connection = sqlite3.connect(self.path, timeout=_FILE_BUSY_SECONDS,
                                     isolation_level=None)
        try:
            connection.execute("CREATE TABLE IF NOT EXISTS timed_out "
                               "(key TEXT PRIMARY KEY, ran REAL NOT NULL, deadline REAL NOT NULL, "
                               "expires REAL NOT NULL)")
            yield connection
        finally:
            connection.close()

    def _failed(self, error: BaseException) -> None:
        if not self._warned:
            self._warned = True
            _log.warning("timed-out renders: %s failed (%s: %s); timed-out renders are not "
                         "remembered meanwhile", self.path, type(error).__name__, error)


class RedisTimedOutRenders:
    """Entries as Redis strings `elrepo:timedout:<namespace>:<key>` that expire by
    themselves; Redis errors are absorbed as the render cache absorbs them (which tells
    the outage: it uses the same Redis)."""

    def __init__(self, url: str, namespace: str = DEFAULT_NAMESPACE,
                 seconds: int = REFUSAL_SECONDS) -> None:
        self._entries = RedisRenderCache(url, namespace, ttl_seconds=seconds,
                                         key_prefix=KEY_PREFIX, tell_outages=False)
        self.seconds = seconds

    def recall(self, key: str) -> TimedOut | None:
        stored = self._entries.get(key)
        if stored is None:
            return None
        try:
            ran, deadline, until = json.loads(stored)
            entry = TimedOut(float(ran), float(deadline), float(until))
        except (ValueError, TypeError):
            return None
        return entry if entry.seconds_left() > 0 else None

    def remember(self, key: str, ran: float, deadline: float) -> None:
        self._entries.put(key, json.dumps([ran, deadline, time.time() + self.seconds]).encode())

    def close(self) -> None:
        self._entries.close()


class ContentKeys:
    """The content key of each recently drawn state, by a key naming that state; least
    recently used forgotten first (repository/lru.py). Safe to share between the
    threads of one process."""

    def __init__(self, max_keys: int = MAX_CONTENT_KEYS) -> None:
        self._keys: Lru[str, str] = Lru(max_keys)

    def get(self, drawn: str) -> str | None:
        return self._keys.get(drawn)

    def put(self, drawn: str, content: str) -> None:
        self._keys.put(drawn, content)


def make_timed_out_renders(redis_url: str | None, namespace: str = DEFAULT_NAMESPACE,
                           run_directory: str | None = None) -> TimedOutRenders:
    """Redis when the server has one, else a file in its run directory, else memory."""
    if redis_url is not None:
        return RedisTimedOutRenders(redis_url, namespace)
    if run_directory is not None:
        return FileTimedOutRenders(Path(run_directory) / FILE_NAME)
    return MemoryTimedOutRenders()
