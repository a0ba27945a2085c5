"""Rows of boxes wrapped to a pleasant aspect ratio (graphic containers, loose entities).

Expects box sizes in reading order, the gap between neighbours and the wanted
width/height ratio. Guarantees: the boxes keep their order, left to right and row by
row; boxes of one row share their top edge; no two boxes overlap (at least ``gap``
apart on both axes); of all row-width limits that give a different wrapping, the one
whose bounding box comes closest to ``aspect`` (ties: the smaller area, then the
narrower) is used; beyond ``MAX_LIMITS`` distinct limits, every k-th one in width order
is tried, so the cost stays O(n * MAX_LIMITS). Deterministic.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.geometry import Point

Size = tuple[float, float]
MAX_LIMITS = 600


@dataclass(frozen=True, slots=True)
class Packing:
    """Top-left corner of every box relative to the packing's origin, the indices of
    each row, each row's height, and the extent of the whole packing."""

    positions: tuple[Point, ...]
    rows: tuple[tuple[int, ...], ...]
    row_heights: tuple[float, ...]
    width: float
    height: float


def pack_rows(sizes: Sequence[Size], gap: float, aspect: float) -> Packing:
    """The wrapping of ``sizes`` into rows whose bounding box is nearest ``aspect``."""
    if not sizes:
        return Packing((), (), (), 0.0, 0.0)
    widest = max(w for w, _ in sizes)
    limits = {widest}
    running = 0.0
    for w, _ in sizes:
        running += w if running == 0.0 else gap + w
        limits.add(max(running, widest))
    best: Packing | None = None
    best_key: tuple[float, float, float] | None = None
    candidates = sorted(limits)
    # every k-th limit beyond MAX_LIMITS: quadratic work would take seconds at 5,000 boxes
    step = -(-len(candidates) // MAX_LIMITS)
    for limit in candidates[::step]:
        packing = _wrap(sizes, gap, limit)
        key = (round(abs(math.log(packing.width / packing.height / aspect)), 6)
               if packing.height > 0 and packing.width > 0 else math.inf,
               packing.width * packing.height, packing.width)
        if best_key is None or key < best_key:
            best, best_key = packing, key
    assert best is not None
    return best


def _wrap(sizes: Sequence[Size], gap: float, limit: float) -> Packing:
    """Greedy rows no wider than ``limit`` (a box wider than it gets a row of its own)."""
    rows: list[list[int]] = []
    row_width = 0.0
    for index, (w, _) in enumerate(sizes):
        if rows and row_width + gap + w <= limit + 1e-6:
            rows[-1].append(index)
            row_width += gap + w
        else:
            rows.append([index])
            row_width = w
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
    return Packing(tuple(positions), tuple(tuple(row) for row in rows), tuple(heights), width, y - gap)
