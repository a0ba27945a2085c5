"""Does a webhook receiver that hangs slow the API? (issue 24: "p99 of small GETs within
20 % of the run without webhooks"). Run by hand; figures go to docs/events.md,
"What a hanging receiver costs the API".

    python -m benchmarks.webhook_hang                       # SQLite, 40 pairs of blocks
    python -m benchmarks.webhook_hang --pairs 30 --requests 200
    python -m benchmarks.webhook_hang --db 'postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3Dmy_empty_schema'

It starts `elrepo serve --webhooks-allow-private` (two workers, each with its delivery
thread) on a fresh demo and a free port of 127.0.0.1, and a receiver on loopback that
never answers: it holds each delivery until the benchmark lets it go. Then it times
blocks of small GETs (one after the other, a new connection each, as the test does) in
two conditions, interleaved so that what else the machine does falls on both alike:

- quiet: no webhook is registered (the delivery threads poll and find nothing);
- hung: a webhook to the receiver is registered, and the block starts only once the
  receiver holds a delivery; the block must end within the deliverer's own 10 s
  deadline (one that does not is counted and reported). After the block the webhook is
  removed and the receiver drops what it holds.

Both kinds of block are prepared alike: a change made (a write, whose events the hung
block's webhook delivers), a pause past a delivery poll, and a pause after the block.

Each pair of blocks runs in a random order (`--seed`). The latencies are pooled per
condition; the p99 ratio (hung / quiet) gets a 95 % interval by resampling whole pairs
(a block bootstrap: a noisy stretch of the machine moves both halves of its pair).
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import numpy as np
from numpy.typing import NDArray

from benchmarks.load import StartedServer, machine, started_server
from repository.webhooks.sender import DEADLINE_SECONDS
from tests.repository.webhook_parts import Receiver

TENANT = "/demo/default"
SMALL_GET = f"{TENANT}/_api/rest/facets/processes/views"
WEBHOOKS = f"{TENANT}/_api/rest/webhooks"
NEW_TASK = {"count": 1, "elements": [{"type": "task", "attributes": {"name": {"1033": "hang"}}}]}
ELEMENTS = f"{TENANT}/_api/rest/facets/processes/views/detail/elements"
WAIT_SECONDS = 60.0  # for the receiver to be handed a delivery: a bound, not a claim
PREPARE_SECONDS = 1.5  # a change's delivery starts within a poll (1 s) of it
SETTLE_SECONDS = 0.5  # after a hung block: the deliverer's attempt ends and writes nothing
PERCENTILES = (50.0, 90.0, 99.0)
Latencies = NDArray[np.float64]


class Hang:
    """The receiver's answer: hold every request until `release`, then drop it without
    an answer. `started` is when the newest held request came in."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.held = 0
        self.started = 0.0

    def __call__(self, _number: int) -> int | None:
        with self._lock:
            released = self._released
            self.held += 1
            self.started = time.monotonic()
        released.wait()
        with self._lock:
            self.held -= 1
        return None  # down: the connection closes unanswered

    def release(self) -> None:
        with self._lock:
            self._released.set()
            self._released = threading.Event()

    def holding_since(self, moment: float) -> bool:
        """Whether a request that came in after `moment` is held."""
        with self._lock:
            return self.held > 0 and self.started > moment


@dataclass(frozen=True, slots=True)
class Client:
    host: str
    port: int
    token: str

    @classmethod
    def of(cls, url: str, token: str) -> Client:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        return cls(parts.hostname, parts.port, token)

    def request(self, path: str, method: str = "GET", body: object = None,
                token: str | None = None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=WAIT_SECONDS)
        try:
            connection.request(method, path, None if body is None else json.dumps(body), {
                "Authorization": f"Bearer {token or self.token}",
                "Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def expect(self, path: str, method: str = "GET", body: object = None,
               token: str | None = None) -> dict[str, object]:
        status, answer = self.request(path, method, body, token)
        if status != 200:
            raise SystemExit(f"{method} {path} answered {status}: {answer[:300]!r}")
        parsed: dict[str, object] = json.loads(answer)
        return parsed


def timed_block(client: Client, count: int) -> list[float]:
    """Seconds each of `count` small GETs took, client side."""
    taken = []
    for _ in range(count):
        started = time.perf_counter()
        status, _ = client.request(SMALL_GET)
        taken.append(time.perf_counter() - started)
        if status != 200:
            raise SystemExit(f"GET {SMALL_GET} answered {status}")
    return taken


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"waited {WAIT_SECONDS:g} s for {what}")
        time.sleep(0.01)


@dataclass
class Blocks:
    quiet: list[list[float]]  # one list per pair
    hung: list[list[float]]
    outlived: int = 0  # hung blocks that ended after the deliverer's deadline


