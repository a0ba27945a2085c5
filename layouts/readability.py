"""What a reader sees in a flow drawing, counted on a positioned ``Layout`` (issue 21).

Crossings alone miss what makes a drawing hard to follow: a loop-back that climbs in
stairs, two edges arriving at a join along one line from opposite sides (it reads as one
line running past the gateway), many edges sharing the last stretch into a shape (the
reader cannot tell where each comes from), short steps, unrelated edges on one line and
a drawing far wider than high. Plain functions over plain data, used by the tests and by
``benchmarks/readability.py``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from layouts.geometry import Box, EdgeRoute, Layout, Point
from layouts.steps.straighten import STEP_LIMIT

#: Loop-backs with more bends than this read as staircases (issue 21).
LOOP_BEND_LIMIT = 4
#: More edges than this sharing their last segment into a shape cannot be told apart.
SHARED_TAIL_LIMIT = 3


def bends(route: EdgeRoute) -> int:
    """Turns along the route (points where the direction changes)."""
    return sum(1 for a, b, c in zip(route.points, route.points[1:], route.points[2:])
               if _direction(a, b) != _direction(b, c))


def _direction(p: Point, q: Point) -> tuple[int, int]:
    return ((q[0] > p[0]) - (q[0] < p[0]), (q[1] > p[1]) - (q[1] < p[1]))


def is_loop_back(route: EdgeRoute, boxes: dict[str, Box], vertical: bool) -> bool:
    """An edge whose target lies before its source along the flow."""
    source, target = boxes[route.source], boxes[route.target]
    if vertical:
        return target.cy < source.cy - 0.5
    return target.cx < source.cx - 0.5


def _segments(route: EdgeRoute) -> Iterator[tuple[Point, Point]]:
    return zip(route.points, route.points[1:])


def _common_run(p: Point, q: Point, r: Point, s: Point) -> float:
    """Length over which two axis-parallel segments lie on one line."""
    for along in (0, 1):
        across = 1 - along
        if p[across] == q[across] == r[across] == s[across]:
            low = max(min(p[along], q[along]), min(r[along], s[along]))
            high = min(max(p[along], q[along]), max(r[along], s[along]))
            return max(0.0, high - low)
    return 0.0


def _corners(route: EdgeRoute) -> list[Point]:
    return [point for index, point in enumerate(route.points) if index == 0 or point != route.points[index - 1]]


def _last_segment(route: EdgeRoute) -> tuple[Point, Point]:
    points = _corners(route)
    return points[-2], points[-1]


def head_on_entries(layout: Layout) -> list[tuple[str, str]]:
    """Pairs of edges into one target arriving along one line from opposite sides, read
    as one line running past the target: either their last segments meet head-on, or
    they run at each other on one line and turn together into a shared last stretch
    (a T in front of a join)."""
    by_target: dict[str, list[EdgeRoute]] = {}
    for edge in layout.edges:
        if len(_corners(edge)) >= 2:
            by_target.setdefault(edge.target, []).append(edge)
    pairs = []
    for routes in by_target.values():
        for index, a in enumerate(routes):
            for b in routes[index + 1:]:
                if _head_on(_corners(a), _corners(b)):
                    pairs.append((_name(a), _name(b)))
    return pairs


def _head_on(a: list[Point], b: list[Point]) -> bool:
    if _opposite_on_one_line(a[-2], a[-1], b[-2], b[-1]):
        return True
    return (len(a) >= 3 and len(b) >= 3 and _common_run(a[-2], a[-1], b[-2], b[-1]) > 1.0
            and _opposite_on_one_line(a[-3], a[-2], b[-3], b[-2]))


def _opposite_on_one_line(p: Point, q: Point, r: Point, s: Point) -> bool:
    first, second = _direction(p, q), _direction(r, s)
    if first != (-second[0], -second[1]):
        return False
    if p[1] == q[1]:
        return abs(p[1] - r[1]) < 0.5 and abs(r[1] - s[1]) < 0.5
    return abs(p[0] - r[0]) < 0.5 and abs(r[0] - s[0]) < 0.5


def longest_shared_tail(layout: Layout) -> int:
    """The most edges whose last segments into one target overlap on one line (1: none share)."""
    by_target: dict[str, list[tuple[Point, Point]]] = {}
    for edge in layout.edges:
        if len(edge.points) >= 2:
            by_target.setdefault(edge.target, []).append(_last_segment(edge))
    longest = 1 if layout.edges else 0
    for tails in by_target.values():
        for p, q in tails:
            sharing = sum(1 for r, s in tails if _common_run(p, q, r, s) > 1.0)
            longest = max(longest, sharing)
    return longest


def shared_tracks(layout: Layout) -> list[tuple[str, str]]:
    """Pairs of edges without a common source or target that run along one line."""
    pairs = []
    for index, a in enumerate(layout.edges):
        for b in layout.edges[index + 1:]:
            if a.source == b.source or a.target == b.target:
                continue
            if any(_common_run(p, q, r, s) > 1.0 for p, q in _segments(a) for r, s in _segments(b)):
                pairs.append((_name(a), _name(b)))
    return pairs


def jogged_edges(layout: Layout, limit: float = STEP_LIMIT) -> list[str]:
    """Edges with a step shorter than ``limit`` between two segments running the same way."""
    jogged = []
    for edge in layout.edges:
        points = edge.points
        for a, b, c, d in zip(points, points[1:], points[2:], points[3:]):
            first, last = (b[0] - a[0], b[1] - a[1]), (d[0] - c[0], d[1] - c[1])
            same_way = first[0] * last[0] + first[1] * last[1] > 0 and first[0] * last[1] == first[1] * last[0]
            if same_way and 0.5 < abs(c[0] - b[0]) + abs(c[1] - b[1]) < limit:
                jogged.append(_name(edge))
                break
    return jogged


def crossings(layout: Layout) -> int:
    """Proper crossings between axis-parallel segments of different edges."""
    horizontal: list[tuple[int, float, float, float]] = []
    vertical: list[tuple[int, float, float, float]] = []
    for index, edge in enumerate(layout.edges):
        for p, q in _segments(edge):
            if abs(p[1] - q[1]) < 1e-9:
                horizontal.append((index, p[1], min(p[0], q[0]), max(p[0], q[0])))
            else:
                vertical.append((index, p[0], min(p[1], q[1]), max(p[1], q[1])))
    return sum(1 for h_edge, y, x0, x1 in horizontal for v_edge, x, y0, y1 in vertical
               if h_edge != v_edge and x0 < x < x1 and y0 < y < y1)


def _name(route: EdgeRoute) -> str:
    return f"{route.source}->{route.target}"


@dataclass(frozen=True)
class Readability:
    """The counts of one drawing."""

    edges: int
    crossings: int
    bends: Counter[int]
    loop_backs: int
    loop_backs_over_limit: int
    forward_over_limit: int
    head_on: int
    longest_shared_tail: int
    shared_tracks: int
    jogs: int
    aspect: float

    @classmethod
    def of(cls, layout: Layout, vertical: bool) -> Readability:
        boxes = {node.id: node.box for node in layout.nodes}
        routed = [edge for edge in layout.edges if edge.source in boxes and edge.target in boxes]
        loops = [edge for edge in routed if is_loop_back(edge, boxes, vertical)]
        forward = [edge for edge in routed if not is_loop_back(edge, boxes, vertical)]
        width, height = max(layout.width, 1.0), max(layout.height, 1.0)
        return cls(
            edges=len(layout.edges),
            crossings=crossings(layout),
            bends=Counter(bends(edge) for edge in layout.edges),
            loop_backs=len(loops),
            loop_backs_over_limit=sum(1 for edge in loops if bends(edge) > LOOP_BEND_LIMIT),
            forward_over_limit=sum(1 for edge in forward if bends(edge) > LOOP_BEND_LIMIT),
            head_on=len(head_on_entries(layout)),
            longest_shared_tail=longest_shared_tail(layout),
            shared_tracks=len(shared_tracks(layout)),
            jogs=len(jogged_edges(layout)),
            aspect=max(width / height, height / width),
        )
