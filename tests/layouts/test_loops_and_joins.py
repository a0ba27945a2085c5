"""Loop-backs on one track and joins entered from the side (issue 21, item 1)."""
from __future__ import annotations

import math

import pytest

from layouts.base import LayoutOptions
from layouts.geometry import Box, Point
from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode
from layouts.readability import LOOP_BEND_LIMIT, bends, head_on_entries, is_loop_back, longest_shared_tail
from layouts.registry import get_strategy
from layouts.steps.channels import ChannelSegment, assign_slots
from layouts.steps.loops import Lines, Loop, chain_bends, loop_tracks

FLOW_KEYS = ["horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane"]
SIZES = {"task": (120.0, 60.0), "subProcess": (120.0, 60.0), "processInterfacePlaceholder": (120.0, 60.0),
         "evStart": (36.0, 36.0), "evIntermediate": (36.0, 36.0), "evEnd": (36.0, 36.0),
         "ruleXor": (50.0, 50.0), "ruleAnd": (50.0, 50.0), "condition": (50.0, 50.0)}
#: The demo's plan-to-produce (kind and lane per shape, P production, W warehouse, Q
#: quality): its rework loops back from production to a quality check two lanes below
#: (drawn in stairs before issue 21), and two joins are fed from above and below (drawn
#: as a T).
PLAN_TO_PRODUCE_SHAPES = [
    ("evStart", "P"), ("task", "P"), ("ruleXor", "P"), ("condition", "P"), ("processInterfacePlaceholder", "P"),
    ("evIntermediate", "W"), ("condition", "P"), ("ruleXor", "P"), ("task", "P"), ("ruleAnd", "P"),
    ("task", "W"), ("task", "P"), ("ruleAnd", "P"), ("task", "P"), ("subProcess", "Q"), ("ruleXor", "Q"),
    ("condition", "Q"), ("task", "P"), ("condition", "Q"), ("task", "P"), ("condition", "Q"), ("task", "P"),
    ("task", "W"), ("evEnd", "W")]
PLAN_TO_PRODUCE_EDGES = [
    (0, 1), (19, 1), (1, 2), (2, 3), (3, 4), (4, 5), (2, 6), (5, 7), (6, 7), (7, 8), (8, 9), (9, 10), (9, 11),
    (10, 12), (11, 12), (12, 13), (13, 14), (17, 14), (14, 15), (15, 16), (16, 17), (15, 18), (18, 19),
    (15, 20), (20, 21), (21, 22), (22, 23)]


def _shape(index: int, kind: str, lane: str) -> LayoutNode:
    width, height = SIZES[kind]
    label = (0.0, 0.0) if width == 120.0 else ((100.0, 30.0) if kind.startswith("ev") else (90.0, 15.0))
    return LayoutNode(f"n{index}", kind, width, height, label_width=label[0], label_height=label[1], lane=lane)


PLAN_TO_PRODUCE = LayoutGraph(
    tuple(_shape(index, kind, lane) for index, (kind, lane) in enumerate(PLAN_TO_PRODUCE_SHAPES)),
    tuple(LayoutEdge(f"n{s}", f"n{t}") for s, t in PLAN_TO_PRODUCE_EDGES),
    (LaneSpec("P", 56.0, 15.0), LaneSpec("W", 78.0, 30.0), LaneSpec("Q", 106.0, 15.0)))


@pytest.mark.parametrize("key", FLOW_KEYS)
def test_loop_backs_bend_at_most_four_times_and_no_join_is_entered_head_on(key: str) -> None:
    layout = get_strategy(key).layout(PLAN_TO_PRODUCE, LayoutOptions())
    boxes = {node.id: node.box for node in layout.nodes}
    loops = [edge for edge in layout.edges if is_loop_back(edge, boxes, key.startswith("vertical"))]
    assert len(loops) == 2
    assert all(bends(edge) <= LOOP_BEND_LIMIT for edge in loops)
    assert head_on_entries(layout) == []
    assert longest_shared_tail(layout) <= 3



