"""ELK as the stability benchmark's peer (benchmarks/stability.py): its model order puts a
new shape where it joins the flow, its interactive mode starts from the drawing before,
and ELK's drawing comes back under our shape ids."""
from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.elk import ElkDrawing, ElkTimer
from benchmarks.run import PeerGraph, peer_graph
from benchmarks.stability import Elk, ElkDrawings, in_model_order, insert, seeded_centres
from checks.generate import generate_flow
from layouts.geometry import Box, Layout, NodeBox
from layouts.stability import Stability

#: a → b → c with d new between a and b (the edit appended it to the content)
CHAIN = PeerGraph(sizes=((10, 10), (20, 20), (30, 30), (40, 40)), edges=((0, 3), (3, 1), (1, 2)), vertical=False,
                  shapes=("a", "b", "c", "d"))


def test_a_new_shape_follows_its_first_predecessor_in_the_model_order() -> None:
    ordered = in_model_order(CHAIN, known={"a", "b", "c"})
    assert ordered.shapes == ("a", "d", "b", "c")
    assert ordered.sizes == ((10, 10), (40, 40), (20, 20), (30, 30))
    assert [(ordered.shapes[s], ordered.shapes[t]) for s, t in ordered.edges] == [("a", "d"), ("d", "b"), ("b", "c")]
    assert in_model_order(CHAIN, known=None) == CHAIN  # the drawing before: our order as it is


def test_interactive_elk_starts_old_shapes_where_they_stood_and_a_new_one_between_its_neighbours() -> None:
    before = Layout(400, 100, (NodeBox("a", Box(0, 0, 10, 10)), NodeBox("b", Box(200, 40, 20, 20)),
                               NodeBox("c", Box(300, 0, 30, 30))))
    assert seeded_centres(CHAIN, before) == [(5, 5), (210, 50), (315, 15), ((5 + 210) / 2, (5 + 50) / 2)]


@pytest.mark.parametrize("layout_key", ["horizontal", "vertical"])
def test_elk_draws_every_shape_under_its_id_and_routes_every_flow(elk_timer: ElkTimer, layout_key: str) -> None:
    fixture = generate_flow(30, 3)
    drawing, seconds = Elk(ElkDrawings(elk_timer, kept=4), "interactive").fresh(fixture, layout_key, None)
    graph = peer_graph(fixture, layout_key)
    assert [node.id for node in drawing.nodes] == list(graph.shapes)
    assert {(edge.source, edge.target) for edge in drawing.edges} == {
        (graph.shapes[s], graph.shapes[t]) for s, t in graph.edges}
    assert all(len(edge.points) >= 2 for edge in drawing.edges)
    boxes = {node.id: node.box for node in drawing.nodes}
    first, second = boxes[graph.shapes[graph.edges[0][0]]], boxes[graph.shapes[graph.edges[0][1]]]
    assert (second.y > first.y) if layout_key == "vertical" else (second.x > first.x)  # ELK's direction is ours
    assert seconds > 0


@pytest.mark.parametrize("interactive", ["interactive", "semi-interactive"])
def test_interactive_elk_seeded_with_its_own_drawing_keeps_it(elk_timer: ElkTimer, interactive: str) -> None:
    fixture = generate_flow(30, 3)
    elk = Elk(ElkDrawings(elk_timer, kept=4), interactive)
    before, _ = elk.fresh(fixture, "horizontal", None)
    again, _ = elk.sketched(fixture, "horizontal", before)
    kept = Stability.between(before, again, vertical=False)
    assert kept.stable and kept.order_kept == 1.0


def test_an_inserted_task_is_drawn_by_both_elk_ways(elk_timer: ElkTimer) -> None:
    fixture = generate_flow(30, 3)
    elk = Elk(ElkDrawings(elk_timer, kept=4), "semi-interactive")
    before, _ = elk.fresh(fixture, "horizontal", None)
    edited = copy.deepcopy(fixture)
    assert insert(edited, random.Random(1))
    for after, _ in (elk.fresh(edited, "horizontal", before), elk.sketched(edited, "horizontal", before)):
        assert {node.id for node in after.nodes} == {node.id for node in before.nodes} | {"new-task"}
        assert Stability.between(before, after, vertical=False).shared == len(before.nodes)


def test_elk_draws_no_lanes() -> None:
    unused = ElkTimer(Path("no-elkjs-here"), timeout=1)  # node would start on the first drawing only
    elk = Elk(ElkDrawings(unused, kept=1), "interactive")
    assert elk.draws("horizontal") and elk.draws("vertical")
    assert not elk.draws("horizontalSwimlane") and not elk.draws("verticalSwimlane")


class CountingTimer(ElkTimer):
    """Answers every graph with an empty drawing, counting what it was asked."""

    def __init__(self) -> None:
        super().__init__(Path("no-elkjs-here"), timeout=1)
        self.asked: list[str] = []

    def lay_out(self, graph: dict[str, Any], repeats: int = 1, warm_up: bool = True) -> ElkDrawing:
        self.asked.append(graph["id"])
        return ElkDrawing(Layout(0, 0, ()), 0.001)


def test_the_elk_peers_share_a_drawing_of_the_same_graph_while_it_is_among_the_last_kept() -> None:
    timer = CountingTimer()
    drawings = ElkDrawings(timer, kept=2)
    for name in ("a", "a", "b", "a", "c", "a", "b"):
        drawings.lay_out({"id": name, "layoutOptions": {}})
    assert timer.asked == ["a", "b", "c", "b"]
