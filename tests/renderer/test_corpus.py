"""Every diagram of the shared corpus in every layout: the SVG contract holds, no
overlap, no edge through a shape, no lane violation (issues 2 and 4); in the flow
layouts every shape and edge is drawn and crossings beat the anchors; in the flow and
swimlane layouts no two unrelated edges share a line, few edges step, crossings stay
within issue 10's totals and reach the proven optimum wherever the corpus has one."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from layouts.registry import LAYOUT_KEYS
from renderer.api import render
from tests.conftest import SHARED

FLOW_LAYOUTS = ("horizontal", "vertical")
LAYERED_LAYOUTS = ("horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane")
#: Share of edges allowed a jog (a step under 40 units where a straight line was nearly possible).
JOG_SHARE = 0.01
DIRECTION = {"vertical": "TB", "verticalSwimlane": "TB", "detailed": "TB"}
#: Crossings over the corpus per layout at most (issue 10: no more than before shared lines
#: were ruled out; the better of dot and ELK per fixture sums to 161, BASELINES.md).
CROSSINGS_BUDGET = {"horizontal": 131, "vertical": 129, "horizontalSwimlane": 131, "verticalSwimlane": 129}


def _metrics_module() -> Any:
    sys.path.insert(0, str(SHARED / "tools"))
    import svgmetrics

    return svgmetrics


def corpus_fixtures() -> list[Path]:
    return sorted((SHARED / "corpus").glob("*/fixtures/*.json"))


@pytest.fixture(scope="module")
def corpus_drawings(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every corpus fixture drawn in every layout, as ``elrepo render`` draws it (its
    ``render``, no fixture of the corpus being a BPMN import): ``<fixture>.<layout>.svg``
    in a folder of their own, the names ``svgcheck`` gives its drawings."""
    folder = tmp_path_factory.mktemp("corpus-drawings")
    for path in corpus_fixtures():
        fixture = json.loads(path.read_text(encoding="utf-8"))
        for layout in LAYOUT_KEYS:
            (folder / f"{path.stem}.{layout}.svg").write_text(render(fixture, layout), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def corpus_results(corpus_drawings: Path) -> dict[tuple[str, str], dict[str, Any]]:
    metrics = _metrics_module()
    results = {}
    for path in corpus_fixtures():
        fixture = json.loads(path.read_text(encoding="utf-8"))
        key = f"{path.parent.parent.name}/{path.stem}"
        for layout in LAYOUT_KEYS:
            geometry = metrics.geometry_from_svg((corpus_drawings / f"{path.stem}.{layout}.svg").read_bytes())
            measured = metrics.compute_metrics(geometry, DIRECTION.get(layout, "LR"))
            measured["issues"] = geometry["svg_issues"]
            measured["drawn"] = (len(geometry["nodes"]), len(geometry["edges"]))
            measured["expected"] = (len(fixture["values"]), sum(
                len(set(v["shapeInfo"].get("predecessors") or [])) for v in fixture["values"]))
            results[(key, layout)] = measured
    return results


def test_corpus_svgs_keep_the_contract(corpus_results: dict[tuple[str, str], dict[str, Any]]) -> None:
    problems = {key: (m["issues"], m["node_overlaps"], m["edge_node_intersections"], m["lane_violations"])
                for key, m in corpus_results.items()
                if m["issues"] or m["node_overlaps"] or m["edge_node_intersections"] or m["lane_violations"]
                or (key[1] in FLOW_LAYOUTS and m["drawn"] != m["expected"])}
    assert problems == {}


def test_corpus_crossings_beat_dot_and_elk(corpus_results: dict[tuple[str, str], dict[str, Any]]) -> None:
    baselines = json.loads((SHARED / "corpus" / "baselines.json").read_text())
    for layout in LAYERED_LAYOUTS:
        total = 0
        worse_than_elk = {}
        for (key, measured_layout), measured in corpus_results.items():
            if measured_layout != layout:
                continue
            total += measured["edge_crossings"]
            elk = baselines[key]["elk"]["edge_crossings"]
            if measured["edge_crossings"] > elk:
                worse_than_elk[key] = (measured["edge_crossings"], elk)
        assert worse_than_elk == {}, layout
        assert total <= CROSSINGS_BUDGET[layout], layout


@pytest.mark.parametrize("layout", LAYERED_LAYOUTS)
def test_corpus_crossings_reach_the_proven_optimum(
        layout: str, corpus_results: dict[tuple[str, str], dict[str, Any]]) -> None:
    """``layered_optimum`` (BASELINES.md): the fewest crossings of any order of the layers,
    proven on 110 of the 111 fixtures."""
    baselines = json.loads((SHARED / "corpus" / "baselines.json").read_text())
    above = {}
    for (key, measured_layout), measured in corpus_results.items():
        optimum = baselines[key].get("layered_optimum", {})
        if measured_layout == layout and optimum.get("proven") and measured["edge_crossings"] > optimum["crossings"]:
            above[key] = (measured["edge_crossings"], optimum["crossings"])
    assert above == {}


@pytest.mark.parametrize("layout", LAYERED_LAYOUTS)
def test_corpus_routes_share_no_line_and_rarely_step(
        layout: str, corpus_results: dict[tuple[str, str], dict[str, Any]]) -> None:
    measured = {key: m for (key, measured_layout), m in corpus_results.items() if measured_layout == layout}
    shared = {key: m["shared_tracks"] for key, m in measured.items() if m["shared_tracks"]}
    assert shared == {}
    jogs = sum(m["jogs"] for m in measured.values())
    edges = sum(m["edges"] for m in measured.values())
    assert jogs <= JOG_SHARE * edges, f"{jogs} of {edges} edges jog"


@pytest.mark.parametrize("arguments", [
    ["--quick"],
    ["--layouts", "horizontalSwimlane", "verticalSwimlane", "--lanes-only"],
], ids=["quick", "swimlanes"])
def test_svgcheck_passes(arguments: list[str], corpus_drawings: Path, tmp_path: Path) -> None:
    """The shared checker, run as CI runs it, on the drawings of ``elrepo render``: its
    render command copies the drawing ``corpus_drawings`` made in this process instead of
    starting ``elrepo render`` (about a second of CPU before the render) per drawing; the
    command line's own rendering is tests/repository/test_cli.py's."""
    copy = f"cp {shlex.quote(str(corpus_drawings))}/\"$(basename {{out}})\" {{out}}"
    completed = subprocess.run([sys.executable, str(SHARED / "tools" / "svgcheck"), *arguments, "--command", copy],
                               capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    assert "0 SVGs with contract problems" in completed.stdout
