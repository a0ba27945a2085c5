"""How much of a drawing a reader still recognises after an edit (issue 22): two
positioned drawings of one diagram, before and after, compared on the shapes both hold
(but those the edit changed, when the caller names them: issue 22 measures the unchanged
shapes).

- A shape *leaves its row* when it moves across the flow by more than ``ROW_TOLERANCE``
  beyond the drawing's median move across the flow (a shift along the flow is what an
  insertion must cause, and a whole drawing moving down by a lane's height is no loss).
- The *order kept* is, over pairs of shapes clearly apart along an axis before the edit
  (their boxes do not overlap on it), the share whose left/right or above/below relation
  is the same after.
- An edit is *stable* when at most ``STABLE_ROWS_LEFT`` of the shapes leave their row and
  at least ``STABLE_ORDER_KEPT`` of the order is kept.
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from layouts.geometry import Box, Layout

#: Units a shape may move across the flow, beyond the median move, and stay in its row.
ROW_TOLERANCE = 20.0
STABLE_ROWS_LEFT = 0.05
STABLE_ORDER_KEPT = 0.98


@dataclass(frozen=True)
class Stability:
    """The comparison of two drawings on their ``shared`` shapes."""

    shared: int
    rows_left: int
    pairs: int
    pairs_kept: int

    @property
    def rows_left_share(self) -> float:
        return self.rows_left / self.shared if self.shared else 0.0

    @property
    def order_kept(self) -> float:
        return self.pairs_kept / self.pairs if self.pairs else 1.0

    @property
    def stable(self) -> bool:
        return self.rows_left_share <= STABLE_ROWS_LEFT and self.order_kept >= STABLE_ORDER_KEPT

    @classmethod
    def between(cls, before: Layout, after: Layout, vertical: bool, changed: frozenset[str] = frozenset()) -> Stability:
        """Compared on the shapes both drawings hold but ``changed`` (the ones an edit changed)."""
        old = {node.id: node.box for node in before.nodes}
        new = {node.id: node.box for node in after.nodes}
        shared = sorted(old.keys() & new.keys() - changed)
        if not shared:
            return cls(0, 0, 0, 0)
        across = [_across(new[shape], vertical) - _across(old[shape], vertical) for shape in shared]
        typical = median(across)
        rows_left = sum(1 for move in across if abs(move - typical) > ROW_TOLERANCE)
        pairs = kept = 0
        for index, a in enumerate(shared):
            for b in shared[index + 1:]:
                for axis in (0, 1):
                    relation = _relation(old[a], old[b], axis)
                    if relation:
                        pairs += 1
                        kept += relation == _relation(new[a], new[b], axis)
        return cls(len(shared), rows_left, pairs, kept)


def _across(box: Box, vertical: bool) -> float:
    return box.cx if vertical else box.cy


def _relation(a: Box, b: Box, axis: int) -> int:
    """-1 when ``a`` lies wholly before ``b`` on the axis (0: x, 1: y), 1 when after, 0 when
    their extents overlap (not clearly apart)."""
    a_low, a_high = (a.x, a.right) if axis == 0 else (a.y, a.bottom)
    b_low, b_high = (b.x, b.right) if axis == 0 else (b.y, b.bottom)
    if a_high <= b_low:
        return -1
    if b_high <= a_low:
        return 1
    return 0
