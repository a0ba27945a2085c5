"""An orthogonal route around boxes: the cheapest path on a grid of lines kept clear of them.

``detour`` joins one of several start ports to one of several end ports. The grid's lines
run one and two ``clearance`` beside every box near the ports, and through the ports; a
step between two neighbouring grid points is allowed when it enters no box (its inside,
1 unit in from the border, as the DI checker counts). A path costs its length, plus
``bend`` for each turn, ``crossing`` for each crossing of (or run along) another route's
segment, ``near`` for each step closer to a box than the clearance (the first clearance
out of a port aside), and the ports' own costs; A* with the Manhattan distance to the
nearest end port finds the cheapest. A port on a box's border fixes the way the route
leaves or arrives there; a corner kept of an older route only forbids turning back. The
search looks near the ports first and widens when nothing is found there, up to
``MAX_GRID_POINTS``. Deterministic: ties are broken by the order things were found in.
"""
from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.geometry import Box, Point

Direction = tuple[int, int]  # one grid step: (1, 0) right, (-1, 0) left, (0, 1) down, (0, -1) up
Segment = tuple[Point, Point]
State = tuple[int, int, Direction]  # a grid point (column, row) and the way the path came into it
DIRECTIONS: tuple[Direction, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
INSET = 1.0  # a step must go deeper than this into a box to enter it
WIDENINGS = (4.0, 16.0, 64.0)  # how far around the ports the grid reaches, in clearances
MAX_GRID_POINTS = 40_000  # beyond this the search would take too long: the route stays as it was


@dataclass(frozen=True, slots=True)
class Port:
    """Where a route may start or end. ``direction`` is the way it leaves a start or
    arrives at an end; with ``corner`` it may also turn there (a bend, never back)."""

    point: Point
    direction: Direction
    cost: float = 0.0
    corner: bool = False


@dataclass(frozen=True, slots=True)
class Costs:
    """The room kept beside boxes, and what a bend, a crossing of (or run along) another
    route and a step closer to a box than ``clearance`` (or along its border) cost, in length."""

    clearance: float
    bend: float
    crossing: float
    near: float


def detour(starts: Sequence[Port], ends: Sequence[Port], boxes: Sequence[Box],
           others: Sequence[Segment], costs: Costs) -> tuple[Point, ...] | None:
    """The cheapest orthogonal path from a start to an end entering none of ``boxes``,
    corners only (None when there is none)."""
    if not starts or not ends:
        return None
    ports = [port.point for port in (*starts, *ends)]
    for widening in WIDENINGS:
        reach = widening * costs.clearance
        left, top = min(x for x, _ in ports) - reach, min(y for _, y in ports) - reach
        near = Box(left, top, max(x for x, _ in ports) + reach - left, max(y for _, y in ports) + reach - top)
        grid = _Grid(near, [*starts, *ends], boxes, others, costs)
        if len(grid.xs) * len(grid.ys) > MAX_GRID_POINTS:
            break
        found = grid.search(starts, ends)
        if found is not None:
            return found
    return None


def route_cost(route: Sequence[Point], others: Sequence[Segment], costs: Costs) -> float:
    """A whole route priced as ``detour`` prices its steps: length, bends, and crossings
    of (or runs along) other routes; closeness to boxes aside."""
    length = sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(route, route[1:]))
    return length + max(len(route) - 2, 0) * costs.bend + crossings(route, others) * costs.crossing


def crossings(route: Sequence[Point], others: Sequence[Segment]) -> int:
    """How many of the other routes' segments the route's segments cross or run along."""
    return sum(_meet(p, q, r, s) for p, q in zip(route, route[1:]) for r, s in others)


def _meet(p: Point, q: Point, r: Point, s: Point) -> bool:
    """Whether two axis-parallel segments cross inside both or run along each other."""
    for axis in (0, 1):
        other = 1 - axis
        if p[axis] == q[axis] and r[other] == s[other]:  # p-q runs along ``other``, r-s across it
            return (min(r[axis], s[axis]) < p[axis] < max(r[axis], s[axis])
                    and min(p[other], q[other]) < r[other] < max(p[other], q[other]))
        if p[axis] == q[axis] == r[axis] == s[axis]:
            low, high = sorted((p[other], q[other]))
            return low < max(r[other], s[other]) and min(r[other], s[other]) < high
    return False


