"""Stability of the drawing under single edits (issue 22, item 2).

For every corpus diagram and generated models of 50, 200 and 1,000 shapes, each of five
edits is applied once where the model allows it, the edited diagram is drawn, and the
drawing is compared with the one before the edit (``layouts/stability.py``) on the shapes
the edit left unchanged (a task moved to another lane or renamed is not one, nor a shape
the edit put in another lane), twice: a
fresh layout, and the layout sketched from the drawing before (``LayoutOptions.sketch``,
issue 22's stable layout). Reported: stable edits, the share of unchanged shapes that
leave their row, the orthogonal order kept, the crossings the sketched layout has more
than the fresh one, and the CPU time of the sketched layout over the fresh one's.

    python -m benchmarks.stability [--layouts horizontal horizontalSwimlane] [--sizes 50 200 1000]
                                   [--seed N] [--sets corpus generated] [--peer elk elk-semi] [--worst N]

``--peer elk`` draws the same edits with ELK Layered (elkjs in node, ``benchmarks.elk``;
the graph of ``benchmarks.run.peer_graph``: our shapes with our sizes, our flows), fresh
with ``considerModelOrder`` (nodes and edges in our shape order, a new shape right after
its first predecessor, where the edit put it in the flow) and interactive (cycle breaking,
layering and crossing minimization from the positions given: each shape's centre in ELK's
drawing before the edit, a new shape's between its neighbours'), each against ELK's
model-order drawing before the edit; ``elk-semi`` the same with semi-interactive crossing
minimization (the positions' order, long edges' bends still swept). ELK has no lanes: it
draws only the keys without them. ``--worst N`` lists the N edits whose sketched (ELK:
interactive) drawing keeps the least order.

Edits (``EDITS``): ``insert`` a task on a flow, ``delete`` a task (its predecessors
take its place), ``branch`` a new task from a gateway to the gateway's join, ``lane`` a
task moved to another org unit (a new one if the model has none), ``rename`` a task to a
much longer name. Which flow, task or gateway is drawn from ``--seed``.
"""
from __future__ import annotations

import argparse
import copy
import json
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import mean
from typing import Any, Protocol

from benchmarks.elk import ElkDrawing, ElkFailed, ElkTimer
from benchmarks.run import PeerGraph, elk_graph, elk_timer, peer_graph
from checks.generate import generate_flow
from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL, Box, Layout
from layouts.readability import crossings
from layouts.sketch import Sketch
from layouts.stability import Stability
from renderer.api import lay_out
from renderer.culture import Cultures
from renderer.model import parse_diagram
from renderer.text import load_font

Fixture = dict[str, Any]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
LONGER = " and then a much longer description of what exactly happens in this step"
GATEWAYS = ("ruleXor", "ruleAnd", "ruleOr")
WORK = ("task", "subProcess")


def _values(fixture: Fixture) -> list[dict[str, Any]]:
    values: list[dict[str, Any]] = fixture["values"]
    return values


def _predecessors(item: dict[str, Any]) -> list[int]:
    preceding: list[int] = item["shapeInfo"].setdefault("predecessors", [])
    return preceding


def _successors(fixture: Fixture) -> dict[int, list[int]]:
    following: dict[int, list[int]] = {}
    for item in _values(fixture):
        for source in _predecessors(item):
            following.setdefault(source, []).append(item["shapeInfo"]["index"])
    return following


def _new_task(fixture: Fixture, predecessors: list[int]) -> int:
    index = len(_values(fixture))
    _values(fixture).append({"shapeInfo": {"index": index, "predecessors": predecessors, "id": "new-task"},
                             "element": {"type": "task", "attributes": {"name": {"1033": "Check the new rule"}}}})
    return index


def _tasks(fixture: Fixture) -> list[dict[str, Any]]:
    return [item for item in _values(fixture) if item["element"].get("type") in WORK]


def insert(fixture: Fixture, rng: random.Random) -> bool:
    flows = [(source, item) for item in _values(fixture) for source in _predecessors(item)]
    if not flows:
        return False
    source, target = rng.choice(flows)
    task = _new_task(fixture, [source])
    preceding = _predecessors(target)
    preceding[preceding.index(source)] = task
    return True


