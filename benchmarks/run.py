"""Render benchmark: layout + SVG for generated flows and the shared corpus, timed in one
process (no start-up), side by side with Graphviz dot when ``dot`` is installed and ELK
Layered (elkjs in node, ``benchmarks.elk``) when node is, on the same graphs (``peer_graph``:
our flow graph's shapes with their measured sizes, and its edges). Run by hand; figures go
to docs/performance.md.

    python -m benchmarks.run                    # sizes 50 200 1000 5000 and the corpus
    python -m benchmarks.run --sizes 1000 --no-corpus

Times are CPU milliseconds (ours: the process's, layout and SVG; dot: its child process's
``dot -Tsvg``, less dot's start-up on an empty graph; ELK: the node process's for one
layout call, measured inside it), which a machine shared with other work disturbs far less
than wall time; ``/dot`` and ``/ELK`` are ours divided by theirs. Also prints the corpus
totals and medians per diagram and the start-up: a whole ``elrepo render`` process on a
20-shape diagram against a whole ``dot -Tsvg`` process on the same graph (wall and CPU
seconds, best of 10).
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.elk import ELKJS_PACKAGE, ElkFailed, ElkTimer, layout_options
from checks.bpmn_io import NodeUnavailable, installed_package
from checks.generate import generate_flow
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


@dataclass(frozen=True)
class PeerGraph:
    """What dot and ELK lay out: nodes ``n0``, ``n1``, ... with their sizes in px, edges
    between node indices, and whether the layout runs top to bottom; ``shapes`` are the
    shape ids the nodes stand for, in the same order."""
    sizes: tuple[tuple[float, float], ...]
    edges: tuple[tuple[int, int], ...]
    vertical: bool
    shapes: tuple[str, ...]


def peer_graph(fixture: dict[str, Any], layout: str) -> PeerGraph:
    """Our flow graph of ``fixture`` for the peers: its shapes in order with the sizes we
    measure for them, its edges, top to bottom for our vertical layouts."""
    cultures = Cultures(DEFAULT_CULTURE, DEFAULT_CULTURE)
    graph, _ = flow_graph(parse_diagram(fixture), cultures, load_font(), layout)
    index = {node.id: i for i, node in enumerate(graph.nodes)}
    return PeerGraph(tuple((node.width, node.height) for node in graph.nodes),
                     tuple((index[edge.source], index[edge.target]) for edge in graph.edges),
                     layout.startswith("vertical"), tuple(node.id for node in graph.nodes))


def dot_source(fixture: dict[str, Any], splines: str, layout: str = "horizontal") -> str:
    """``dot_graph`` of ``fixture``'s ``peer_graph`` (for ``benchmarks.dense``)."""
    return dot_graph(peer_graph(fixture, layout), splines)


def dot_graph(graph: PeerGraph, splines: str) -> str:
    """``graph`` for dot: sizes at 72 px to the inch (as in the corpus baselines), node
    spacing 30, layer spacing 50."""
    lines = ["digraph G {", f"rankdir={'TB' if graph.vertical else 'LR'}; splines={splines}; "
             "nodesep=0.42; ranksep=0.69;", "node [shape=box, fixedsize=true, label=\"\"];"]
    lines += [f"n{i} [width={width / 72:.3f}, height={height / 72:.3f}];" for i, (width, height) in
              enumerate(graph.sizes)]
    lines += [f"n{source} -> n{target};" for source, target in graph.edges]
    lines.append("}")
    return "\n".join(lines)


def elk_graph(graph: PeerGraph) -> dict[str, Any]:
    """``graph`` as ELK JSON, with ``benchmarks.elk``'s layout options."""
    return {"id": "root", "layoutOptions": layout_options(graph.vertical),
            "children": [{"id": f"n{i}", "width": width, "height": height}
                         for i, (width, height) in enumerate(graph.sizes)],
            "edges": [{"id": f"e{i}", "sources": [f"n{source}"], "targets": [f"n{target}"]}
                      for i, (source, target) in enumerate(graph.edges)]}


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