@dataclass
class Bench:
    client: Client
    admin: str  # an administrator's token: registers and removes the webhook
    receiver: Receiver
    hang: Hang
    count: int  # GETs per block

    def block(self, hung: bool, blocks: Blocks) -> list[float]:
        """One block, either condition prepared alike: a change made (its events), the
        GETs `PREPARE_SECONDS` later (past a delivery thread's poll), `SETTLE_SECONDS`
        after them. Hung: a webhook to the receiver registered before the change, the
        GETs only once the receiver holds its delivery, the webhook removed after them."""
        prepared = time.monotonic()
        webhook = None
        if hung:
            created = self.client.expect(WEBHOOKS, "POST", {"url": self.receiver.url}, self.admin)
            webhook = created["values"][0]["id"]  # type: ignore[index]
        self.client.expect(ELEMENTS, "POST", NEW_TASK)
        time.sleep(PREPARE_SECONDS)
        if hung:
            wait_until(lambda: self.hang.holding_since(prepared),
                       "a delivery to the hanging receiver")
        taken = timed_block(self.client, self.count)
        if webhook is not None:
            if time.monotonic() - self.hang.started >= DEADLINE_SECONDS:
                blocks.outlived += 1
            self.client.expect(f"{WEBHOOKS}/{webhook}", "DELETE", token=self.admin)
            self.hang.release()
        time.sleep(SETTLE_SECONDS)
        return taken


def measure(started: StartedServer, pairs: int, count: int, seed: int) -> Blocks:
    hang = Hang()
    blocks = Blocks([], [])
    rng = random.Random(seed)
    with Receiver(hang) as receiver:
        bench = Bench(Client.of(started.url, started.token),
                      administrator_token(started.database), receiver, hang, count)
        # Untimed: the workers' first requests, the first webhook and delivery.
        for hung in (False, True):
            bench.block(hung, Blocks([], []))
        for pair in range(pairs):
            quiet_first = rng.random() < 0.5
            for hung in (not quiet_first, quiet_first):
                (blocks.hung if hung else blocks.quiet).append(bench.block(hung, blocks))
            print(f"  pair {pair + 1}/{pairs}", file=sys.stderr, flush=True)
        hang.release()
    return blocks


def administrator_token(database: str) -> str:
    done = subprocess.run([sys.executable, "-m", "repository.cli", "token", "create", "demo",
                           "default", "--role", "administrator", "--db", database],
                          capture_output=True, text=True, check=True, timeout=WAIT_SECONDS)
    return done.stdout.strip().splitlines()[-1]


def pooled(blocks: list[list[float]], chosen: NDArray[np.intp] | None = None) -> Latencies:
    picked = blocks if chosen is None else [blocks[i] for i in chosen]
    return np.concatenate([np.asarray(block) for block in picked])


@dataclass(frozen=True, slots=True)
class Ratio:
    value: float
    low: float  # the 95 % interval of pair resampling
    high: float


def ratio(blocks: Blocks, percentile: float, resamples: int, seed: int) -> Ratio:
    """hung / quiet of the pooled `percentile`, with a block bootstrap over pairs."""
    def of(chosen: NDArray[np.intp] | None) -> float:
        return float(np.percentile(pooled(blocks.hung, chosen), percentile)
                     / np.percentile(pooled(blocks.quiet, chosen), percentile))
    rng = np.random.default_rng(seed)
    pairs = len(blocks.quiet)
    spread = [of(rng.integers(0, pairs, pairs)) for _ in range(resamples)]
    low, high = np.percentile(spread, [2.5, 97.5])
    return Ratio(of(None), float(low), float(high))


def report(blocks: Blocks, count: int, resamples: int, seed: int) -> None:
    print(f"{'condition':<10} {'GETs':>6} " + " ".join(f"{f'p{p:g} ms':>8}" for p in PERCENTILES)
          + f" {'max ms':>8}")
    for name, kept in (("quiet", blocks.quiet), ("hung", blocks.hung)):
        latencies = pooled(kept) * 1000
        print(f"{name:<10} {len(latencies):>6} "
              + " ".join(f"{np.percentile(latencies, p):>8.2f}" for p in PERCENTILES)
              + f" {latencies.max():>8.1f}")
    for percentile in PERCENTILES:
        found = ratio(blocks, percentile, resamples, seed)
        print(f"p{percentile:g} ratio hung/quiet: {found.value:.3f} "
              f"(95 % interval of {resamples} pair resamples: {found.low:.3f} to {found.high:.3f})")
    print(f"{len(blocks.hung)} hung blocks of {count} GETs; {blocks.outlived} outlived the "
          f"deliverer's {DEADLINE_SECONDS:g} s deadline")


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--pairs", type=int, default=40,
                        help="pairs of blocks (one quiet, one beside a hung delivery)")
    parser.add_argument("--requests", type=int, default=200, help="small GETs per block")
    parser.add_argument("--workers", type=int, default=2, help="workers of elrepo serve")
    parser.add_argument("--db", help="an empty database for elrepo serve (default: a fresh "
                                     "SQLite file)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=24, help="block order and resampling")
    args = parser.parse_args()
    if args.pairs < 2 or args.requests < 100 or args.workers < 1 or args.resamples < 100:
        parser.error("--pairs at least 2, --requests at least 100 (a p99 needs them), "
                     "--workers at least 1, --resamples at least 100")
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {machine()}")
    with started_server(args.workers, "--webhooks-allow-private", database=args.db) as started:
        database = started.database.split("://", 1)[0]
        print(f"elrepo serve --workers {args.workers}, {database}; {args.pairs} pairs of "
              f"{args.requests} GETs of {SMALL_GET}")
        before = load_average()
        blocks = measure(started, args.pairs, args.requests, args.seed)
        print(f"load average (1, 5, 15 min) before {before}, after {load_average()}")
    report(blocks, args.requests, args.resamples, args.seed)


if __name__ == "__main__":
    main()