def delete(fixture: Fixture, rng: random.Random) -> bool:
    tasks = _tasks(fixture)
    if not tasks:
        return False
    gone = rng.choice(tasks)
    index = gone["shapeInfo"]["index"]
    _values(fixture).remove(gone)
    for item in _values(fixture):
        preceding = _predecessors(item)
        if index in preceding:
            at = preceding.index(index)
            own = item["shapeInfo"]["index"]
            preceding[at:at + 1] = [p for p in _predecessors(gone) if p not in preceding and p != own]
    for item in _values(fixture):  # indices stay 0..n-1; the shapes keep their ids
        info = item["shapeInfo"]
        info["index"] -= info["index"] > index
        info["predecessors"] = [p - (p > index) for p in _predecessors(item)]
    return True


def branch(fixture: Fixture, rng: random.Random) -> bool:
    following = _successors(fixture)
    splits = [item["shapeInfo"]["index"] for item in _values(fixture)
              if item["element"].get("type") in GATEWAYS and len(following.get(item["shapeInfo"]["index"], ())) > 1]
    if not splits:
        return False
    split = rng.choice(splits)
    join = _first_common_descendant(following, following[split])
    task = _new_task(fixture, [split])
    if join is not None:
        _predecessors(next(item for item in _values(fixture) if item["shapeInfo"]["index"] == join)).append(task)
    return True


def _first_common_descendant(following: dict[int, list[int]], starts: list[int]) -> int | None:
    """The nearest shape every start reaches (breadth first from each)."""
    reached: list[dict[int, int]] = []
    for start in starts:
        distance = {start: 0}
        frontier = [start]
        while frontier:
            nxt = []
            for node in frontier:
                for successor in following.get(node, ()):
                    if successor not in distance:
                        distance[successor] = distance[node] + 1
                        nxt.append(successor)
            frontier = nxt
        reached.append(distance)
    common = set(reached[0]).intersection(*reached[1:])
    return min(common, key=lambda node: (max(distance[node] for distance in reached), node), default=None)


def lane(fixture: Fixture, rng: random.Random) -> bool:
    tasks = _tasks(fixture)
    if not tasks:
        return False
    units = [element["id"] for element in fixture.get("elements", []) if element.get("type") == "orgUnit"]
    task = rng.choice(tasks)["element"]
    current = {ref["id"] for ref in task.get("related", {}).get("executedBy", [])}
    others = [unit for unit in units if unit not in current]
    if not others:
        fixture.setdefault("elements", []).append({"id": "ou-new", "type": "orgUnit", "facetName": "organization",
                                                   "attributes": {"name": {"1033": "New unit"}}})
        others = ["ou-new"]
    task.setdefault("related", {})["executedBy"] = [{"id": rng.choice(others)}]
    return True


def rename(fixture: Fixture, rng: random.Random) -> bool:
    tasks = _tasks(fixture)
    if not tasks:
        return False
    names = rng.choice(tasks)["element"].setdefault("attributes", {}).setdefault("name", {})
    names["1033"] = names.get("1033", "Task") + LONGER
    return True


EDITS: dict[str, Callable[[Fixture, random.Random], bool]] = {
    "insert": insert, "delete": delete, "branch": branch, "lane": lane, "rename": rename}


@dataclass(frozen=True)
class EditResult:
    """One edit (at its ``place``-th draw) drawn by one engine: fresh after it, and sketched
    from the drawing before (ELK: interactive, seeded by its drawing before)."""

    engine: str
    model: str
    layout: str
    edit: str
    place: int
    fresh: Stability
    sketched: Stability
    extra_crossings: int
    fresh_seconds: float
    sketched_seconds: float


