"""Dense and random graphs: render time per layout, side by side with Graphviz dot on the
same graph when ``dot`` is installed. Run by hand; the scaling curve goes to
docs/performance.md.

    python -m benchmarks.dense                          # every case, flow layouts
    python -m benchmarks.dense --layouts all            # every layout key
    python -m benchmarks.dense --cases complete-50 fan-4998 --layouts horizontal detailed

Times are wall and CPU seconds of ``renderer.api.render`` (layout + SVG) in this
process, one run each after a warm-up. dot runs ``-Tsvg`` on the flow graph with the
same node sizes (``benchmarks.run.dot_source``) and its default splines (its orthogonal
router alone takes 40 s on a complete DAG of 30), cut off at ``--dot-timeout``; its time
is the CPU seconds of the process less those of an empty graph, and the ratio compares
CPU seconds, which other load on a shared machine does not inflate.
"""
from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from benchmarks.run import dot_cpu, dot_source
from checks.generate import chain_with_long_links, complete_dag, dag_fixture, fan, random_dag
from layouts.registry import LAYOUT_KEYS
from renderer.api import render

FLOW_LAYOUTS = ("horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane")

def _complete(size: int) -> dict[str, Any]:
    return dag_fixture(f"complete-{size}", complete_dag(size), lanes=3)


#: name → fixture factory; lanes, related elements and a hierarchy are added where the
#: other layouts need them (org units give swimlanes and ``detailed`` satellites).
CASES: dict[str, Callable[[], dict[str, Any]]] = {
    **{f"complete-{size}": partial(_complete, size) for size in (10, 20, 30, 50, 75, 100)},
    "random-200-p0.05": lambda: dag_fixture("random-200", random_dag(200, 0.05), lanes=4),
    "random-300-p0.2": lambda: dag_fixture("random-300", random_dag(300, 0.2), lanes=4),
    "random-1000-p0.01": lambda: dag_fixture("random-1000", random_dag(1000, 0.01), lanes=6),
    "random-5000-p0.0012": lambda: dag_fixture("random-5000", random_dag(5000, 0.0012), lanes=8),
    "fan-1000": lambda: dag_fixture("fan-1000", fan(1000), lanes=5),
    "fan-4998": lambda: dag_fixture("fan-4998", fan(4998), lanes=7),
    "feeder-5000": lambda: dag_fixture(  # the first shape feeds every shape of a chain, all join the last
        "feeder", [[], *(sorted({shape - 1, 0}) for shape in range(1, 4999)), list(range(4999))], lanes=4),
    "chain-5000-links-20000": lambda: dag_fixture("chain", chain_with_long_links(5000, 20000), lanes=8),
    "cyclic-5000-links-20000": lambda: dag_fixture(
        "cyclic", chain_with_long_links(5000, 20000, backward=0.3), lanes=12, related=3, hierarchy=True),
    "cyclic-200-links-15000": lambda: dag_fixture(
        "dense-cyclic", chain_with_long_links(200, 15000, backward=0.5), lanes=4, related=3, hierarchy=True),
    "lanes-2500-5000-links-20000": lambda: dag_fixture(
        "many-lanes", chain_with_long_links(5000, 20000, backward=0.1), lanes=2500, related=4, hierarchy=True),
}


def timed_render(fixture: dict[str, Any], layout: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``render``."""
    wall, cpu = time.perf_counter(), time.process_time()
    render(fixture, layout)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--layouts", nargs="*", default=list(FLOW_LAYOUTS),
                        help="layout keys, or 'all' for every key")
    parser.add_argument("--dot-timeout", type=float, default=120)
    parser.add_argument("--no-dot", action="store_true")
    args = parser.parse_args()
    layouts = list(LAYOUT_KEYS) if args.layouts == ["all"] else args.layouts
    print(f"# {time.strftime('%Y-%m-%d')}, {platform.platform()}, Python {platform.python_version()}")
    print(f"{'graph':28} {'shapes':>6} {'links':>6} {'layout':18} {'wall s':>7} {'cpu s':>7} "
          f"{'dot cpu':>8} {'ours/dot':>8}")
    render(dag_fixture("warm-up", complete_dag(5)), "horizontal")
    startup = 0.0 if args.no_dot else dot_cpu("digraph G {}", args.dot_timeout) or 0.0
    for name in args.cases:
        fixture = CASES[name]()
        shapes = len(fixture["values"])
        links = sum(len(item["shapeInfo"]["predecessors"]) for item in fixture["values"])
        dot = None if args.no_dot else dot_cpu(dot_source(fixture, "true"), args.dot_timeout)
        if dot is not None and dot != float("inf"):
            dot = max(dot - startup, 0.001)
        dot_text = "-" if dot is None else (f">{args.dot_timeout:.0f}" if dot == float("inf") else f"{dot:8.2f}")
        for layout in layouts:
            wall, cpu = timed_render(fixture, layout)
            flow = layout in FLOW_LAYOUTS
            ratio = f"{cpu / dot:8.2f}" if flow and dot and dot != float("inf") else "-"
            print(f"{name:28} {shapes:6} {links:6} {layout:18} {wall:7.2f} {cpu:7.2f} "
                  f"{dot_text if flow else '-':>8} {ratio:>8}", flush=True)


if __name__ == "__main__":
    main()
