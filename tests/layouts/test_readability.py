"""The readability counts of issue 21 on hand-made drawings, where the answer is known."""
from __future__ import annotations

from layouts.geometry import Box, EdgeRoute, Layout, NodeBox
from layouts.readability import (
    Readability,
    bends,
    head_on_entries,
    is_loop_back,
    longest_shared_tail,
)

#: Three shapes on a row (a, join, b) and one below (c); flow left to right.
BOXES = (NodeBox("a", Box(0, 0, 40, 40)), NodeBox("join", Box(100, 0, 40, 40)),
         NodeBox("b", Box(200, 0, 40, 40)), NodeBox("c", Box(100, 100, 40, 40)))


def _layout(*edges: EdgeRoute, width: float = 240, height: float = 140) -> Layout:
    return Layout(width, height, BOXES, edges)


def test_bends_count_turns_not_points() -> None:
    straight = EdgeRoute("a", "join", ((40, 20), (70, 20), (100, 20)))
    stairs = EdgeRoute("a", "b", ((40, 20), (60, 20), (60, 50), (80, 50), (80, 70), (220, 70), (220, 40)))
    assert bends(straight) == 0
    assert bends(stairs) == 5


def test_head_on_entries_are_opposite_arrivals_on_one_line() -> None:
    from_left = EdgeRoute("a", "join", ((40, 20), (100, 20)))
    from_right = EdgeRoute("b", "join", ((200, 20), (140, 20)))
    from_below = EdgeRoute("c", "join", ((120, 100), (120, 40)))
    assert head_on_entries(_layout(from_left, from_right)) == [("a->join", "b->join")]
    assert head_on_entries(_layout(from_left, from_below)) == []
    # Opposite sides but on different lines: not head-on.
    shifted = EdgeRoute("b", "join", ((200, 30), (140, 30)))
    assert head_on_entries(_layout(from_left, shifted)) == []


def test_a_t_in_front_of_a_join_is_head_on() -> None:
    """From above and from below onto one vertical line, then one stub into the join."""
    from_above = EdgeRoute("a", "join", ((20, 0), (20, -20), (80, -20), (80, 20), (100, 20)))
    from_below = EdgeRoute("c", "join", ((100, 120), (80, 120), (80, 20), (100, 20)))
    assert head_on_entries(_layout(from_above, from_below)) == [("a->join", "c->join")]
    beside = EdgeRoute("c", "join", ((100, 120), (70, 120), (70, 20), (100, 20)))
    assert head_on_entries(_layout(from_above, beside)) == []


def test_longest_shared_tail_counts_edges_overlapping_into_one_target() -> None:
    tails = [EdgeRoute(source, "b", ((70, y), (170, y), (170, 20), (200, 20))) for source, y in
             (("a", 60.0), ("join", 80.0), ("c", 120.0))]
    separate = EdgeRoute("a", "join", ((40, 20), (100, 20)))
    assert longest_shared_tail(_layout(*tails, separate)) == 3
    assert longest_shared_tail(_layout(separate)) == 1


def test_readability_separates_loop_backs_from_forward_edges() -> None:
    forward = EdgeRoute("a", "b", ((40, 20), (200, 20)))
    loop = EdgeRoute("b", "a", ((220, 40), (220, 60), (200, 60), (200, 80), (20, 80), (20, 40)))
    boxes = {node.id: node.box for node in BOXES}
    assert is_loop_back(loop, boxes, vertical=False) and not is_loop_back(forward, boxes, vertical=False)
    counts = Readability.of(_layout(forward, loop, width=480, height=120), vertical=False)
    assert (counts.loop_backs, counts.loop_backs_over_limit, counts.forward_over_limit) == (1, 0, 0)
    assert counts.bends == {0: 1, 4: 1}
    assert counts.aspect == 4.0