class Engine(Protocol):
    """Draws the benchmark's models, with the drawing's CPU seconds."""

    name: str
    #: what the report calls the fresh and the sketched drawing
    modes: tuple[str, str]

    def draws(self, layout_key: str) -> bool: ...

    def fresh(self, fixture: Fixture, layout_key: str, before: Layout | None) -> tuple[Layout, float]:
        """A drawing from scratch; ``before`` (None for the drawing before the edit) tells
        which shapes the edit added."""

    def sketched(self, fixture: Fixture, layout_key: str, before: Layout) -> tuple[Layout, float]:
        """A drawing keeping what it can of ``before``, the fresh drawing before the edit."""


class Ours:
    """The renderer's layouts: fresh, and sketched from the drawing before
    (``LayoutOptions.sketch``)."""

    name = "ours"
    modes = ("fresh", "sketched")

    def __init__(self) -> None:
        self._font = load_font()

    def draws(self, layout_key: str) -> bool:
        return True

    def fresh(self, fixture: Fixture, layout_key: str, before: Layout | None) -> tuple[Layout, float]:
        return self._draw(fixture, layout_key, None)

    def sketched(self, fixture: Fixture, layout_key: str, before: Layout) -> tuple[Layout, float]:
        return self._draw(fixture, layout_key, Sketch.of(before, VERTICAL if _vertical(layout_key) else HORIZONTAL))

    def _draw(self, fixture: Fixture, layout_key: str, sketch: Sketch | None) -> tuple[Layout, float]:
        started = time.process_time()
        _, _, layout = lay_out(parse_diagram(fixture), layout_key, Cultures(1033, 1033), LayoutOptions(sketch=sketch),
                               self._font)
        return layout, time.process_time() - started


#: ELK fresh: nodes and edges kept in the order given where crossings allow
MODEL_ORDER_OPTIONS = {"elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES"}
#: ELK's ways to draw from given positions: cycles and layers from them (its authors pair
#: these with unseparated components), and the order in a layer either from them too
#: (interactive) or from them where a sweep may still move long edges' bends
#: (semi-interactive, which reads the positions from ``elk.position``)
INTERACTIVE_OPTIONS = {
    "interactive": {"elk.layered.crossingMinimization.strategy": "INTERACTIVE"},
    "semi-interactive": {"elk.layered.crossingMinimization.semiInteractive": "true"}}
POSITION_OPTIONS = {"elk.layered.cycleBreaking.strategy": "INTERACTIVE",
                    "elk.layered.layering.strategy": "INTERACTIVE", "elk.separateConnectedComponents": "false"}


class ElkDrawings:
    """ELK's drawings, each timed by one call (no warm-up: the benchmark's graphs keep
    ELK's code warm), the ``kept`` last asked for kept: both ELK peers draw the same fresh graphs."""

    def __init__(self, timer: ElkTimer, kept: int) -> None:
        self._timer = timer
        self._kept = kept
        self._drawn: OrderedDict[str, ElkDrawing] = OrderedDict()

    def lay_out(self, request: dict[str, Any]) -> ElkDrawing:
        key = json.dumps(request, sort_keys=True)
        if key in self._drawn:
            self._drawn.move_to_end(key)
        else:
            self._drawn[key] = self._timer.lay_out(request, warm_up=False)
            if len(self._drawn) > self._kept:
                self._drawn.popitem(last=False)  # the least recently asked
        return self._drawn[key]


