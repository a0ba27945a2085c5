"""Routes with fewer bends, as modellers draw them: a flow whose route bends twice or more
is drawn straight, or as an L, where that is clear of the nodes and crosses no more
routes than it did.

The engine draws a branch out of a gateway as a Z (out of the gateway's side, across,
on into the target's side) and the route out of a boundary event joins the route the
engine drew from the event's old place; a modeller draws an L: out of the gateway's
corner (the event's outer side) straight to the target's height, then into its side;
or out of the side and down into the target's top or bottom. Candidates:

- straight, where the two nodes overlap across the line (from the middle of the
  overlap, or of either node where that lies in it);
- an L leaving across the flow (top or bottom, left or right side), turning at the
  target's middle into its facing side;
- an L leaving along the flow, turning at the target's middle into its top or bottom.

A boundary event's route leaves by the event's outer side only (away from its host). A candidate must enter
no node but its ends, and cross no more routes than the route it replaces (runs along a
route of a flow with the same source or target, a shared trunk, do not count). The
first candidate with the fewest bends, then crossings, then length wins. In document
order, each route as the ones before it left it. Deterministic.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from interchange.detour import Direction, Segment, crossings
from interchange.model import BpmnFlow, BpmnModel
from interchange.routing import Route, enters, orthogonal
from layouts.geometry import Box, Point

#: the flows drawn with fewer bends
STRAIGHTENED = ("sequenceFlow", "messageFlow")
SAME = 1e-6  # two middles this close are one


def fewer_bends(model: BpmnModel, shapes: Mapping[str, Box], edges: dict[str, Route],
                outer_side: Mapping[str, Direction],
                pointed: Collection[str]) -> None:
    """Every sequence and message flow between two nodes whose route bends twice or more,
    drawn with fewer bends where a candidate allows it (module docstring).
    ``outer_side`` gives the way out of each boundary event's outer side;
    ``pointed`` are the nodes drawn as circles or diamonds."""
    drawn = [node.id for node in model.nodes if node.id in shapes]
    for flow in model.flows:
        route = edges.get(flow.id)
        if flow.tag not in STRAIGHTENED or not route or len(route) < 4 \
                or None in (model.node(flow.source), model.node(flow.target)):
            continue
        source, target = shapes.get(flow.source), shapes.get(flow.target)
        if source is None or target is None:
            continue
        candidates = [candidate for candidate in _candidates(source, target, outer_side.get(flow.source),
                                                             (flow.source in pointed, flow.target in pointed))
                      if len(candidate) < len(route)]
        if not candidates:
            continue
        area = _bounds([*route, *(point for candidate in candidates for point in candidate)])
        ends = _around(model, flow.source) | _around(model, flow.target)
        obstacles = [shapes[node] for node in drawn if node not in ends and _meets(shapes[node], area)]
        candidates = [candidate for candidate in candidates
                      if not any(enters(p, q, box) for p, q in zip(candidate, candidate[1:]) for box in obstacles)]
        if not candidates:
            continue
        siblings, others = _segments(model, flow, edges, area)
        before = crossings(route, others) + _proper(route, siblings)
        best: tuple[int, int, float, Route] | None = None
        for candidate in candidates:
            met = crossings(candidate, others) + _proper(candidate, siblings)
            if met > before:
                continue
            score = (len(candidate), met, _length(candidate), candidate)
            if best is None or score[:3] < best[:3]:
                best = score
        if best is not None:
            edges[flow.id] = best[3]


def _candidates(source: Box, target: Box, outer: Direction | None, pointed: tuple[bool, bool]) -> list[Route]:
    """Straight and L routes from ``source`` to ``target``; from a boundary event (the
    way out of its ``outer`` side given) only those leaving that way; a ``pointed`` end
    (a circle, a diamond: source's, target's) only at the middle of a side."""
    def allowed(direction: Direction) -> bool:
        return outer is None or outer == direction

    found: list[Route] = []
    # straight across: level, then upright
    for low, high, level in ((max(source.y, target.y), min(source.bottom, target.bottom), True),
                             (max(source.x, target.x), min(source.right, target.right), False)):
        if low > high:
            continue
        middles = (source.cy, target.cy) if level else (source.cx, target.cx)
        fixed = [middle for middle, is_pointed in zip(middles, pointed) if is_pointed]
        if fixed and not (low <= fixed[0] <= high and all(abs(value - fixed[0]) < SAME for value in fixed)):
            continue  # a circle or diamond is left and entered at its corners only
        at = fixed[0] if fixed else next((value for value in middles if low <= value <= high), (low + high) / 2)
        if level and target.x > source.right and allowed((1, 0)):
            found.append(((source.right, at), (target.x, at)))
        elif level and target.right < source.x and allowed((-1, 0)):
            found.append(((source.x, at), (target.right, at)))
        elif not level and target.y > source.bottom and allowed((0, 1)):
            found.append(((at, source.bottom), (at, target.y)))
        elif not level and target.bottom < source.y and allowed((0, -1)):
            found.append(((at, source.y), (at, target.bottom)))
    # out of the top or bottom, then into the target's facing side
    for leave_down in (True, False):
        start_y = source.bottom if leave_down else source.y
        if not allowed((0, 1 if leave_down else -1)) or (target.cy > start_y) != leave_down \
                or target.x <= source.cx <= target.right:
            continue
        end_x = target.x if target.cx > source.cx else target.right
        found.append(orthogonal(((source.cx, start_y), (source.cx, target.cy), (end_x, target.cy))))
    # out of the side facing the target, then into its top or bottom
    rightwards = target.cx > source.cx
    start_x = source.right if rightwards else source.x
    if allowed((1 if rightwards else -1, 0)) and not target.y <= source.cy <= target.bottom \
            and (target.cx > start_x) == rightwards:
        end_y = target.y if target.cy > source.cy else target.bottom
        found.append(orthogonal(((start_x, source.cy), (target.cx, source.cy), (target.cx, end_y))))
    return found


def _segments(model: BpmnModel, flow: BpmnFlow, edges: Mapping[str, Route],
              area: Box) -> tuple[list[Segment], list[Segment]]:
    """The other routes' segments that reach into ``area``: of the flows sharing the
    flow's source or target, and of the rest."""
    siblings: list[Segment] = []
    others: list[Segment] = []
    for other in model.flows:
        route = edges.get(other.id)
        if other.id == flow.id or not route:
            continue
        shared = other.source == flow.source or other.target == flow.target
        (siblings if shared else others).extend((p, q) for p, q in zip(route, route[1:])
                                                if min(p[0], q[0]) <= area.right and area.x <= max(p[0], q[0])
                                                and min(p[1], q[1]) <= area.bottom and area.y <= max(p[1], q[1]))
    return siblings, others


