"""Render benchmark: layout + SVG for generated flows and the shared corpus, timed in one
process (no start-up), side by side with Graphviz dot on the same graphs when ``dot`` is
installed. Run by hand; figures go to docs/performance.md.

    python -m benchmarks.run                    # sizes 50 200 1000 5000 and the corpus
    python -m benchmarks.run --sizes 1000 --no-corpus
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.generate import generate_flow
from renderer.api import render
from renderer.flow import flow_graph
from renderer.model import parse_diagram
from renderer.text import load_font

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def time_render(fixture: dict[str, Any], layout: str, repeats: int) -> float:
    """Best wall time in seconds of ``render`` over ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        render(fixture, layout)
        best = min(best, time.perf_counter() - started)
    return best


def dot_source(fixture: dict[str, Any], splines: str) -> str:
    """The same graph for dot: the same node sizes (72 px to the inch, as in the
    corpus baselines), left to right, node spacing 30, layer spacing 50."""
    graph, _ = flow_graph(parse_diagram(fixture), "1033", load_font(), "horizontal")
    lines = ["digraph G {", f"rankdir=LR; splines={splines}; nodesep=0.42; ranksep=0.69;",
             "node [shape=box, fixedsize=true, label=\"\"];"]
    ids = {node.id: f"n{i}" for i, node in enumerate(graph.nodes)}
    for node in graph.nodes:
        lines.append(f"{ids[node.id]} [width={node.width / 72:.3f}, height={node.height / 72:.3f}];")
    for edge in graph.edges:
        lines.append(f"{ids[edge.source]} -> {ids[edge.target]};")
    lines.append("}")
    return "\n".join(lines)


def time_dot(fixture: dict[str, Any], timeout: float) -> float | None:
    """Wall time of ``dot -Tsvg`` with orthogonal edges, or with its default splines
    where the orthogonal router fails (it does on some graphs), less dot's start-up."""
    for splines in ("ortho", "true"):
        elapsed = _time_dot_once(fixture, timeout, splines)
        if elapsed is not None:
            return elapsed
    return None


def _time_dot_once(fixture: dict[str, Any], timeout: float, splines: str) -> float | None:
    dot = shutil.which("dot")
    if dot is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".dot", delete=False) as handle:
        handle.write(dot_source(fixture, splines))
        path = handle.name
    empty = Path(path).with_suffix(".empty.dot")
    empty.write_text("digraph G {}")
    try:
        started = time.perf_counter()
        subprocess.run([dot, "-Tsvg", str(empty)], capture_output=True, check=True, timeout=timeout)
        startup = time.perf_counter() - started
        started = time.perf_counter()
        completed = subprocess.run([dot, "-Tsvg", path], capture_output=True, timeout=timeout)
        elapsed = time.perf_counter() - started
    except subprocess.TimeoutExpired:
        return float("inf")
    finally:
        Path(path).unlink()
        empty.unlink()
    return max(elapsed - startup, 0.0) if completed.returncode == 0 else None


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
    print(f"{'graph':58} {'shapes':>6} {'ours ms':>9} {'dot ms':>9} {'ratio':>7}")
    render(generate_flow(20), args.layout)  # warm caches (font, imports)
    for size in args.sizes:
        fixture = generate_flow(size)
        repeats = 5 if size <= 200 else (3 if size <= 1000 else 1)
        report(f"generated-{size}", size, time_render(fixture, args.layout, repeats),
               time_dot(fixture, args.dot_timeout))
    if args.no_corpus or not CORPUS.is_dir():
        return
    total_ours, total_dot = 0.0, 0.0
    for path in sorted(CORPUS.glob("*/fixtures/*.json")):
        fixture = json.loads(path.read_text(encoding="utf-8"))
        ours = time_render(fixture, args.layout, 3)
        dot = time_dot(fixture, args.dot_timeout)
        total_ours += ours
        total_dot += dot or 0.0
        if len(fixture["values"]) >= 50:
            report(f"{path.parent.parent.name}/{path.stem}", len(fixture["values"]), ours, dot)
    print(f"corpus total: ours {total_ours:.2f} s, dot {total_dot:.2f} s (111 diagrams)")


if __name__ == "__main__":
    main()