@functools.cache
def dot_startup(timeout: float) -> float | None:
    """dot's median CPU seconds for an empty graph, of eleven runs: its start-up, taken
    once (measured per graph, its spread of 3 ms exceeded a small graph's work)."""
    runs = [dot_cpu("digraph G {}", timeout) for _ in range(11)]
    return None if None in runs else statistics.median(run for run in runs if run is not None)


def time_dot(graph: PeerGraph, timeout: float) -> float | None:
    """CPU seconds of ``dot -Tsvg`` with orthogonal edges, or with its default splines
    where the orthogonal router fails (it does on some graphs), less dot's start-up."""
    startup = dot_startup(timeout)
    if startup is None:
        return None
    for splines in ("ortho", "true"):
        elapsed = dot_cpu(dot_graph(graph, splines), timeout)
        if elapsed is not None:
            return max(elapsed - startup, 0.0)
    return None


def time_process(command: list[str], stdin: str | None = None, repeats: int = 10,
                 env: dict[str, str] | None = None) -> tuple[float, float]:
    """Least wall seconds and least CPU seconds of ``command`` as a new process."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, input=stdin, capture_output=True, text=True, check=True, env=env)
        best_wall = min(best_wall, time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_cpu = min(best_cpu, after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
    return best_wall, best_cpu


def report_startup(layout: str) -> None:
    """``elrepo render`` of the start-up diagram as a new process (what a script pays on
    every call): rendering in that process, and served by a warm resident renderer (its
    CPU is the client's alone; the server's child adds about as much); and ``dot -Tsvg``
    on the same graph."""
    cli = [sys.executable, "-m", "repository.cli", "render", "--layout", layout, str(STARTUP_FIXTURE)]
    wall, cpu = time_process(cli, env={**os.environ, "ELREPO_RESIDENT": "0"})
    line = (f"start-up, elrepo render of {STARTUP_FIXTURE.stem} (new process): in process "
            f"{wall:.3f} s wall, {cpu:.3f} s CPU")
    with tempfile.TemporaryDirectory(prefix="elrepo-bench-") as runtime:
        # A socket directory of its own: removing it stops the server (docs/cli.md).
        resident = {**os.environ, "ELREPO_RESIDENT": "1", "ELREPO_RUNTIME_DIR": runtime}
        os.chmod(runtime, 0o700)
        time_process(cli, repeats=1, env=resident)  # renders here and starts the server
        deadline = time.monotonic() + 60
        while not any(name.endswith(".sock") for name in os.listdir(runtime)):
            if time.monotonic() > deadline:
                raise SystemExit("the resident renderer did not start within a minute")
            time.sleep(0.2)
        wall, cpu = time_process(cli, env=resident)
    line += f"; resident renderer {wall:.3f} s wall, {cpu:.3f} s client CPU"
    dot = shutil.which("dot")
    if dot is not None:
        fixture = json.loads(STARTUP_FIXTURE.read_text(encoding="utf-8"))
        dot_wall, dot_cpu_seconds = time_process([dot, "-Tsvg"], dot_source(fixture, "ortho", layout))
        line += f"; dot -Tsvg: {dot_wall:.3f} s wall, {dot_cpu_seconds:.3f} s CPU"
    print(line, flush=True)


def elk_timer(timeout: float) -> ElkTimer | None:
    """An ELK timer with elkjs installed on first use; None, having said why, without it."""
    try:
        folder = installed_package(ELKJS_PACKAGE)
    except NodeUnavailable as reason:
        print(f"# ELK not measured: {reason}", flush=True)
        return None
    return ElkTimer(folder, timeout)


def time_elk(timer: ElkTimer | None, graph: PeerGraph, repeats: int, name: str) -> float | None:
    """``timer``'s CPU seconds for ``graph``; None without a timer or when ELK fails,
    which is said on a line of its own."""
    if timer is None:
        return None
    try:
        return timer.time(elk_graph(graph), repeats)
    except ElkFailed as error:
        print(f"# ELK failed on {name}: {error}", flush=True)
        return None


def peer_columns(ours: float, peer: float | None) -> str:
    """A peer's CPU ms and ours divided by it: "-" when not measured, "timeout" past its time."""
    if peer is None:
        return f"{'-':>9} {'-':>7}"
    if peer == float("inf"):
        return f"{'timeout':>9} {'-':>7}"
    return f"{peer * 1000:9.0f} {ratio(ours, peer):>7}"


