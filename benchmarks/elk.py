"""ELK Layered (elkjs in node) timed on the graphs of the render benchmark (``benchmarks.run``)
and drawing the graphs of the stability benchmark (``benchmarks.stability``).

elkjs (``ELKJS_PACKAGE``, the version of the corpus baselines) is installed on first use
with npm into the folder of bpmn.io's tools (``ELREPO_NODE_MODULES``, else
``~/.cache/elrepo/npm``; ``checks.bpmn_io.installed_package``). One node process lays
out graph after graph, so node's start-up and elkjs's loading are not counted: for each
graph one warm-up call (the JIT compiles ELK's code paths for its size), then the least
CPU time (``process.cpuUsage()``, the whole process, as ours is timed) of one
``new ELK().layout(graph)`` over the calls asked for, each on a fresh copy of the graph,
and the drawing of the last call (``ElkTimer.lay_out``, which may leave out the warm-up).

Options (``layout_options``), those of ../shared/corpus/BASELINES.md (elkjs 0.12.1,
layered, orthogonal, node spacing 30, layer spacing 50), the rest ELK's defaults:
``elk.algorithm: layered``, ``elk.direction: RIGHT`` (``DOWN`` for our vertical layouts),
``elk.edgeRouting: ORTHOGONAL``, ``elk.spacing.nodeNode: 30``,
``elk.layered.spacing.nodeNodeBetweenLayers: 50``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from checks.bpmn_io import NodeLines, NodeTimeout
from layouts.geometry import Box, EdgeRoute, Layout, NodeBox

#: the version ../shared/corpus/BASELINES.md's ELK figures were taken with
ELKJS_PACKAGE = "elkjs@0.12.1"

# Answers each request, a JSON line {"graph": ELK JSON graph, "repeats": n, "warmUp": bool},
# with a JSON
# line {"ms": least CPU ms of one layout, "nodes": [[id, x, y, width, height], ...],
# "edges": [[source, target, [[x, y], ...]], ...]} (the last call's drawing, an edge's
# sections as one polyline) or {"error": ELK's message}.
ELK_SCRIPT = """
import ELK from 'elkjs';
import { createInterface } from 'node:readline';
const elk = new ELK();
async function timedLayout(graph) {
  const copy = structuredClone(graph);  // ELK writes its positions into the graph it gets
  const started = process.cpuUsage();
  const drawn = await elk.layout(copy);
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, drawn };
}
function drawing(graph) {
  const points = (sections) => (sections ?? []).flatMap(
    (section) => [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(({ x, y }) => [x, y]));
  return {
    width: graph.width, height: graph.height,
    nodes: graph.children.map(({ id, x, y, width, height }) => [id, x, y, width, height]),
    edges: graph.edges.map(({ sources, targets, sections }) => [sources[0], targets[0], points(sections)]),
  };
}
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const { graph, repeats, warmUp } = JSON.parse(line);
  let answer;
  try {
    let drawn;
    if (warmUp) ({ drawn } = await timedLayout(graph));
    let best = Infinity;
    for (let call = 0; call < repeats; call++) {
      const timed = await timedLayout(graph);
      best = Math.min(best, timed.ms);
      drawn = timed.drawn;
    }
    answer = { ms: best, ...drawing(drawn) };
  } catch (error) {
    answer = { error: String(error?.message ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\\n');
}
"""


class ElkFailed(Exception):
    """ELK, or the node process running it, failed on a graph; the message says how."""


class ElkTimedOut(ElkFailed):
    """ELK gave no drawing within the timeout (its node process was stopped)."""


@dataclass(frozen=True)
class ElkDrawing:
    """ELK's drawing of a graph (node ids and edge ends are the graph's, routes ELK's
    orthogonal sections) and the least CPU seconds of one layout call."""

    layout: Layout
    seconds: float


def layout_options(vertical: bool) -> dict[str, str]:
    """ELK's layout options for our horizontal (or ``vertical``) layouts."""
    return {"elk.algorithm": "layered", "elk.direction": "DOWN" if vertical else "RIGHT",
            "elk.edgeRouting": "ORTHOGONAL", "elk.spacing.nodeNode": "30",
            "elk.layered.spacing.nodeNodeBetweenLayers": "50"}


class ElkTimer:
    """Runs and times ELK layouts in one node process, started on first use and again
    after a graph that timed out or failed (which stops it)."""

    def __init__(self, folder: Path, timeout: float) -> None:
        """``folder`` holds ``node_modules/elkjs``; ``timeout`` is the wall seconds a graph
        gets for its warm-up and timed calls together."""
        self._folder = folder
        self.timeout = timeout
        self._node: NodeLines | None = None

    def time(self, graph: dict[str, Any], repeats: int) -> float:
        """Least CPU seconds of one layout of ``graph`` (ELK JSON) over ``repeats`` calls
        after a warm-up call; infinity past the timeout. Raises ElkFailed with ELK's error."""
        try:
            return self.lay_out(graph, repeats).seconds
        except ElkTimedOut:
            return float("inf")

    def lay_out(self, graph: dict[str, Any], repeats: int = 1, warm_up: bool = True) -> ElkDrawing:
        """ELK's drawing of ``graph`` (ELK JSON; nodes and edges at its top level), timed
        as ``time`` does, or without the warm-up call (where graph after graph of one size
        keeps the JIT warm). Raises ElkTimedOut past the timeout, ElkFailed with ELK's error."""
        if self._node is None:
            self._node = NodeLines(self._folder, ELK_SCRIPT)
        try:
            answer: dict[str, Any] = self._node.ask({"graph": graph, "repeats": max(repeats, 1), "warmUp": warm_up},
                                                    self.timeout)
        except NodeTimeout as error:
            self.close()
            raise ElkTimedOut(str(error)) from None
        except RuntimeError as error:  # node itself failed, e.g. out of memory
            self.close()
            raise ElkFailed(str(error)) from None
        if "error" in answer:
            raise ElkFailed(answer["error"])
        nodes = tuple(NodeBox(name, Box(x, y, width, height)) for name, x, y, width, height in answer["nodes"])
        edges = tuple(EdgeRoute(source, target, tuple((x, y) for x, y in points))
                      for source, target, points in answer["edges"])
        return ElkDrawing(Layout(answer["width"], answer["height"], nodes, edges), float(answer["ms"]) / 1000)

    def close(self) -> None:
        if self._node is not None:
            self._node.close()
            self._node = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
