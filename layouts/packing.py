"""Rows of boxes wrapped to a pleasant aspect ratio (graphic containers and bands).

Expects box sizes (or widths) in reading order and the gap between neighbours.
Guarantees: the boxes keep their order, left to right and row by row; no row is wider
than its limit unless one box alone is; for a given number of rows, the boxes are
spread so that the widest row is as narrow as it can be (a last row is never left
nearly empty while the others are full). ``pack_rows``: the row count comes from the
row-width limit whose greedy wrapping comes closest to ``aspect`` (ties: the smaller
area, then the narrower), boxes of one row share their top edge, at least ``gap``
apart on both axes; beyond ``Budgets.packing_widths`` distinct limits, every k-th one
in width order is tried, so the cost stays O(n * packing_widths). Deterministic.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.geometry import Point

Size = tuple[float, float]
Rows = tuple[tuple[int, ...], ...]
#: Bisection steps of the narrowest limit for a row count; far below a drawing unit.
BISECTIONS = 40


@dataclass(frozen=True, slots=True)
class Packing:
    """Top-left corner of every box relative to the packing's origin, the indices of
    each row, each row's height, and the extent of the whole packing."""

    positions: tuple[Point, ...]
    rows: Rows
    row_heights: tuple[float, ...]
    width: float
    height: float


def pack_rows(sizes: Sequence[Size], gap: float, aspect: float, budgets: Budgets = DEFAULT_BUDGETS) -> Packing:
    """The balanced wrapping of ``sizes`` into rows whose bounding box is nearest ``aspect``."""
    if not sizes:
        return Packing((), (), (), 0.0, 0.0)
    widths = [w for w, _ in sizes]
    widest = max(widths)
    limits = {widest}
    running = 0.0
    for w in widths:
        running += w if running == 0.0 else gap + w
        limits.add(max(running, widest))
    best: Packing | None = None
    best_key: tuple[float, float, float] | None = None
    candidates = sorted(limits)
    # every k-th limit beyond the budget: quadratic work would take seconds at 5,000 boxes
    step = -(-len(candidates) // budgets.packing_widths)
    for limit in candidates[::step]:
        packing = _wrap(sizes, gap, limit)
        key = (round(abs(math.log(packing.width / packing.height / aspect)), 6)
               if packing.height > 0 and packing.width > 0 else math.inf,
               packing.width * packing.height, packing.width)
        if best_key is None or key < best_key:
            best, best_key = packing, key
    assert best is not None
    return _positions(sizes, gap, _balance(widths, gap, len(best.rows)))


def balanced_rows(widths: Sequence[float], gap: float, limit: float) -> Rows:
    """The fewest rows no wider than ``limit`` (a box wider than it alone in a row),
    balanced so that the widest of them is as narrow as it can be."""
    if not widths:
        return ()
    return _balance(widths, gap, len(_greedy(widths, gap, limit)))


def _wrap(sizes: Sequence[Size], gap: float, limit: float) -> Packing:
    """The greedy wrapping of ``sizes`` at ``limit``, placed."""
    return _positions(sizes, gap, _greedy([w for w, _ in sizes], gap, limit))


def _balance(widths: Sequence[float], gap: float, count: int) -> Rows:
    """``count`` rows (or fewer) whose widest row is narrowest: the least limit at which
    greedy wrapping needs no more than ``count`` rows, found by bisection."""
    low = max(widths)
    high = sum(widths) + gap * (len(widths) - 1)
    if len(_greedy(widths, gap, low)) <= count:
        return _greedy(widths, gap, low)
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if len(_greedy(widths, gap, middle)) <= count:
            high = middle
        else:
            low = middle
    return _greedy(widths, gap, high)


def _greedy(widths: Sequence[float], gap: float, limit: float) -> Rows:
    """Rows filled left to right no wider than ``limit`` (a box wider than it gets a
    row of its own)."""
    rows: list[list[int]] = []
    row_width = 0.0
    for index, w in enumerate(widths):
        if rows and row_width + gap + w <= limit + 1e-6:
            rows[-1].append(index)
            row_width += gap + w
        else:
            rows.append([index])
            row_width = w
    return tuple(tuple(row) for row in rows)


def _positions(sizes: Sequence[Size], gap: float, rows: Rows) -> Packing:
    positions: list[Point] = [(0.0, 0.0)] * len(sizes)
    heights: list[float] = []
    y = 0.0
    width = 0.0
    for row in rows:
        x = 0.0
        for index in row:
            positions[index] = (x, y)
            x += sizes[index][0] + gap
        width = max(width, x - gap)
        height = max(sizes[index][1] for index in row)
        heights.append(height)
        y += height + gap
    return Packing(tuple(positions), rows, tuple(heights), width, y - gap)
