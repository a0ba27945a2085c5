"""ELK Layered (elkjs in node) timed on the graphs of the render benchmark (``benchmarks.run``).

elkjs (``ELKJS_PACKAGE``, the version of the corpus baselines) is installed on first use
with npm into the folder of bpmn.io's tools (``ELREPO_NODE_MODULES``, else
``~/.cache/elrepo/npm``; ``checks.bpmn_io.installed_package``). One node process lays
out graph after graph, so node's start-up and elkjs's loading are not counted: for each
graph one warm-up call (the JIT compiles ELK's code paths for its size), then the least
CPU time (``process.cpuUsage()``, the whole process, as ours is timed) of one
``new ELK().layout(graph)`` over the calls asked for, each on a fresh copy of the graph.

Options (``layout_options``), those of ../shared/corpus/BASELINES.md (elkjs 0.12.1,
layered, orthogonal, node spacing 30, layer spacing 50), the rest ELK's defaults:
``elk.algorithm: layered``, ``elk.direction: RIGHT`` (``DOWN`` for our vertical layouts),
``elk.edgeRouting: ORTHOGONAL``, ``elk.spacing.nodeNode: 30``,
``elk.layered.spacing.nodeNodeBetweenLayers: 50``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from checks.bpmn_io import NodeLines, NodeTimeout

#: the version ../shared/corpus/BASELINES.md's ELK figures were taken with
ELKJS_PACKAGE = "elkjs@0.12.1"

# Answers each request, a JSON line {"graph": ELK JSON graph, "repeats": n}, with a JSON
# line {"ms": least CPU ms of one layout} or {"error": ELK's message}.
ELK_SCRIPT = """
import ELK from 'elkjs';
import { createInterface } from 'node:readline';
const elk = new ELK();
async function layoutMs(graph) {
  const copy = structuredClone(graph);  // ELK writes its positions into the graph it gets
  const started = process.cpuUsage();
  await elk.layout(copy);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const { graph, repeats } = JSON.parse(line);
  let answer;
  try {
    await layoutMs(graph);
    let best = Infinity;
    for (let call = 0; call < repeats; call++) best = Math.min(best, await layoutMs(graph));
    answer = { ms: best };
  } catch (error) {
    answer = { error: String(error?.message ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\\n');
}
"""


class ElkFailed(Exception):
    """ELK, or the node process running it, failed on a graph; the message says how."""


def layout_options(vertical: bool) -> dict[str, str]:
    """ELK's layout options for our horizontal (or ``vertical``) layouts."""
    return {"elk.algorithm": "layered", "elk.direction": "DOWN" if vertical else "RIGHT",
            "elk.edgeRouting": "ORTHOGONAL", "elk.spacing.nodeNode": "30",
            "elk.layered.spacing.nodeNodeBetweenLayers": "50"}


class ElkTimer:
    """Times ELK layouts in one node process, started on first use and again after a
    graph that timed out or failed (which stops it)."""

    def __init__(self, folder: Path, timeout: float) -> None:
        """``folder`` holds ``node_modules/elkjs``; ``timeout`` is the wall seconds a graph
        gets for its warm-up and timed calls together."""
        self._folder = folder
        self.timeout = timeout
        self._node: NodeLines | None = None

    def time(self, graph: dict[str, Any], repeats: int) -> float:
        """Least CPU seconds of one layout of ``graph`` (ELK JSON) over ``repeats`` calls
        after a warm-up call; infinity past the timeout. Raises ElkFailed with ELK's error."""
        if self._node is None:
            self._node = NodeLines(self._folder, ELK_SCRIPT)
        try:
            answer: dict[str, Any] = self._node.ask({"graph": graph, "repeats": repeats}, self.timeout)
        except NodeTimeout:
            self.close()
            return float("inf")
        except RuntimeError as error:  # node itself failed, e.g. out of memory
            self.close()
            raise ElkFailed(str(error)) from None
        if "error" in answer:
            raise ElkFailed(answer["error"])
        return float(answer["ms"]) / 1000

    def close(self) -> None:
        if self._node is not None:
            self._node.close()
            self._node = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