class Elk:
    """ELK Layered, fresh with ``considerModelOrder`` and ``interactive`` (a key of
    ``INTERACTIVE_OPTIONS``) from its drawing before the edit; layout keys without lanes
    only (ELK has none)."""

    def __init__(self, drawings: ElkDrawings, interactive: str) -> None:
        self._drawings = drawings
        self._interactive = POSITION_OPTIONS | INTERACTIVE_OPTIONS[interactive]
        self.name = f"ELK {interactive}"
        self.modes = ("model order", interactive)

    def draws(self, layout_key: str) -> bool:
        return "Swimlane" not in layout_key

    def fresh(self, fixture: Fixture, layout_key: str, before: Layout | None) -> tuple[Layout, float]:
        graph = peer_graph(fixture, layout_key)
        known = None if before is None else {node.id for node in before.nodes}
        return self._draw(in_model_order(graph, known), MODEL_ORDER_OPTIONS, None)

    def sketched(self, fixture: Fixture, layout_key: str, before: Layout) -> tuple[Layout, float]:
        graph = peer_graph(fixture, layout_key)
        return self._draw(graph, self._interactive, seeded_centres(graph, before))

    def _draw(self, graph: PeerGraph, options: dict[str, str],
              centres: list[tuple[float, float]] | None) -> tuple[Layout, float]:
        request = elk_graph(graph)
        request["layoutOptions"].update(options)
        for child, centre in zip(request["children"], centres or ()):
            child["x"], child["y"] = centre[0] - child["width"] / 2, centre[1] - child["height"] / 2
            child["layoutOptions"] = {"elk.position": f"({child['x']}, {child['y']})"}
        shape_of = {child["id"]: shape for child, shape in zip(request["children"], graph.shapes)}
        drawing = self._drawings.lay_out(request)
        layout = drawing.layout
        return replace(layout, nodes=tuple(replace(node, id=shape_of[node.id]) for node in layout.nodes),
                       edges=tuple(replace(edge, source=shape_of[edge.source], target=shape_of[edge.target])
                                   for edge in layout.edges)), drawing.seconds


def in_model_order(graph: PeerGraph, known: set[str] | None) -> PeerGraph:
    """``graph`` with its nodes in our shape order, except that each shape not ``known``
    (None: all are) follows its first predecessor: the edits append new shapes to the
    content, a modeller would put them where they join the flow."""
    order = [node for node, shape in enumerate(graph.shapes) if known is None or shape in known]
    for node, shape in enumerate(graph.shapes):
        if known is not None and shape not in known:
            predecessor = next((source for source, target in graph.edges if target == node and source in order), None)
            order.insert(len(order) if predecessor is None else order.index(predecessor) + 1, node)
    position = {node: at for at, node in enumerate(order)}
    return PeerGraph(tuple(graph.sizes[node] for node in order),
                     tuple((position[source], position[target]) for source, target in graph.edges),
                     graph.vertical, tuple(graph.shapes[node] for node in order))


def seeded_centres(graph: PeerGraph, before: Layout) -> list[tuple[float, float]]:
    """Where ELK's interactive mode starts each node of ``graph`` from: its shape's centre
    in ``before``, a new shape's the mean of its neighbours' there (the origin without)."""
    old = {node.id: node.box for node in before.nodes}
    centres: list[tuple[float, float]] = []
    for node, shape in enumerate(graph.shapes):
        if shape in old:
            centres.append((old[shape].cx, old[shape].cy))
            continue
        neighbours = [old[graph.shapes[other]] for source, target in graph.edges
                      for other in ((target,) if source == node else (source,) if target == node else ())
                      if graph.shapes[other] in old]
        centres.append(_mean_centre(neighbours))
    return centres


def _mean_centre(boxes: list[Box]) -> tuple[float, float]:
    if not boxes:
        return 0.0, 0.0
    return mean(box.cx for box in boxes), mean(box.cy for box in boxes)


def _vertical(layout_key: str) -> bool:
    return layout_key.startswith("vertical")


def measure(models: Iterator[tuple[str, Fixture]], layout_keys: list[str], seed: int, repeats: int,
            engines: Sequence[Engine]) -> Iterator[EditResult]:
    """Each edit of each model in each layout, drawn by each engine that draws the layout,
    against that engine's drawing before it."""
    for name, fixture in models:
        _name_shapes(fixture)
        for layout_key in layout_keys:
            for engine in engines:
                if engine.draws(layout_key):
                    try:
                        yield from _edits(engine, name, fixture, layout_key, seed, repeats)
                    except ElkFailed as error:
                        print(f"# {engine.name} failed on {name} ({layout_key}): {error}", flush=True)