class _Grid:
    def __init__(self, near: Box, all_ports: list[Port], boxes: Sequence[Box], others: Sequence[Segment],
                 costs: Costs) -> None:
        self.costs = costs
        ports = [port.point for port in all_ports]
        close = [box for box in boxes if _meets(box, near)]
        edge = costs.clearance
        # one and two clearances beside each box: room for a route beside another
        self.xs = sorted({x for x, _ in ports} | {_snap(v) for b in close for gap in (edge, 2 * edge)
                                                   for v in (b.x - gap, b.right + gap)})
        self.ys = sorted({y for _, y in ports} | {_snap(v) for b in close for gap in (edge, 2 * edge)
                                                   for v in (b.y - gap, b.bottom + gap)})
        # a clearance long stretch of each border port's line, outside its box: a route
        # leaves or enters there, close to its own box and perhaps to another beside it
        self.port_stubs = [(port.point, port.direction) for port in all_ports if not port.corner]
        # every box the grid's steps could enter or pass close by
        area = Box(self.xs[0] - edge, self.ys[0] - edge, self.xs[-1] - self.xs[0] + 2 * edge,
                   self.ys[-1] - self.ys[0] + 2 * edge)
        walls = [box for box in boxes if _meets(box, area)]
        # per grid row: the x-ranges of the boxes whose inside it runs through, and of
        # those it passes close by or along; columns alike
        self.row_walls = [_spans(y, walls, INSET, across=1) for y in self.ys]
        self.column_walls = [_spans(x, walls, INSET, across=0) for x in self.xs]
        self.row_close = [_spans(y, walls, INSET - edge, across=1) for y in self.ys]
        self.column_close = [_spans(x, walls, INSET - edge, across=0) for x in self.xs]
        self.row_marks = [_crossings(y, others, across=1) for y in self.ys]
        self.column_marks = [_crossings(x, others, across=0) for x in self.xs]
        self.row_runs = [_runs(y, others, across=1) for y in self.ys]
        self.column_runs = [_runs(x, others, across=0) for x in self.xs]

    def step_cost(self, xi: int, yi: int, direction: Direction) -> float | None:
        """The cost of one step from grid point (xi, yi), None when it is blocked or off the grid."""
        nx, ny = xi + direction[0], yi + direction[1]
        if not (0 <= nx < len(self.xs) and 0 <= ny < len(self.ys)):
            return None
        if direction[1] == 0:
            low, high = sorted((self.xs[xi], self.xs[nx]))
            walls, close, marks, runs = self.row_walls[yi], self.row_close[yi], self.row_marks[yi], self.row_runs[yi]
        else:
            low, high = sorted((self.ys[yi], self.ys[ny]))
            walls, close = self.column_walls[xi], self.column_close[xi]
            marks, runs = self.column_marks[xi], self.column_runs[xi]
        if _overlaps(low, high, walls):
            return None
        crossed = bisect_left(marks, high) - bisect_left(marks, low) + _overlaps(low, high, runs)
        near = _overlaps(low, high, close) and not self._on_stub(xi, yi, nx, ny)
        return high - low + crossed * self.costs.crossing + near * self.costs.near

    def _on_stub(self, xi: int, yi: int, nx: int, ny: int) -> bool:
        """Whether the step from (xi, yi) to (nx, ny) lies on a port's line within a
        clearance of the port (either way along the line: starts and ends alike)."""
        reach = self.costs.clearance
        for (x, y), (dx, dy) in self.port_stubs:
            if dx == 0 and self.xs[xi] == self.xs[nx] == x:
                if max(abs(self.ys[yi] - y), abs(self.ys[ny] - y)) <= reach:
                    return True
            elif dy == 0 and self.ys[yi] == self.ys[ny] == y:
                if max(abs(self.xs[xi] - x), abs(self.xs[nx] - x)) <= reach:
                    return True
        return False

    def search(self, starts: Sequence[Port], ends: Sequence[Port]) -> tuple[Point, ...] | None:
        index_x = {x: i for i, x in enumerate(self.xs)}
        index_y = {y: i for i, y in enumerate(self.ys)}
        goals: dict[tuple[int, int], list[Port]] = {}
        for port in ends:
            goals.setdefault((index_x[port.point[0]], index_y[port.point[1]]), []).append(port)

        def estimate(xi: int, yi: int) -> float:
            x, y = self.xs[xi], self.ys[yi]
            return min(abs(x - port.point[0]) + abs(y - port.point[1]) for port in ends)

        queue: list[tuple[float, int, float, State | None, State | None]] = []
        order = 0

        def push(cost: float, state: State | None, came_from: State | None, bound: float) -> None:
            nonlocal order
            order += 1
            heapq.heappush(queue, (bound, order, cost, state, came_from))

        came: dict[State, State | None] = {}
        done: dict[State, float] = {}
        for port in starts:
            xi, yi = index_x[port.point[0]], index_y[port.point[1]]
            start = (xi, yi, port.direction)
            if port.corner:
                push(port.cost, start, None, port.cost + estimate(xi, yi))
                continue
            # out of a border: settled at once, so that its only way on is straight out
            step = self.step_cost(xi, yi, port.direction)
            if step is not None and start not in done:
                done[start], came[start] = port.cost, None
                nxt = (xi + port.direction[0], yi + port.direction[1], port.direction)
                push(port.cost + step, nxt, start, port.cost + step + estimate(nxt[0], nxt[1]))
        while queue:
            _, _, cost, state, parent = heapq.heappop(queue)
            if state is None:  # the goal, reached from ``parent``
                return self._path(came, parent)
            if state in done:
                continue
            done[state], came[state] = cost, parent
            xi, yi, heading = state
            for port in goals.get((xi, yi), []):
                if heading == port.direction or (port.corner and heading != _back(port.direction)):
                    final = cost + port.cost + (self.costs.bend if heading != port.direction else 0.0)
                    push(final, None, state, final)
            for direction in DIRECTIONS:
                if direction == _back(heading):
                    continue
                step = self.step_cost(xi, yi, direction)
                if step is None:
                    continue
                nxt = (xi + direction[0], yi + direction[1], direction)
                total = cost + step + (self.costs.bend if direction != heading else 0.0)
                if nxt not in done:
                    push(total, nxt, state, total + estimate(nxt[0], nxt[1]))
        return None

    def _path(self, came: dict[State, State | None], last: State | None) -> tuple[Point, ...]:
        points: list[Point] = []
        state = last
        while state is not None:
            point = (self.xs[state[0]], self.ys[state[1]])
            if not points or points[-1] != point:
                points.append(point)
            state = came.get(state)
        points.reverse()
        corners = [points[0]]
        for point, following in zip(points[1:], points[2:]):
            if not (corners[-1][0] == point[0] == following[0] or corners[-1][1] == point[1] == following[1]):
                corners.append(point)
        if len(points) > 1:
            corners.append(points[-1])
        return tuple(corners)


