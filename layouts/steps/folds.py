"""A wrapped drawing read back unfolded (issue 22, stable layout of wrapped drawings).

Expects a drawing's shapes' extents across the flow and its edges' routes, in flow terms
(along, across), as ``steps/wrap.py`` may have folded them: strips stacked across the
flow, each edge passing a cut leaving its strip at the end, running back through the gap
between the strips and into the next one (four bends). Guarantees: ``folds_of`` finds
those gaps from the geometry alone (so a drawing read from its SVG unfolds too), each
with the shift that puts the strip after it back where it stood along and across the
flow, and where the cut fell; a drawing not wrapped has none, and ``unfolded`` leaves its
points as they are.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from layouts.geometry import Point


@dataclass(frozen=True, slots=True)
class Fold:
    """A gap between two strips of a wrapped drawing, in flow terms: from ``low`` to
    ``high`` across the flow it holds only the wrap tracks. A point beyond ``high`` (and
    before the next fold) stood ``along`` and ``across`` (added) from there before the
    wrapping, give or take a constant gap along the flow at each cut (as wide as the
    cut's tracks). ``cut``: where the cut fell along the flow, unfolded."""

    low: float
    high: float
    along: float
    across: float
    cut: float


#: Coordinates closer than this are the same (routes read back from an SVG are rounded).
_SAME = 1e-3


def folds_of(spans: Sequence[tuple[float, float]], routes: Sequence[Sequence[Point]]) -> list[Fold]:
    """The folds of a drawing ``wrap_layout`` wrapped, read from its geometry alone, in
    flow terms (along, across): ``spans`` are the shapes' extents across the flow,
    ``routes`` the edges' points. Each edge passing a cut bends into the gap between the
    strips and back against the flow (``_fold``'s connector): a gap is where such bridges
    run, no shape reaches and no other segment passes. Empty for a drawing not wrapped."""
    bridges = sorted((bridge for index, route in enumerate(routes) for bridge in _bridges(index, route)),
                     key=lambda bridge: bridge.y)
    folds: list[Fold] = []
    along = across = 0.0
    for gap in _gaps(bridges, spans):
        low, high = gap[0].y, gap[-1].y
        first = gap[0]
        shift_along = first.upper[0] - first.lower[0]
        shift_across = first.upper[1] - first.lower[1]
        consistent = all(abs(b.upper[0] - b.lower[0] - shift_along) < _SAME
                         and abs(b.upper[1] - b.lower[1] - shift_across) < _SAME for b in gap)
        if not consistent or not _only_bridges_pass(low, gap, routes):
            continue
        cut = first.upper[0] + along
        along, across = along + shift_along, across + shift_across
        folds.append(Fold(low, high, along, across, cut))
    return folds


def unfolded(point: Point, folds: Sequence[Fold]) -> Point | None:
    """Where ``point`` (flow terms) stood before the wrapping; None inside a gap."""
    along, across = point
    for fold in reversed(folds):
        if across > fold.high + _SAME:
            return along + fold.along, across + fold.across
        if across >= fold.low - _SAME:
            return None
    return point


@dataclass(frozen=True, slots=True)
class _Bridge:
    """A connector's run through a gap: at ``y`` across the flow, from ``upper`` (its end
    in the strip before) to ``lower`` (in the strip after); segment ``segment`` of route
    ``route`` enters the gap from the strip before."""

    y: float
    upper: Point
    lower: Point
    route: int
    segment: int


def _bridges(index: int, route: Sequence[Point]) -> Iterator[_Bridge]:
    """Down, back against the flow, down (or the same reversed): ``_fold``'s connector."""
    for at, (p0, p1, p2, p3) in enumerate(zip(route, route[1:], route[2:], route[3:])):
        if not (abs(p0[0] - p1[0]) < _SAME and abs(p2[0] - p3[0]) < _SAME and abs(p1[1] - p2[1]) < _SAME):
            continue
        if p1[1] > p0[1] + _SAME and p3[1] > p2[1] + _SAME and p2[0] < p1[0] - _SAME:
            yield _Bridge(p1[1], p0, p3, index, at)
        elif p1[1] < p0[1] - _SAME and p3[1] < p2[1] - _SAME and p2[0] > p1[0] + _SAME:
            yield _Bridge(p1[1], p3, p0, index, at + 2)


def _gaps(bridges: Sequence[_Bridge], spans: Sequence[tuple[float, float]]) -> Iterator[list[_Bridge]]:
    """The bridges grouped by the gap they run in: a shape between two bridges, or
    reaching into their stretch, parts them; a group with shapes on one side only is none."""
    group: list[_Bridge] = []
    for bridge in bridges:
        if group and any(low < bridge.y + _SAME and high > group[0].y - _SAME for low, high in spans):
            yield from _parted(group, spans)
            group = []
        group.append(bridge)
    yield from _parted(group, spans)


def _parted(group: list[_Bridge], spans: Sequence[tuple[float, float]]) -> Iterator[list[_Bridge]]:
    if not group:
        return
    low, high = group[0].y, group[-1].y
    if any(s_low < high + _SAME and s_high > low - _SAME for s_low, s_high in spans):
        return
    if any(s_high < low for _, s_high in spans) and any(s_low > high for s_low, _ in spans):
        yield group


def _only_bridges_pass(low: float, gap: Sequence[_Bridge], routes: Sequence[Sequence[Point]]) -> bool:
    """No segment but the bridges' own enters the gap from the strip before it."""
    line = low - 2 * _SAME
    entering = {(bridge.route, bridge.segment) for bridge in gap}
    return all((index, at) in entering
               for index, route in enumerate(routes) for at, (p, q) in enumerate(zip(route, route[1:]))
               if min(p[1], q[1]) < line < max(p[1], q[1]))
