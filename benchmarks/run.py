"""Render benchmark: layout + SVG for generated flows and the shared corpus, timed in one
process (no start-up), side by side with Graphviz dot on the same graphs when ``dot`` is
installed. Run by hand; figures go to docs/performance.md.

    python -m benchmarks.run                    # sizes 50 200 1000 5000 and the corpus
    python -m benchmarks.run --sizes 1000 --no-corpus

Times are CPU milliseconds (ours: the process's; dot: its child process's, less dot's
start-up on an empty graph), which a machine shared with other work disturbs far less
than wall time. Also prints the corpus median per diagram and the start-up: a whole
``elrepo render`` process on a 20-shape diagram against a whole ``dot -Tsvg`` process on
the same graph (wall and CPU seconds, best of 10).
"""
from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.generate import generate_flow
from renderer.api import render
from renderer.culture import DEFAULT_CULTURE, Cultures
from renderer.flow import flow_graph
from renderer.model import parse_diagram
from renderer.text import load_font

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
#: The start-up's diagram: 20 shapes in three lanes, shipped with the tests.
STARTUP_FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "corpus" / "LoanApp_simplified.json"


def time_render(fixture: dict[str, Any], layout: str, repeats: int) -> float:
    """Least CPU seconds of ``render`` over ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        render(fixture, layout)
        best = min(best, time.process_time() - started)
    return best


def dot_source(fixture: dict[str, Any], splines: str) -> str:
    """The same graph for dot: the same node sizes (72 px to the inch, as in the
    corpus baselines), left to right, node spacing 30, layer spacing 50."""
    cultures = Cultures(DEFAULT_CULTURE, DEFAULT_CULTURE)
    graph, _ = flow_graph(parse_diagram(fixture), cultures, load_font(), "horizontal")
    lines = ["digraph G {", f"rankdir=LR; splines={splines}; nodesep=0.42; ranksep=0.69;",
             "node [shape=box, fixedsize=true, label=\"\"];"]
    ids = {node.id: f"n{i}" for i, node in enumerate(graph.nodes)}
    for node in graph.nodes:
        lines.append(f"{ids[node.id]} [width={node.width / 72:.3f}, height={node.height / 72:.3f}];")
    for edge in graph.edges:
        lines.append(f"{ids[edge.source]} -> {ids[edge.target]};")
    lines.append("}")
    return "\n".join(lines)


def dot_cpu(source: str, timeout: float) -> float | None:
    """CPU seconds of ``dot -Tsvg`` on ``source``; None without dot or when it fails,
    infinity past ``timeout`` wall seconds."""
    dot = shutil.which("dot")
    if dot is None:
        return None
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        completed = subprocess.run([dot, "-Tsvg"], input=source, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        return None
    return after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime


def time_dot(fixture: dict[str, Any], timeout: float) -> float | None:
    """CPU seconds of ``dot -Tsvg`` with orthogonal edges, or with its default splines
    where the orthogonal router fails (it does on some graphs), less dot's start-up."""
    startup = dot_cpu("digraph G {}", timeout)
    if startup is None:
        return None
    for splines in ("ortho", "true"):
        elapsed = dot_cpu(dot_source(fixture, splines), timeout)
        if elapsed is not None:
            return max(elapsed - startup, 0.0)
    return None


def time_process(command: list[str], stdin: str | None = None, repeats: int = 10) -> tuple[float, float]:
    """Least wall seconds and least CPU seconds of ``command`` as a new process."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, input=stdin, capture_output=True, text=True, check=True)
        best_wall = min(best_wall, time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_cpu = min(best_cpu, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
    return best_wall, best_cpu


def report_startup(layout: str) -> None:
    """``elrepo render`` of the start-up diagram as a new process (what a script pays on
    every call), and ``dot -Tsvg`` on the same graph."""
    cli = [sys.executable, "-m", "repository.cli", "render", "--layout", layout, str(STARTUP_FIXTURE)]
    wall, cpu = time_process(cli)
    line = f"start-up, elrepo render of {STARTUP_FIXTURE.stem} (new process): {wall:.3f} s wall, {cpu:.3f} s CPU"
    dot = shutil.which("dot")
    if dot is not None:
        fixture = json.loads(STARTUP_FIXTURE.read_text(encoding="utf-8"))
        dot_wall, dot_cpu_seconds = time_process([dot, "-Tsvg"], dot_source(fixture, "ortho"))
        line += f"; dot -Tsvg: {dot_wall:.3f} s wall, {dot_cpu_seconds:.3f} s CPU"
    print(line, flush=True)


def report(name: str, shapes: int, ours: float, dot: float | None) -> None:
    dot_text = "-" if dot is None else ("timeout" if dot == float("inf") else f"{dot * 1000:9.0f}")
    ratio = "-" if not dot or dot == float("inf") else f"{ours / dot:6.2f}"
    print(f"{name:58} {shapes:6} {ours * 1000:9.0f} {dot_text:>9} {ratio:>7}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 200, 1000, 5000])
    parser.add_argument("--layout", default="horizontal")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--dot-timeout", type=float, default=300)
    args = parser.parse_args()
    print(f"# {platform.platform()}, {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{'graph (CPU ms)':58} {'shapes':>6} {'ours ms':>9} {'dot ms':>9} {'ratio':>7}")
    report_startup(args.layout)
    render(generate_flow(20), args.layout)  # warm caches (font, imports)
    for size in args.sizes:
        fixture = generate_flow(size)
        repeats = 5 if size <= 200 else (3 if size <= 1000 else 1)
        report(f"generated-{size}", size, time_render(fixture, args.layout, repeats),
               time_dot(fixture, args.dot_timeout))
    if args.no_corpus or not CORPUS.is_dir():
        return
    ours_times: list[float] = []
    dot_times: list[float] = []
    paths = sorted(CORPUS.glob("*/fixtures/*.json"))
    for path in paths:
        fixture = json.loads(path.read_text(encoding="utf-8"))
        ours = time_render(fixture, args.layout, 3)
        dot = time_dot(fixture, args.dot_timeout)
        ours_times.append(ours)
        dot_times.append(dot or 0.0)
        if len(fixture["values"]) >= 50:
            report(f"{path.parent.parent.name}/{path.stem}", len(fixture["values"]), ours, dot)
    print(f"corpus total: ours {sum(ours_times):.2f} s, dot {sum(dot_times):.2f} s ({len(paths)} diagrams); "
          f"median: ours {statistics.median(ours_times) * 1000:.1f} ms, "
          f"dot {statistics.median(dot_times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