def _spans(line: float, boxes: Sequence[Box], inset: float, across: int) -> list[tuple[float, float]]:
    """The stretches of a grid line (coordinate ``across`` is ``line`` along it) inside
    the boxes, each shrunk by ``inset`` (grown when negative)."""
    spans: list[tuple[float, float]] = []
    for box in boxes:
        low, high = (box.y, box.bottom) if across else (box.x, box.right)
        start, end = (box.x, box.right) if across else (box.y, box.bottom)
        if low + inset < line < high - inset:
            spans.append((start + inset, end - inset))
    return spans


def _overlaps(low: float, high: float, spans: Sequence[tuple[float, float]]) -> bool:
    return any(low < span_high and high > span_low for span_low, span_high in spans)


def _snap(value: float) -> float:
    return round(value, 6)


def _crossings(line: float, others: Sequence[Segment], across: int) -> list[float]:
    """Where other routes' segments cross a grid line (coordinate ``across`` is ``line``
    along it), sorted."""
    along = 1 - across
    return sorted(p[along] for p, q in others
                  if p[along] == q[along] and min(p[across], q[across]) < line < max(p[across], q[across]))


def _runs(line: float, others: Sequence[Segment], across: int) -> list[tuple[float, float]]:
    """The stretches of a grid line that other routes' segments run along (a run along one
    costs as much as a crossing: the two would read as one line)."""
    along = 1 - across
    return [(min(p[along], q[along]), max(p[along], q[along])) for p, q in others
            if p[across] == q[across] == line and p[along] != q[along]]


def _back(direction: Direction) -> Direction:
    return (-direction[0], -direction[1])


def _meets(box: Box, area: Box) -> bool:
    return box.x < area.right and area.x < box.right and box.y < area.bottom and area.y < box.bottom