def _edits(engine: Engine, name: str, fixture: Fixture, layout_key: str, seed: int,
           repeats: int) -> Iterator[EditResult]:
    before, _ = engine.fresh(fixture, layout_key, None)
    for edit_name, edit in EDITS.items():
        for repeat in range(repeats):
            edited = copy.deepcopy(fixture)
            if edit(edited, random.Random(f"{seed}/{name}/{edit_name}/{repeat}")):
                fresh, fresh_seconds = engine.fresh(edited, layout_key, before)
                sketched, sketched_seconds = engine.sketched(edited, layout_key, before)
                vertical = _vertical(layout_key)
                changed = changed_shapes(fixture, edited) | lane_changes(before, fresh)
                yield EditResult(engine.name, name, layout_key, edit_name, repeat,
                                 Stability.between(before, fresh, vertical, changed),
                                 Stability.between(before, sketched, vertical, changed),
                                 crossings(sketched) - crossings(fresh), fresh_seconds, sketched_seconds)


def changed_shapes(before: Fixture, after: Fixture) -> frozenset[str]:
    """The shapes in both whose element the edit changed (a lane or a name): issue 22
    measures the shapes an edit leaves unchanged; a task moved to another lane has to move."""
    old = {item["shapeInfo"]["id"]: item["element"] for item in _values(before)}
    return frozenset(item["shapeInfo"]["id"] for item in _values(after)
                     if item["shapeInfo"]["id"] in old and old[item["shapeInfo"]["id"]] != item["element"])


def lane_changes(before: Layout, after: Layout) -> frozenset[str]:
    """The shapes drawn in another lane after the edit than before: a task moved to
    another lane takes the events and gateways that follow it along (they join their
    predecessor's lane, ``renderer.flow.shape_lanes``), and a shape in another lane has to move."""
    old, new = _lanes_of(before), _lanes_of(after)
    return frozenset(shape for shape, lane in old.items() if shape in new and new[shape] != lane)


def _lanes_of(layout: Layout) -> dict[str, str]:
    return {node.id: lane.id for node in layout.nodes for lane in layout.lanes
            if lane.box.x <= node.box.cx <= lane.box.right and lane.box.y <= node.box.cy <= lane.box.bottom}


def _name_shapes(fixture: Fixture) -> None:
    """An id on every shape, so that a shape keeps its name when a deletion renumbers the
    indices after it (the renderer calls a shape without an id ``shape-<index>``)."""
    for item in _values(fixture):
        item["shapeInfo"].setdefault("id", f"shape-{item['shapeInfo']['index']}")


def corpus_models() -> Iterator[tuple[str, Fixture]]:
    for path in sorted(CORPUS.glob("*/fixtures/*.json")):
        yield f"{path.parent.parent.name}/{path.stem}", json.loads(path.read_text(encoding="utf-8"))


def generated_models(sizes: list[int], seed: int) -> Iterator[tuple[str, Fixture]]:
    for size in sizes:
        yield f"generated-{size}", generate_flow(size, seed)


def _share(group: list[EditResult], stable: Callable[[EditResult], bool]) -> str:
    return f"{100 * sum(1 for result in group if stable(result)) / len(group):.0f} %"


def _mean(group: list[EditResult], value: Callable[[EditResult], float]) -> str:
    return f"{100 * mean(value(result) for result in group):.1f} %"


