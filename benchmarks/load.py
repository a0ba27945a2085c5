"""Load benchmark of `elrepo serve`: cached render, uncached render, listing pages and
writes, each driven by wrk for a fixed time over keep-alive connections; prints requests
per second and latency percentiles per scenario. Run by hand; figures go to
docs/performance-service.md, "Load benchmark".

    python -m benchmarks.load                          # starts elrepo serve on a fresh demo
    python -m benchmarks.load --workers 4 --duration 20 --scenario cached-render
    python -m benchmarks.load --url http://127.0.0.1:8080 --token TOKEN   # a running one

Without ``--url`` it starts ``elrepo serve`` (SQLite in a temporary directory, the demo
tenant, ``--workers``) on a free port of 127.0.0.1 and stops it afterwards, and then also
prints the server's CPU time per request (all its processes, from /proc): on a machine
shared with other work, requests per second follow the CPU the others leave, while CPU
per request stays the service's own figure. Needs wrk
(``apt-get install wrk``). Point it only at a server of your own: the write scenario
creates elements in its demo tenant. Uncached renders ask for a new culture id on every
request: labels fall back to the tenant's default culture, so each one is a full render
of the same picture under a key the cache has never seen.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

API = "/demo/default/_api/rest"
PROCESSES = f"{API}/facets/processes/views"
PERCENTILES = ("50%", "90%", "99%")
#: Per-thread culture id ranges of the uncached scenario stay below 2**31 - 1.
CULTURE_RANGE = 100_000_000
MAX_THREADS = 10
WARM_UP_SECONDS = 3


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    what: str
    lua: str  # a wrk script: sets the request, wrk sends it again and again


def scenarios(diagram: str, seed: int) -> tuple[Scenario, ...]:
    render = f"{API}/diagram/{diagram}/render"
    body = json.dumps({"count": 1, "elements": [
        {"type": "task", "attributes": {"name": {"1033": "Load benchmark"}}}]})
    return (
        Scenario("cached-render", "GET the largest demo diagram, horizontal, 1033 (a cache hit)",
                 _get(f"{render}/1033/horizontal")),
        Scenario("uncached-render", "GET the same diagram under a new culture id each time (a miss)",
                 f"""
local threads = 0
function setup(thread)
  thread:set("first", {seed} + threads * {CULTURE_RANGE})
  threads = threads + 1
end
counter = 0
function request()
  counter = counter + 1
  return wrk.format("GET", "{render}/" .. string.format("%d", first + counter) .. "/horizontal")
end
"""),
        Scenario("list-100", "GET a page of 100 elements, default resources",
                 _get(f"{PROCESSES}/list/elements?$pageSize=100")),
        Scenario("list-20-attributes", "GET a page of 20 elements, attributes only",
                 _get(f"{PROCESSES}/list/elements?$pageSize=20&$resources=attributes")),
        Scenario("write", "POST one new task element",
                 f"""
wrk.method = "POST"
wrk.path = "{PROCESSES}/detail/elements/"
wrk.headers["Content-Type"] = "application/json"
wrk.body = {json.dumps(body)}
"""),
    )


def _get(path: str) -> str:
    return f'wrk.path = "{path}"\n'


@dataclass(frozen=True, slots=True)
class Measured:
    requests_per_second: float
    latency_ms: dict[str, float]
    failed: int
    requests: int


def run_wrk(url: str, token: str, scenario: Scenario, threads: int, connections: int,
            duration: int, script_dir: Path) -> Measured:
    script = script_dir / f"{scenario.name}.lua"
    script.write_text(scenario.lua, encoding="utf-8")
    result = subprocess.run(
        ["wrk", f"--threads={threads}", f"--connections={connections}", f"--duration={duration}s",
         "--timeout=30s", "--latency", f"--script={script}", "--header",
         f"Authorization: Bearer {token}", url],
        capture_output=True, text=True, timeout=duration + 60, check=True)
    return parse_wrk(result.stdout)


_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_wrk(output: str) -> Measured:
    """Requests/s, the latency percentiles in ms and the failed requests (non-2xx/3xx,
    socket errors) of wrk's ``--latency`` report."""
    rate = re.search(r"^Requests/sec:\s+([\d.]+)", output, re.MULTILINE)
    if rate is None:
        raise RuntimeError(f"wrk printed no request rate:\n{output}")
    latency = {}
    for percentile in PERCENTILES:
        found = re.search(rf"^\s+{re.escape(percentile)}\s+([\d.]+)(us|ms|s|m)\s*$", output, re.MULTILINE)
        if found is None:
            raise RuntimeError(f"wrk printed no {percentile} latency:\n{output}")
        latency[percentile] = float(found.group(1)) * _UNIT_MS[found.group(2)]
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    failed = (int(non_2xx.group(1)) if non_2xx else 0) + (
        sum(int(n) for n in errors.groups()) if errors else 0)
    done = re.search(r"^\s*(\d+) requests in ", output, re.MULTILINE)
    return Measured(float(rate.group(1)), latency, failed, int(done.group(1)) if done else 0)


