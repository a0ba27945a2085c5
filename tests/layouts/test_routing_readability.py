"""Readability of flow routes (issue 10): no two unrelated edges on one line, and no small
step where a straight line was nearly possible."""
from __future__ import annotations

import pytest

from layouts.base import LayoutOptions
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.readability import jogged_edges, shared_tracks
from layouts.registry import get_strategy
from layouts.steps.channels import ChannelSegment, assign_slots
from layouts.steps.placement import place_across
from layouts.steps.spacing import Spacing
from layouts.steps.straighten import STEP_LIMIT, straighten
from tests.layouts.graphs import flow_node

SIZES = {"task": (120.0, 60.0), "evStart": (36.0, 36.0), "evEnd": (36.0, 36.0), "ruleXor": (50.0, 50.0)}


def _node(node_id: str, kind: str, labelled: bool = False) -> LayoutNode:
    width, height = SIZES[kind]
    return flow_node(node_id, kind, width, height, label_width=80.0 if labelled else 0.0,
                     label_height=30.0 if labelled else 0.0)


#: The shape of scenario.multiple-start-events: three starts, a fork right after H whose
#: branch to J passes the line where C joins I, and labelled events above a task row.
MULTIPLE_STARTS = LayoutGraph(
    tuple([_node("E", "evStart", True), _node("F", "task"), _node("G", "ruleXor", True), _node("H", "task"),
           _node("L", "task"), _node("S", "evStart"), _node("A", "evStart", True), _node("B", "task"),
           _node("C", "task"), _node("I", "ruleXor", True), _node("J", "task"), _node("D", "evEnd", True),
           _node("K", "evEnd", True)]),
    tuple(LayoutEdge(s, t) for s, t in [("E", "F"), ("F", "G"), ("G", "H"), ("G", "L"), ("S", "L"), ("A", "B"),
                                        ("B", "C"), ("C", "I"), ("H", "I"), ("H", "J"), ("L", "J"), ("I", "D"),
                                        ("J", "K")]))


@pytest.mark.parametrize("key", ["horizontal", "vertical"])
def test_no_edge_runs_into_an_unrelated_edge_next_to_a_fork(key: str) -> None:
    layout = get_strategy(key).layout(MULTIPLE_STARTS, LayoutOptions())
    assert shared_tracks(layout) == []


@pytest.mark.parametrize("key", ["horizontal", "vertical"])
def test_labelled_events_line_up_with_their_neighbours_by_the_symbol(key: str) -> None:
    layout = get_strategy(key).layout(MULTIPLE_STARTS, LayoutOptions())
    assert jogged_edges(layout) == []


def test_a_segment_leaving_on_the_line_another_enters_turns_off_it_first() -> None:
    # C -> I comes down onto H's line (140), H -> J leaves that line downwards: H -> J
    # must take the earlier slot, or C -> I would run along H -> J's first stretch
    joining, forking = ChannelSegment(0, 50.0, 140.0), ChannelSegment(1, 140.0, 244.0)
    slots, used = assign_slots([joining, forking])
    assert used == 2
    assert slots[1] < slots[0]


def test_a_fork_lines_up_with_one_branch_instead_of_stepping_into_both() -> None:
    # 0 forks to 2 (light) and 3 (heavy, far below): the shortest links pull 0 as far
    # towards 3 as its neighbour 1 allows, 12 units off 2's line; straightening puts it
    # on 2's line, so one branch runs straight
    layers = [[0, 1], [2, 3], [4, 5]]
    before = [18.0, 18.0, 18.0, 30.0, 18.0, 30.0]
    after = [18.0, 18.0, 18.0, 64.0, 18.0, 64.0]
    links = [(1, 3, 4.0), (0, 2, 1.0), (0, 3, 4.0), (2, 4, 1.0)]
    optimum = place_across(layers, 6, before, after, gap=lambda p, q: 30.0, links=links)
    assert optimum.positions[0] != optimum.positions[2]
    positions = straighten(optimum, Spacing(layers, before, after, lambda p, q: 30.0), links).positions
    assert positions[0] == positions[2] == positions[4]
    assert all(positions[a] == positions[b] or abs(positions[a] - positions[b]) >= STEP_LIMIT
               for a, b, _ in links)
