"""Stability of the drawing under single edits (issue 22, item 2).

For every corpus diagram and generated models of 50, 200 and 1,000 shapes, each of five
edits is applied once where the model allows it, the edited diagram is drawn, and the
drawing is compared with the one before the edit (``layouts/stability.py``), twice: a
fresh layout, and the layout sketched from the drawing before (``LayoutOptions.sketch``,
issue 22's stable layout). Reported: stable edits, the share of unchanged shapes that
leave their row, the orthogonal order kept, the crossings the sketched layout has more
than the fresh one, and the CPU time of the sketched layout over the fresh one's.

    python -m benchmarks.stability [--layouts horizontal horizontalSwimlane] [--sizes 50 200 1000]
                                   [--seed N] [--sets corpus generated]

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

from checks.generate import generate_flow
from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL, Layout
from layouts.readability import crossings
from layouts.sketch import Sketch
from layouts.stability import Stability
from renderer.api import lay_out
from renderer.culture import Cultures
from renderer.model import parse_diagram
from renderer.text import FontMetrics, load_font

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
    """One edit: the fresh layout after it and the one sketched from the drawing before."""

    model: str
    layout: str
    edit: str
    fresh: Stability
    sketched: Stability
    extra_crossings: int
    fresh_seconds: float
    sketched_seconds: float


def _draw(fixture: Fixture, layout_key: str, font: FontMetrics, sketch: Sketch | None = None) -> tuple[Layout, float]:
    started = time.process_time()
    _, _, layout = lay_out(parse_diagram(fixture), layout_key, Cultures(1033, 1033), LayoutOptions(sketch=sketch),
                           font)
    return layout, time.process_time() - started


def measure(models: Iterator[tuple[str, Fixture]], layout_keys: list[str], seed: int,
            repeats: int) -> Iterator[EditResult]:
    """Each edit of each model in each layout against the drawing before it."""
    font = load_font()
    for name, fixture in models:
        _name_shapes(fixture)
        for layout_key in layout_keys:
            before, _ = _draw(fixture, layout_key, font)
            for edit_name, edit in EDITS.items():
                for repeat in range(repeats):
                    edited = copy.deepcopy(fixture)
                    if edit(edited, random.Random(f"{seed}/{name}/{edit_name}/{repeat}")):
                        yield _compare(name, layout_key, edit_name, before, edited, font)


def _compare(name: str, layout_key: str, edit_name: str, before: Layout, edited: Fixture,
             font: FontMetrics) -> EditResult:
    vertical = layout_key.startswith("vertical")
    fresh, fresh_seconds = _draw(edited, layout_key, font)
    sketch = Sketch.of(before, VERTICAL if vertical else HORIZONTAL)
    sketched, sketched_seconds = _draw(edited, layout_key, font, sketch)
    return EditResult(name, layout_key, edit_name, Stability.between(before, fresh, vertical),
                      Stability.between(before, sketched, vertical), crossings(sketched) - crossings(fresh),
                      fresh_seconds, sketched_seconds)


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


def report(results: list[EditResult]) -> None:
    print("| set | layout | edit | edits | stable: fresh → sketched | rows left (mean) | order kept (mean / worst) | "
          "extra crossings (worst) | time sketched / fresh |")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layouts", nargs="+", default=["horizontal", "horizontalSwimlane"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeats", type=int, default=3, help="places each edit is tried per model")
    parser.add_argument("--sets", nargs="+", default=["corpus", "generated"], choices=["corpus", "generated"])
    args = parser.parse_args()
    models: list[Iterator[tuple[str, Fixture]]] = []
    if "corpus" in args.sets and CORPUS.is_dir():
        models.append(corpus_models())
    if "generated" in args.sets:
        models.append(generated_models(args.sizes, args.seed))
    results = [result for source in models for result in measure(source, args.layouts, args.seed, args.repeats)]
    report(results)


if __name__ == "__main__":
    main()