def report(name: str, shapes: int, ours: float, dot: float | None, elk: float | None) -> None:
    print(f"{name:58} {shapes:6} {ours * 1000:9.0f} {peer_columns(ours, dot)} {peer_columns(ours, elk)}",
          flush=True)


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}" if theirs else "-"


def corpus_summary(peer_name: str, ours: Sequence[float], peer: Sequence[float | None]) -> str:
    """A peer's corpus total and median, and ours divided by them on the same diagrams
    (those the peer was measured on; how many were not is said)."""
    pairs = [(our, their) for our, their in zip(ours, peer, strict=True) if their is not None and their != float("inf")]
    if not pairs:
        return f"{peer_name} -"
    ours_measured, theirs = [our for our, _ in pairs], [their for _, their in pairs]
    text = (f"{peer_name} total {sum(theirs):.2f} s (/{peer_name} {ratio(sum(ours_measured), sum(theirs))}), "
            f"median {statistics.median(theirs) * 1000:.1f} ms "
            f"(/{peer_name} {ratio(statistics.median(ours_measured), statistics.median(theirs))})")
    if len(pairs) < len(ours):
        text += f", {len(ours) - len(pairs)} diagrams not measured"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 200, 1000, 5000])
    parser.add_argument("--layout", default="horizontal")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--dot-timeout", type=float, default=300)
    parser.add_argument("--elk-timeout", type=float, default=300,
                        help="wall seconds for ELK's warm-up and timed calls on one graph")
    args = parser.parse_args()
    print(f"# {platform.platform()}, {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    if shutil.which("dot") is None:
        print("# dot not measured: dot not found on PATH")
    elk = elk_timer(args.elk_timeout)
    try:
        run(args, elk)
    finally:
        if elk is not None:
            elk.close()


def run(args: argparse.Namespace, elk: ElkTimer | None) -> None:
    print(f"{'graph (CPU ms)':58} {'shapes':>6} {'ours ms':>9} {'dot ms':>9} {'/dot':>7} {'ELK ms':>9} {'/ELK':>7}")
    report_startup(args.layout)
    render(generate_flow(20), args.layout)  # warm caches (font, imports)
    for size in args.sizes:
        fixture = generate_flow(size)
        repeats = 5 if size <= 200 else (3 if size <= 1000 else 1)
        graph = peer_graph(fixture, args.layout)
        name = f"generated-{size}"
        report(name, size, time_render(fixture, args.layout, repeats), time_dot(graph, args.dot_timeout),
               time_elk(elk, graph, repeats, name))
    if args.no_corpus or not CORPUS.is_dir():
        return
    ours_times: list[float] = []
    dot_times: list[float | None] = []
    elk_times: list[float | None] = []
    paths = sorted(CORPUS.glob("*/fixtures/*.json"))
    for path in paths:
        fixture = json.loads(path.read_text(encoding="utf-8"))
        graph = peer_graph(fixture, args.layout)
        name = f"{path.parent.parent.name}/{path.stem}"
        ours_times.append(time_render(fixture, args.layout, 3))
        dot_times.append(time_dot(graph, args.dot_timeout))
        elk_times.append(time_elk(elk, graph, 3, name))
        if len(fixture["values"]) >= 50:
            report(name, len(fixture["values"]), ours_times[-1], dot_times[-1], elk_times[-1])
    print(f"corpus ({len(paths)} diagrams): ours total {sum(ours_times):.2f} s, "
          f"median {statistics.median(ours_times) * 1000:.1f} ms; {corpus_summary('dot', ours_times, dot_times)}; "
          f"{corpus_summary('ELK', ours_times, elk_times)}")


if __name__ == "__main__":
    main()