def _proper(route: Route, segments: list[Segment]) -> int:
    """Crossings of ``segments`` inside both (runs along them aside)."""
    count = 0
    for p, q in zip(route, route[1:]):
        for r, s in segments:
            upright, level = ((p, q), (r, s)) if p[0] == q[0] else ((r, s), (p, q))
            if upright[0][0] != upright[1][0] or level[0][1] != level[1][1]:
                continue
            x, y = upright[0][0], level[0][1]
            count += (min(level[0][0], level[1][0]) < x < max(level[0][0], level[1][0])
                      and min(upright[0][1], upright[1][1]) < y < max(upright[0][1], upright[1][1]))
    return count


def _bounds(points: Sequence[Point]) -> Box:
    left, top = min(x for x, _ in points), min(y for _, y in points)
    return Box(left, top, max(x for x, _ in points) - left, max(y for _, y in points) - top)


def _meets(box: Box, area: Box) -> bool:
    """Whether the two touch or overlap, borders included."""
    return box.x <= area.right and area.x <= box.right and box.y <= area.bottom and area.y <= box.bottom


def _length(route: Route) -> float:
    return sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(route, route[1:]))


def _around(model: BpmnModel, node_id: str) -> set[str]:
    """A flow's end, the sub-processes it lies in and a boundary event's host."""
    found = {node_id}
    node = model.node(node_id)
    while node is not None:
        above = node.parent or node.attached_to
        if not above or above in found:
            break
        found.add(above)
        node = model.node(above)
    return found
