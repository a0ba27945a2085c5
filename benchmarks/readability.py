"""What a reader sees in the flow and swimlane drawings (issue 21), beside crossings:
loop-backs and forward edges over 4 bends, head-on entries, the longest shared final
segment, unrelated edges on one line, jogs, the bends histogram and the aspect ratio.

Three sets: the shared corpus (when ``../shared`` is beside the project), the demo
tenant's diagrams, and mined-style models (``benchmarks/spaghetti.py``) of 50 to 500
shapes whose seeds come from ``--seed``: tune on one seed, judge on another.

    python -m benchmarks.readability [--seed N] [--sizes 50 100 200 500] [--sets corpus demo mined]
"""
from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from benchmarks.spaghetti import mined_fixture
from layouts.base import LayoutOptions
from layouts.readability import Readability
from renderer.api import lay_out
from renderer.culture import Cultures
from renderer.model import parse_diagram
from renderer.text import load_font
from repository.demo import load_demo
from repository.demo_data import demo_id
from repository.fixtures import diagram_fixture
from repository.store import Store
from repository.store.db import create_schema, make_engine

LAYOUTS = ("horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane")
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
DEMO_KEYS = ("credit-check", "quality-inspection", "strategy-planning", "order-to-cash", "plan-to-produce",
             "procure-to-pay", "hire-to-retire", "incident-management")
BEND_COLUMNS = (0, 1, 2, 3, 4)


def corpus_fixtures() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(CORPUS.glob("*/fixtures/*.json")):
        yield f"{path.parent.parent.name}/{path.stem}", json.loads(path.read_text(encoding="utf-8"))


def demo_fixtures() -> Iterator[tuple[str, dict[str, Any]]]:
    engine = make_engine("sqlite://")
    create_schema(engine)
    try:
        with Session(engine) as session:
            store = Store(session, load_demo(session))
            for key in DEMO_KEYS:
                yield key, diagram_fixture(store, store.reads.element(demo_id(f"process:{key}")))
    finally:
        engine.dispose()


def mined_fixtures(seed: int, sizes: list[int]) -> Iterator[tuple[str, dict[str, Any]]]:
    seeds = random.Random(seed)
    for size in sizes:
        for _ in range(3):
            model_seed = seeds.randrange(1 << 30)
            yield f"mined-{size}-{model_seed}", mined_fixture(size, model_seed)


def measure(fixtures: Iterator[tuple[str, dict[str, Any]]], culture: int) -> dict[str, list[Readability]]:
    cultures = Cultures(culture, 1033)
    font = load_font()
    results: dict[str, list[Readability]] = {key: [] for key in LAYOUTS}
    for _, fixture in fixtures:
        diagram = parse_diagram(fixture)
        for key in LAYOUTS:
            _, _, layout = lay_out(diagram, key, cultures, LayoutOptions(), font)
            results[key].append(Readability.of(layout, vertical=key.startswith("vertical")))
    return results


def summary_row(name: str, key: str, drawings: list[Readability]) -> str:
    edges = sum(drawing.edges for drawing in drawings)
    bends: Counter[int] = Counter()
    for drawing in drawings:
        bends.update(drawing.bends)
    over = sum(count for bent, count in bends.items() if bent > BEND_COLUMNS[-1])
    histogram = " ".join(f"{bends[column]}" for column in BEND_COLUMNS) + f" {over}"
    return (f"| {name} | {key} | {len(drawings)} | {edges} | {sum(d.crossings for d in drawings)} | "
            f"{sum(d.loop_backs_over_limit for d in drawings)}/{sum(d.loop_backs for d in drawings)} | "
            f"{sum(d.forward_over_limit for d in drawings)} | {sum(d.head_on for d in drawings)} | "
            f"{max((d.longest_shared_tail for d in drawings), default=0)} | "
            f"{sum(d.shared_tracks for d in drawings)} | "
            f"{100 * sum(d.jogs for d in drawings) / max(edges, 1):.1f} % | "
            f"{max((d.aspect for d in drawings), default=0):.1f} | {histogram} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2026, help="seed of the mined models' seeds")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 500])
    parser.add_argument("--sets", nargs="+", default=["corpus", "demo", "mined"], choices=["corpus", "demo", "mined"])
    parser.add_argument("--culture", type=int, default=1033)
    args = parser.parse_args()
    sources: dict[str, Callable[[], Iterator[tuple[str, dict[str, Any]]]]] = {
        "corpus": corpus_fixtures, "demo": demo_fixtures, "mined": lambda: mined_fixtures(args.seed, args.sizes)}
    print("| set | layout | drawings | edges | crossings | loop-backs > 4 bends / all | forward > 4 bends | "
          "head-on | longest shared tail | shared tracks | jogs | worst aspect | bends 0 1 2 3 4 5+ |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.sets:
        if name == "corpus" and not CORPUS.is_dir():
            print(f"| corpus | (skipped: {CORPUS} is not there) |")
            continue
        for key, drawings in measure(sources[name](), args.culture).items():
            print(summary_row(name, key, drawings), flush=True)


if __name__ == "__main__":
    main()
