"""Message flows between a flow node and a pool (a black box, usually), or between two
pools: routed after every other flow, each across at the column where it costs least
(``to_pool``); between two pools that touch, round their side
(``between_pools``).

Worked out for pools stacked top to bottom (flow left to right); columns of pools are
the same turned. A route leaves the node's border facing the pool, turns into a channel
one spacing beyond the node, runs along it to a column clear of flow nodes down to the
pool, and across to the pool's border. Among the columns (the node's middle, and one
spacing beside each flow node) the one whose route costs least wins, then the nearest:
a crossing of a route drawn so far costs 1, a run along one ``RUN_ALONG``, a step aside
to another column (two bends) ``Z_COST``, so that a straight line across a route or two
beats a Z. A flat node adds columns a spacing or two
either side of its middle, tried after the others of the same length, so that several
flows out of one side run straight side by side. Deterministic.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from interchange.routing import Route, enters, orthogonal
from layouts.geometry import Box

#: what a step aside (two bends) costs, in crossings: a reader follows a straight line
#: across another route more easily than a Z
Z_COST = 2
#: what running along another route costs, in crossings: the two lines read as one
RUN_ALONG = Z_COST + 1


def to_pool(node: Box, pool: Box, obstacles: Sequence[Box], routed: Iterable[Route], horizontal: bool,
            spacing: float, flat: bool = True) -> Route:
    """From the node's border to the pool's border, entering no obstacle where a column
    allows it, at the least cost against the ``routed`` routes (module docstring), then as
    short as it can.
    The route leaves by the border facing the pool, or by the one opposite and round the
    node; a ``flat`` node (an activity's rectangle) anywhere along the border, straight
    into a column under it or near the corner towards the column; any other node (a
    circle, a diamond) at the middle of the border."""
    turn = _same if horizontal else _transposed
    node, pool = turn(node), turn(pool)
    obstacles = [turn(box) for box in obstacles]
    routes = [tuple(turn(point) for point in route) for route in routed]
    down = pool.cy > node.cy
    step = spacing if down else -spacing
    end_y = pool.y if down else pool.bottom
    inset = min(spacing, node.w / 2)
    columns = {x for box in (node, *obstacles) for x in (box.x - spacing, box.right + spacing)} | {node.cx}
    # several flows out of one side of a flat node run straight side by side, a spacing apart
    beside_middle = {x for step in (-2, -1, 1, 2) if flat
                     and node.x + inset <= (x := node.cx + step * spacing) <= node.right - inset} - columns
    columns |= beside_middle
    candidates: list[tuple[float, float, float, float, float, _Segments]] = []
    for start_y, beside in (((node.bottom, False), (node.y, True)) if down else ((node.y, False), (node.bottom, True))):
        channel_y = start_y - step if beside else start_y + step
        segments = _Segments(routes, channel_y, start_y, end_y)
        for x in sorted(x for x in columns if pool.x < x < pool.right and not (beside and node.x <= x <= node.right)):
            for start_x in {node.cx, min(max(x, node.x + inset), node.right - inset) if flat else node.cx}:
                length = abs(start_x - x) + (abs(end_y - start_y) if start_x == x else
                                             abs(channel_y - start_y) + abs(end_y - channel_y))
                candidates.append((length, x, start_x, start_y, channel_y, segments))
    def order(candidate: tuple[float, float, float, float, float, _Segments]) -> tuple[float, ...]:
        length, x, start_x, start_y, channel_y, _ = candidate
        return length, x in beside_middle, x, start_x, start_y, channel_y

    # shortest first, a column beside the node's middle after the others as long: the first
    # clear route of each number of crossings is the one to beat
    best: tuple[int, Route] | None = None
    for _, x, start_x, start_y, channel_y, segments in sorted(candidates, key=order):
        bends = 0 if x == start_x else Z_COST
        if best is not None and bends >= best[0]:
            continue
        cost = segments.met(start_x, x) + bends
        if best is not None and cost >= best[0]:
            continue
        route = orthogonal(((start_x, start_y), (start_x, channel_y), (x, channel_y), (x, end_y)))
        if not any(enters(p, q, box) for p, q in zip(route, route[1:]) for box in obstacles):
            best = (cost, route)
            if cost == 0:
                break
    if best is not None:
        return tuple(turn(point) for point in best[1])
    start_y = node.bottom if down else node.y
    return tuple(turn(point) for point in ((node.cx, start_y), (node.cx, end_y)))


def between_pools(source: Box, target: Box, obstacles: Sequence[Box], routed: Iterable[Route], horizontal: bool,
                  spacing: float, nth: int = 0, count: int = 1) -> Route:
    """From one pool's border to the other's. Pools at least a spacing apart: straight
    across at a column as ``to_pool`` picks it. Pools that touch (bands side by side) leave
    no room between them: the route runs round their header side (left of horizontal
    bands, above columns), out of the source a little before their common border and into
    the target a little after it; the ``nth`` of the ``count`` flows between the same two
    pools lies outside the ones before it, so that none crosses or runs along another."""
    turn = _same if horizontal else _transposed
    one, other = turn(source), turn(target)
    upper, lower = (one, other) if one.cy <= other.cy else (other, one)
    if lower.y - upper.bottom >= spacing:
        return to_pool(source, target, obstacles, routed, horizontal, spacing)
    offset = (nth + 1) * min(spacing, min(upper.h, lower.h) / (2 * (count + 1)))
    side = min(upper.x, lower.x) - offset
    route = ((upper.x, upper.bottom - offset), (side, upper.bottom - offset),
             (side, lower.y + offset), (lower.x, lower.y + offset))
    return tuple(turn(point) for point in (route if upper is one else route[::-1]))


@dataclass(frozen=True, slots=True)
class _Spans:
    """Segments along one axis, as (level, low, high): sorted so that a segment across
    them counts its crossings by bisection."""

    lows: list[float]
    highs: list[float]
    levels: dict[float, list[tuple[float, float]]]

    @classmethod
    def of(cls, spans: Sequence[tuple[float, float, float]]) -> _Spans:
        levels: dict[float, list[tuple[float, float]]] = {}
        for level, low, high in spans:
            levels.setdefault(level, []).append((low, high))
        return cls(sorted(low for _, low, _ in spans), sorted(high for _, _, high in spans), levels)

    def across(self, at: float) -> int:
        """How many of them have ``at`` strictly inside their span."""
        return bisect_left(self.lows, at) - bisect_right(self.highs, at)

    def along(self, level: float, low: float, high: float) -> int:
        """How many of them lie on ``level`` and overlap low..high."""
        if level not in self.levels:
            return 0
        return sum(low < their_high and their_low < high for their_low, their_high in self.levels.get(level, ()))


class _Segments:
    """The routed segments a candidate route to the pool can meet, sorted for the route's
    three parts: the stub out of the node (from ``start_y`` to ``channel_y``), the channel
    along ``channel_y`` and the run across to the pool (from ``channel_y`` to ``end_y``)."""

    def __init__(self, routes: Sequence[Route], channel_y: float, start_y: float, end_y: float) -> None:
        segments = [(p, q) for route in routes for p, q in zip(route, route[1:])]
        upright = [_span(p[0], p[1], q[1]) for p, q in segments if p[0] == q[0] and p[1] != q[1]]
        level = [_span(p[1], p[0], q[0]) for p, q in segments if p[1] == q[1] and p[0] != q[0]]
        self.channel_y = channel_y
        self.stub = _ordered(start_y, channel_y)
        self.run = _ordered(channel_y, end_y)
        self.through_channel = sorted(x for x, low, high in upright if low < channel_y < high)
        self.on_channel = _Spans.of([span for span in level if span[0] == channel_y])
        self.across_run = _Spans.of([span for span in level if self.run[0] < span[0] < self.run[1]])
        self.across_stub = _Spans.of([span for span in level if self.stub[0] < span[0] < self.stub[1]])
        self.upright = _Spans.of(upright)

    def met(self, start_x: float, x: float) -> int:
        """Crossings of other routes (a run along one: ``RUN_ALONG``) by the route out of
        the node at ``start_x``, along the channel to ``x`` (none when the two are equal)
        and across to the pool."""
        stub = self.across_stub.across(start_x) + RUN_ALONG * self.upright.along(start_x, *self.stub)
        run = self.across_run.across(x) + RUN_ALONG * self.upright.along(x, *self.run)
        if x == start_x:
            return stub + run
        low, high = _ordered(start_x, x)
        channel = (bisect_left(self.through_channel, high) - bisect_right(self.through_channel, low)
                   + RUN_ALONG * self.on_channel.along(self.channel_y, low, high))
        return stub + channel + run


def _span(level: float, one_end: float, other_end: float) -> tuple[float, float, float]:
    return (level, *_ordered(one_end, other_end))


def _ordered(a: float, b: float) -> tuple[float, float]:
    return (a, b) if a <= b else (b, a)


def _transposed(item: Any) -> Any:
    """A box or point with x and y swapped (its own inverse)."""
    if isinstance(item, Box):
        return Box(item.y, item.x, item.h, item.w)
    return (item[1], item[0])


def _same(item: Any) -> Any:
    return item