def report(results: list[EditResult], modes: tuple[str, str]) -> None:
    """One engine's ``results`` per set, layout and edit; ``modes`` name its fresh and
    sketched drawing."""
    fresh, sketched = modes
    print(f"| set | layout | edit | edits | stable: {fresh} → {sketched} | rows left (mean) | "
          f"order kept (mean / worst) | extra crossings (worst) | time {sketched} / {fresh} |")
    print("|---|---|---|---|---|---|---|---|---|")
    groups: dict[tuple[str, str, str], list[EditResult]] = {}
    for result in results:
        kind = "corpus" if "/" in result.model else result.model  # generated-<size>
        groups.setdefault((kind, result.layout, result.edit), []).append(result)
        groups.setdefault((kind, result.layout, "all"), []).append(result)
    for (kind, layout_key, edit), group in sorted(groups.items()):
        worst_order = [min(r.fresh.order_kept for r in group), min(r.sketched.order_kept for r in group)]
        seconds = sum(r.sketched_seconds for r in group) / max(sum(r.fresh_seconds for r in group), 1e-9)
        print(f"| {kind} | {layout_key} | {edit} | {len(group)} | "
              f"{_share(group, lambda r: r.fresh.stable)} → {_share(group, lambda r: r.sketched.stable)} | "
              f"{_mean(group, lambda r: r.fresh.rows_left_share)} → "
              f"{_mean(group, lambda r: r.sketched.rows_left_share)} | "
              f"{_mean(group, lambda r: r.fresh.order_kept)} / {100 * worst_order[0]:.1f} % → "
              f"{_mean(group, lambda r: r.sketched.order_kept)} / {100 * worst_order[1]:.1f} % | "
              f"{max(r.extra_crossings for r in group)} | {seconds:.2f} |")
    print(f"CPU seconds: {fresh} {sum(r.fresh_seconds for r in results):.1f}, "
          f"{sketched} {sum(r.sketched_seconds for r in results):.1f}")


def report_worst(results: list[EditResult], count: int, modes: tuple[str, str]) -> None:
    """The ``count`` edits whose sketched drawing keeps the least order."""
    fresh, sketched = modes
    print(f"| model | layout | edit | place | order kept {fresh} → {sketched} | rows left {fresh} → {sketched} | "
          "extra crossings |")
    print("|---|---|---|---|---|---|---|")
    for r in sorted(results, key=lambda r: (r.sketched.order_kept, r.model, r.layout, r.edit))[:count]:
        print(f"| {r.model} | {r.layout} | {r.edit} | {r.place} | {100 * r.fresh.order_kept:.1f} % → "
              f"{100 * r.sketched.order_kept:.1f} % | {100 * r.fresh.rows_left_share:.1f} % → "
              f"{100 * r.sketched.rows_left_share:.1f} % | {r.extra_crossings} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layouts", nargs="+", default=["horizontal", "horizontalSwimlane"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeats", type=int, default=3, help="places each edit is tried per model")
    parser.add_argument("--sets", nargs="+", default=["corpus", "generated"], choices=["corpus", "generated"])
    parser.add_argument("--peer", nargs="+", default=[], choices=["elk", "elk-semi"],
                        help="draw the same edits with ELK, interactive (elk) or semi-interactive (elk-semi), too")
    parser.add_argument("--elk-timeout", type=float, default=300, help="wall seconds ELK gets for one drawing")
    parser.add_argument("--worst", type=int, default=0, help="list this many edits keeping the least order")
    args = parser.parse_args()
    timer = elk_timer(args.elk_timeout) if args.peer else None
    # an ELK peer's drawings of a model in one layout: before, and two after each edit at each place
    drawings = None if timer is None else ElkDrawings(timer, kept=1 + 2 * len(EDITS) * args.repeats)
    peers: list[Engine] = [] if drawings is None else [
        Elk(drawings, {"elk": "interactive", "elk-semi": "semi-interactive"}[peer]) for peer in args.peer]
    try:
        run(args, [Ours(), *peers])
    finally:
        if timer is not None:
            timer.close()


def run(args: argparse.Namespace, engines: list[Engine]) -> None:
    models: list[Iterator[tuple[str, Fixture]]] = []
    if "corpus" in args.sets and CORPUS.is_dir():
        models.append(corpus_models())
    if "generated" in args.sets:
        models.append(generated_models(args.sizes, args.seed))
    results = [result for source in models for result in measure(source, args.layouts, args.seed, args.repeats,
                                                                  engines)]
    for engine in engines:
        if not all(engine.draws(layout_key) for layout_key in args.layouts):
            print(f"\n# {engine.name} draws no lanes: compared on the layouts without them only")
        print(f"\n{engine.name}\n")
        report([result for result in results if result.engine == engine.name], engine.modes)
        if args.worst:
            print(f"\n{engine.name}: the {args.worst} edits keeping the least order\n")
            report_worst([result for result in results if result.engine == engine.name], args.worst, engine.modes)


if __name__ == "__main__":
    main()
