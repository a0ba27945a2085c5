"""The render benchmark's peers (benchmarks/run.py, benchmarks/elk.py): dot and ELK get the
same graph, and ELK is timed in one node process, within a timeout."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from benchmarks.elk import ElkFailed, ElkTimer
from benchmarks.run import corpus_summary, dot_graph, elk_graph, peer_columns, peer_graph
from checks.generate import generate_flow
from renderer.culture import DEFAULT_CULTURE, Cultures
from renderer.flow import flow_graph
from renderer.model import parse_diagram
from renderer.text import load_font

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
LOAN_APP = json.loads((FIXTURES / "corpus" / "LoanApp_simplified.json").read_text(encoding="utf-8"))

Sizes = dict[str, tuple[float, float]]
Edges = list[tuple[str, str]]


def dot_nodes_and_edges(source: str) -> tuple[Sizes, Edges]:
    """Node sizes in px (dot has inches to 3 places) and edges, in order, of ``dot_graph``'s text."""
    sizes = {name: (float(width) * 72, float(height) * 72) for name, width, height in
             re.findall(r"^(n\d+) \[width=([\d.]+), height=([\d.]+)\];$", source, re.MULTILINE)}
    return sizes, re.findall(r"^(n\d+) -> (n\d+);$", source, re.MULTILINE)


def elk_nodes_and_edges(graph: dict[str, Any]) -> tuple[Sizes, Edges]:
    sizes = {child["id"]: (child["width"], child["height"]) for child in graph["children"]}
    edges = []
    for edge in graph["edges"]:
        [source], [target] = edge["sources"], edge["targets"]
        edges.append((source, target))
    return sizes, edges


def test_dot_and_elk_get_our_flow_graph_with_the_same_nodes_sizes_and_edges() -> None:
    ours, _ = flow_graph(parse_diagram(LOAN_APP), Cultures(DEFAULT_CULTURE, DEFAULT_CULTURE), load_font(),
                         "horizontal")
    graph = peer_graph(LOAN_APP, "horizontal")
    dot_sizes, dot_edges = dot_nodes_and_edges(dot_graph(graph, "ortho"))
    elk_sizes, elk_edges = elk_nodes_and_edges(elk_graph(graph))

    names = {node.id: f"n{i}" for i, node in enumerate(ours.nodes)}
    assert elk_sizes == {names[node.id]: (node.width, node.height) for node in ours.nodes}
    assert elk_edges == [(names[edge.source], names[edge.target]) for edge in ours.edges]
    assert len(elk_edges) >= len(elk_sizes) - 1  # a connected flow, not an empty one
    assert dot_edges == elk_edges
    assert dot_sizes.keys() == elk_sizes.keys()
    for name, (width, height) in elk_sizes.items():
        assert dot_sizes[name][0] == pytest.approx(width, abs=0.04)
        assert dot_sizes[name][1] == pytest.approx(height, abs=0.04)


@pytest.mark.parametrize(("layout", "rankdir", "direction"),
                         [("horizontal", "LR", "RIGHT"), ("vertical", "TB", "DOWN")])
def test_both_peers_lay_out_in_our_layouts_direction(layout: str, rankdir: str, direction: str) -> None:
    graph = peer_graph(LOAN_APP, layout)
    assert f"rankdir={rankdir};" in dot_graph(graph, "ortho")
    assert elk_graph(graph)["layoutOptions"] == {
        "elk.algorithm": "layered", "elk.direction": direction, "elk.edgeRouting": "ORTHOGONAL",
        "elk.spacing.nodeNode": "30", "elk.layered.spacing.nodeNodeBetweenLayers": "50"}


def test_a_peer_column_shows_not_measured_timeout_or_ms_and_ours_over_theirs() -> None:
    assert peer_columns(0.010, None).split() == ["-", "-"]
    assert peer_columns(0.010, float("inf")).split() == ["timeout", "-"]
    assert peer_columns(0.010, 0.040).split() == ["40", "0.25"]


def test_the_corpus_summary_compares_on_the_diagrams_the_peer_was_measured_on() -> None:
    summary = corpus_summary("ELK", [0.010, 0.030, 5.0], [0.020, 0.030, float("inf")])
    assert summary == "ELK total 0.05 s (/ELK 0.80), median 25.0 ms (/ELK 0.80), 1 diagrams not measured"
    assert corpus_summary("dot", [0.010], [None]) == "dot -"


def test_elk_times_a_small_graph_in_process(elk_timer: ElkTimer) -> None:
    graph = elk_graph(peer_graph(generate_flow(20), "horizontal"))
    seconds = elk_timer.time(graph, repeats=2)
    # a layout of 20 nodes, without node's start-up (about 0.05 s CPU) or elkjs's loading
    assert 0 < seconds < 1
    assert elk_timer.time(graph, repeats=1) < 1  # the same process answers again


def test_elk_past_its_timeout_is_stopped_and_a_new_process_takes_the_next_graph(elkjs_folder: Path) -> None:
    big = elk_graph(peer_graph(generate_flow(1000), "horizontal"))
    small = elk_graph(peer_graph(generate_flow(20), "horizontal"))
    with ElkTimer(elkjs_folder, timeout=0.05) as timer:
        assert timer.time(big, repeats=1) == float("inf")
        timer.timeout = 60  # the next graph gets its time, in a new process
        assert 0 < timer.time(small, repeats=1) < 1


def test_an_elk_error_names_what_elk_refused(elk_timer: ElkTimer) -> None:
    graph = elk_graph(peer_graph(generate_flow(20), "horizontal"))
    graph["edges"].append({"id": "stray", "sources": ["n0"], "targets": ["nowhere"]})
    with pytest.raises(ElkFailed, match="nowhere"):
        elk_timer.time(graph, repeats=1)
    assert elk_timer.time(elk_graph(peer_graph(generate_flow(20), "horizontal")), repeats=1) > 0
