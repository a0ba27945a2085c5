"""Room left on a laid-out drawing: the boxes and line segments already there, kept in a
grid of cells so that asking whether a new box is free costs what lies near it only.

``Occupied.conflicts`` weighs what a candidate box (grown by a gap) would overlap or be
crossed by: each box or route by the weight it was added with (``SOLID`` unless told:
a line one may rather touch, an association or a frame, weighs ``LIGHT``);
``first_free`` takes the first candidate with none, else the one with the least
weight (the first among equals). Used for flow labels and text annotations
(``interchange.positions``). Deterministic: candidates are tried in the order given.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from interchange.di_metrics import overlaps, segment_enters
from layouts.geometry import Box, Point

CELL = 120.0  # side of a grid cell: about a task's width
SOLID = 3
LIGHT = 1
Segment = tuple[Point, Point]


class Occupied:
    def __init__(self) -> None:
        self._boxes: list[tuple[Box, int]] = []
        self._segments: list[tuple[Segment, int]] = []
        self._cells: dict[tuple[int, int], tuple[list[int], list[int]]] = {}

    def add_box(self, box: Box, weight: int = SOLID) -> None:
        self._boxes.append((box, weight))
        for cell in _cells(box):
            self._cells.setdefault(cell, ([], []))[0].append(len(self._boxes) - 1)

    def add_route(self, route: Sequence[Point], weight: int = SOLID) -> None:
        for p, q in zip(route, route[1:]):
            self._segments.append(((p, q), weight))
            for cell in _cells(_around(p, q)):
                self._cells.setdefault(cell, ([], []))[1].append(len(self._segments) - 1)

    def add_frame(self, box: Box) -> None:
        """A frame's outline (a pool, a lane): a box may lie inside or outside, not across it."""
        corners = ((box.x, box.y), (box.right, box.y), (box.right, box.bottom), (box.x, box.bottom), (box.x, box.y))
        self.add_route(corners, LIGHT)

    def conflicts(self, box: Box, gap: float) -> int:
        """The weight of the boxes the box, grown by ``gap`` on every side, overlaps and of
        the segments that pass through it."""
        grown = Box(box.x - gap, box.y - gap, box.w + 2 * gap, box.h + 2 * gap)
        boxes: set[int] = set()
        segments: set[int] = set()
        for cell in _cells(grown):
            found = self._cells.get(cell)
            if found is not None:
                boxes.update(found[0])
                segments.update(found[1])
        return (sum(weight for box, weight in map(self._boxes.__getitem__, boxes) if overlaps(grown, box))
                + sum(weight for segment, weight in map(self._segments.__getitem__, segments)
                      if segment_enters(*segment, grown)))

    def entered(self, route: Sequence[Point]) -> int:
        """The weight of the boxes whose inside the route passes through."""
        total = 0
        for p, q in zip(route, route[1:]):
            found = {index for cell in _cells(_around(p, q)) for index in self._cells.get(cell, ([], []))[0]}
            total += sum(weight for box, weight in map(self._boxes.__getitem__, found) if segment_enters(p, q, box))
        return total


def first_free(candidates: Iterable[Box], occupied: Occupied, gap: float,
               tied_to: Callable[[Box], Sequence[Point]] | None = None) -> Box | None:
    """The first candidate with no conflict, else the one with the least weight of them;
    None when there is no candidate. ``tied_to`` gives the line that will tie a
    candidate to what it belongs to: the boxes that line enters are conflicts too."""
    best: tuple[int, Box] | None = None
    for box in candidates:
        found = occupied.conflicts(box, gap) + (occupied.entered(tied_to(box)) if tied_to else 0)
        if found == 0:
            return box
        if best is None or found < best[0]:
            best = (found, box)
    return best[1] if best else None


def _around(p: Point, q: Point) -> Box:
    return Box(min(p[0], q[0]), min(p[1], q[1]), abs(p[0] - q[0]), abs(p[1] - q[1]))


def _cells(box: Box) -> Iterable[tuple[int, int]]:
    for column in range(math.floor(box.x / CELL), math.floor(box.right / CELL) + 1):
        for row in range(math.floor(box.y / CELL), math.floor(box.bottom / CELL) + 1):
            yield column, row