#: A three-way split whose branches (the middle one two tasks long, so the join lines up
#: with it) meet again at a join that a rework loop also enters: the loop takes one of
#: the join's corners, so the outer branches cannot enter from the side; on main they ran
#: at each other on one track in front of the join and turned into it together (a T).
LOOPED_JOIN = LayoutGraph(
    tuple(_shape(index, kind, "P") for index, kind in enumerate(
        ["evStart", "ruleXor", "task", "task", "task", "task", "ruleXor", "task", "ruleXor", "evEnd"])),
    tuple(LayoutEdge(f"n{s}", f"n{t}") for s, t in
          [(0, 1), (1, 2), (1, 3), (3, 4), (1, 5), (2, 6), (4, 6), (5, 6), (6, 7), (7, 8), (8, 6), (8, 9)]))


@pytest.mark.parametrize("key", FLOW_KEYS)
def test_a_join_with_a_loop_is_not_entered_head_on(key: str) -> None:
    graph = LOOPED_JOIN
    if "Swimlane" in key:
        graph = LayoutGraph(graph.nodes, graph.edges, (LaneSpec("P", 56.0, 15.0),))
    layout = get_strategy(key).layout(graph, LayoutOptions())
    assert len([edge for edge in layout.edges if edge.target == "n6"]) == 4
    assert head_on_entries(layout) == []


def test_two_segments_running_at_each_other_into_one_port_take_separate_slots() -> None:
    from_above, from_below = ChannelSegment(0, 50.0, 140.0), ChannelSegment(1, 230.0, 140.0)
    slots, used = assign_slots([from_above, from_below])
    assert used == 2 and slots[0] != slots[1]
    # a fork, one segment each way out of one port, still shares its track
    up, down = ChannelSegment(2, 140.0, 50.0), ChannelSegment(3, 140.0, 230.0)
    assert assign_slots([up, down]) == ([0, 0], 1)


def _fan_in(join: LayoutNode, branches: int, lanes: tuple[LaneSpec, ...]) -> LayoutGraph:
    """A parallel split into ``branches`` tasks that all run into ``join``."""
    nodes = [LayoutNode("start", "evStart", 36.0, 36.0, lane="P", is_start=True, pointed=True, round=True),
             LayoutNode("split", "ruleAnd", 50.0, 50.0, lane="P", pointed=True),
             *(LayoutNode(f"b{i}", "task", 120.0, 60.0, lane="P") for i in range(branches)), join]
    edges = [("start", "split"), *(("split", f"b{i}") for i in range(branches)),
             *((f"b{i}", join.id) for i in range(branches))]
    return LayoutGraph(tuple(nodes), tuple(LayoutEdge(s, t) for s, t in edges), lanes)


def _on_outline(point: Point, box: Box, kind: str) -> bool:
    dx, dy = abs(point[0] - box.cx) / (box.w / 2), abs(point[1] - box.cy) / (box.h / 2)
    if kind == "ruleXor":
        return abs(dx + dy - 1) < 0.01
    if kind == "evEnd":
        return abs(math.hypot(dx, dy) - 1) < 0.01
    return abs(max(dx, dy) - 1) < 0.01


@pytest.mark.parametrize("key", FLOW_KEYS)
@pytest.mark.parametrize("join", [LayoutNode("join", "task", 120.0, 60.0, lane="P"),
                                  LayoutNode("join", "ruleXor", 50.0, 50.0, lane="P", pointed=True),
                                  LayoutNode("join", "evEnd", 36.0, 36.0, lane="P", pointed=True, round=True)],
                         ids=lambda node: node.kind)
def test_eight_edges_into_one_join_share_their_last_segment_at_most_three_by_three(
        key: str, join: LayoutNode) -> None:
    # on main six of them ran into the middle of the join's side together
    lanes = (LaneSpec("P", 56.0, 15.0),) if "Swimlane" in key else ()
    layout = get_strategy(key).layout(_fan_in(join, 8, lanes), LayoutOptions())
    assert longest_shared_tail(layout) <= 3
    assert head_on_entries(layout) == []
    box = next(node.box for node in layout.nodes if node.id == "join")
    ends = [edge.points[-1] for edge in layout.edges if edge.target == "join"]
    assert len(ends) == 8 and all(_on_outline(end, box, join.kind) for end in ends)

