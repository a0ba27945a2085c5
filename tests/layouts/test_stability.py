"""The stability measure of issue 22 on hand-made drawings, where the answer is known."""
from __future__ import annotations

from layouts.geometry import Box, Layout, NodeBox
from layouts.stability import Stability


def _drawing(*placed: tuple[str, float, float]) -> Layout:
    return Layout(1000, 1000, tuple(NodeBox(name, Box(x, y, 40, 40)) for name, x, y in placed))


BEFORE = _drawing(("a", 0, 0), ("b", 100, 0), ("c", 200, 0), ("d", 100, 100))


def test_a_shift_along_the_flow_and_a_common_move_down_keep_everything() -> None:
    after = _drawing(("a", 0, 50), ("new", 100, 50), ("b", 200, 50), ("c", 300, 50), ("d", 200, 150))
    measured = Stability.between(BEFORE, after, vertical=False)
    assert (measured.shared, measured.rows_left, measured.order_kept, measured.stable) == (4, 0, 1.0, True)


def test_a_shape_moving_to_another_row_leaves_it_and_breaks_order() -> None:
    after = _drawing(("a", 0, 0), ("b", 100, 0), ("c", 200, 0), ("d", 100, -100))
    measured = Stability.between(BEFORE, after, vertical=False)
    assert measured.rows_left == 1
    # d was below a, b and c and is now above them; its left/right relations to a and c hold.
    assert (measured.pairs, measured.pairs - measured.pairs_kept) == (8, 3)
    assert not measured.stable


def test_vertical_flow_measures_rows_across_x() -> None:
    after = _drawing(("a", 30, 0), ("b", 130, 0), ("c", 230, 0), ("d", 130, 100))
    assert Stability.between(BEFORE, after, vertical=True).rows_left == 0
    moved = _drawing(("a", 0, 0), ("b", 100, 0), ("c", 200, 0), ("d", 300, 100))
    assert Stability.between(BEFORE, moved, vertical=True).rows_left == 1