def process_tree_cpu_seconds(root: int) -> float:
    """User and system CPU seconds of `root` and its descendants, from /proc (Linux)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        fields = text[text.rindex(")") + 2:].split()  # after the command, which may hold spaces
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier.extend(children)
    return sum(times.get(pid, 0.0) for pid in tree)


def largest_diagram(url: str, token: str) -> str:
    """The id of the demo diagram with the most shapes."""
    request = urllib.request.Request(f"{url}{PROCESSES}/diagram/elements?$resources=content&$pageSize=1000",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        elements = json.load(response)["elements"]
    if not elements:
        raise SystemExit("the server's demo/default tenant has no diagram to render")
    return str(max(elements, key=lambda element: (len(element["content"]), element["id"]))["id"])


@dataclass(frozen=True, slots=True)
class StartedServer:
    url: str  # http://127.0.0.1:PORT
    token: str  # the demo editor's
    pid: int
    database: str  # the --db it serves, for `elrepo token create --db`


@contextmanager
def started_server(workers: int, *options: str, database: str | None = None) -> Iterator[StartedServer]:
    """`elrepo serve` with `options` on a free port and `database` (default: a fresh SQLite
    file; another must hold no tenant yet, so that the demo is loaded)."""
    with tempfile.TemporaryDirectory(prefix="elrepo-load-") as directory:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        db = database or f"sqlite:///{Path(directory) / 'load.db'}"
        token_file = Path(directory) / "token"
        log = Path(directory) / "serve.log"
        with token_file.open("w") as stdout, log.open("w") as stderr:
            server = subprocess.Popen(
                [sys.executable, "-m", "repository.cli", "serve", "--port", str(port), "--workers",
                 str(workers), "--db", db, *options],
                stdout=stdout, stderr=stderr)
        try:
            token = _wait_until_serving(server, port, token_file, log)
            yield StartedServer(f"http://127.0.0.1:{port}", token, server.pid, db)
        finally:
            server.terminate()
            server.wait(timeout=30)


def _wait_until_serving(server: subprocess.Popen[bytes], port: int, token_file: Path, log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"elrepo serve stopped:\n{log.read_text()}")
        token = token_file.read_text().strip()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        except OSError:
            time.sleep(0.2)
            continue
        if token:
            return token
    raise SystemExit(f"elrepo serve did not start in a minute:\n{log.read_text()}")


def machine() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    model = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                 platform.processor())
    return (f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--url", help="base URL of a running elrepo serve (default: start one)")
    parser.add_argument("--token", help="a demo/default editor token of that server")
    parser.add_argument("--workers", type=int, default=2, help="workers of the server this starts")
    parser.add_argument("--duration", type=int, default=10, help="seconds per scenario")
    parser.add_argument("--connections", type=int, default=8, help="open connections")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--scenario", action="append", dest="chosen",
                        help="run only this scenario; repeatable (default: all)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        parser.error("needs wrk: apt-get install wrk")
    if (args.url is None) != (args.token is None):
        parser.error("--url and --token go together")
    if not (1 <= args.threads <= MAX_THREADS and args.connections >= args.threads
            and args.duration >= 1 and args.workers >= 1):
        parser.error(f"--threads must be 1 to {MAX_THREADS}, --connections at least --threads, "
                     "--duration and --workers at least 1")
    if args.url is not None:
        measure(args, args.url.rstrip("/"), args.token, "given", None)
    else:
        with started_server(args.workers) as started:
            measure(args, started.url, started.token,
                    f"started, --workers {args.workers}, SQLite, in-memory render cache", started.pid)


def measure(args: argparse.Namespace, url: str, token: str, server: str, pid: int | None) -> None:
    """Each chosen scenario through wrk; with the server's `pid`, its CPU per request too."""
    diagram = largest_diagram(url, token)
    chosen = scenarios(diagram, random.randrange(1_000_000, CULTURE_RANGE))
    unknown = set(args.chosen or ()) - {s.name for s in chosen}
    if unknown:
        raise SystemExit(f"unknown scenario(s) {', '.join(sorted(unknown))}; scenarios: "
                         f"{', '.join(s.name for s in chosen)}")
    print(f"{datetime.date.today()}, {machine()}")
    print(f"server {url} ({server}); wrk {args.threads} threads, {args.connections} connections, "
          f"{args.duration} s per scenario")
    print(f"{'scenario':<20} {'req/s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'failed':>7} "
          f"{'CPU ms':>7}  what")
    with tempfile.TemporaryDirectory(prefix="elrepo-wrk-") as scripts:
        # Untimed: every worker loads the engine and draws the cached picture once.
        run_wrk(url, token, chosen[0], args.threads, args.connections, WARM_UP_SECONDS, Path(scripts))
        for scenario in chosen:
            if args.chosen and scenario.name not in args.chosen:
                continue
            cpu_before = process_tree_cpu_seconds(pid) if pid is not None else 0.0
            result = run_wrk(url, token, scenario, args.threads, args.connections, args.duration,
                             Path(scripts))
            cpu = (f"{(process_tree_cpu_seconds(pid) - cpu_before) * 1000 / result.requests:.2f}"
                   if pid is not None and result.requests else "-")
            p50, p90, p99 = (result.latency_ms[p] for p in PERCENTILES)
            print(f"{scenario.name:<20} {result.requests_per_second:>9.1f} {p50:>8.1f} {p90:>8.1f} "
                  f"{p99:>8.1f} {result.failed:>7} {cpu:>7}  {scenario.what}", flush=True)


if __name__ == "__main__":
    main()