def _lines(layers: list[list[int]], o: list[float], extents: list[float], node_count: int) -> Lines:
    layer_of = [0] * len(o)
    for index, layer in enumerate(layers):
        for v in layer:
            layer_of[v] = index
    return Lines(layers, layer_of, node_count, o, extents, extents, 12.0)


def test_a_loop_in_stairs_runs_back_along_one_free_line() -> None:
    # target 0 (layer 0) and source 3 (layer 3) with a node on their line in between;
    # the loop's turn and dummies (4..7) step outwards from -50 to -80: 8 bends
    o = [0.0, 0.0, 0.0, 0.0, -50.0, -60.0, -70.0, -80.0]
    extents = [30.0] * 4 + [0.0] * 4
    layers = [[4, 0], [5, 1], [6, 2], [7, 3]]
    loop = Loop(0, source=3, target=0, chain=[4, 5, 6, 7], source_above=True, target_above=True)
    lines = _lines(layers, o, extents, 4)
    assert chain_bends(o, loop.chain) == 8
    track = loop_tracks(lines, [loop], [{}, {}, {}], (-200.0, 200.0))[0]
    assert track.channel is None and track.source_o == track.target_o
    assert -80.0 <= track.source_o <= -50.0


def test_a_loop_whose_lines_are_blocked_changes_lines_once() -> None:
    # as above, with nodes beyond the loop in its end layers (6, 7: no way around), one
    # in layer 1 on the loop's inner lines (4) and one in layer 2 on its outer lines (5):
    # the loop runs along an outer line from its target and an inner one from its
    # source, changing lines in the channel between layers 1 and 2 (4 bends)
    o = [0.0, 0.0, 0.0, 0.0, -45.0, -80.0, -150.0, -150.0, -50.0, -60.0, -70.0, -80.0]
    extents = [30.0, 30.0, 30.0, 30.0, 12.0, 5.0, 10.0, 10.0, 0.0, 0.0, 0.0, 0.0]
    layers = [[6, 8, 0], [9, 4, 1], [5, 10, 2], [7, 11, 3]]
    loop = Loop(0, source=3, target=0, chain=[8, 9, 10, 11], source_above=True, target_above=True)
    track = loop_tracks(_lines(layers, o, extents, 8), [loop], [{}, {}, {}], (-300.0, 300.0))[0]
    assert track.channel == 1
    assert track.target_o in (-70.0, -80.0) and track.source_o in (-50.0, -60.0)
    assert track.line_at(0) == track.target_o and track.line_at(3) == track.source_o
    assert track.line_at(4) is None


def test_a_loop_takes_a_track_crossing_one_edge_more_than_its_stairs() -> None:
    # as above, with another edge's segment stepping from -95 to -65 in the first channel:
    # every track crosses it, the stairs (8 bends) slip past it; one crossing more reads
    # better than a staircase through the flow (on main the loop kept its stairs)
    o = [0.0, 0.0, 0.0, 0.0, -45.0, -80.0, -150.0, -150.0, -50.0, -60.0, -70.0, -80.0]
    extents = [30.0, 30.0, 30.0, 30.0, 12.0, 5.0, 10.0, 10.0, 0.0, 0.0, 0.0, 0.0]
    layers = [[6, 8, 0], [9, 4, 1], [5, 10, 2], [7, 11, 3]]
    loop = Loop(0, source=3, target=0, chain=[8, 9, 10, 11], source_above=True, target_above=True)
    segments = [{0: [(-50.0, -60.0)], 9: [(-95.0, -65.0)]}, {0: [(-60.0, -70.0)]}, {0: [(-70.0, -80.0)]}]
    assert chain_bends(o, loop.chain) == 8
    track = loop_tracks(_lines(layers, o, extents, 8), [loop], segments, (-300.0, 300.0))[0]
    assert track.channel == 1 and (track.source_o, track.target_o) == (-60.0, -70.0)
