"""Routes of a laid-out BPMN drawing besides the engine's own, and their repair around
boundary events.

The engine lays a boundary event out as its host (it is no node of the layout);
``positions`` then puts it onto a border of the host, where it may lie across routes
drawn for the host. Here:

- ``from_boundary_event``: a route out of a boundary event starts at the event's outer
  side and joins the route the engine drew from the host;
- ``clear_of_shapes``: a flow whose route passes through a flow node other than its ends
  (boundary events included, and for a route out of a boundary event its host) is
  rerouted around them by ``detour``: from the corner before the first such segment to
  the one after the last, or anew from end to end where that costs less (fewer
  crossings); where the new stretch starts or ends at a node, the route may move to
  another port of the node, one that no boundary event covers and no other route uses.
  A text annotation's association is left straight;
- ``fewer_crossings``: the flows whose crossings the engine did not weigh (message
  flows between nodes, the flows out of a boundary event and out of its host) routed
  anew by ``detour``, from any free port to any, where that crosses fewer flows (or as
  many flows, fewer routes of any kind, and bends no more);
- the routes the layout graph cannot hold: ``self_loop``, ``towards`` (an association
  with a flow), ``across_bands`` (a message flow between two nodes), ``nearest_line``
  (a text annotation's association) and ``straight_between`` (the rest; a message flow
  to a pool: ``pool_routes``).

Routes are tuples of corners with axis-parallel segments (an annotation's association
may slant); deterministic.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from interchange.detour import Costs, Direction, Port, Segment, crossings, detour, route_cost
from interchange.model import ANNOTATION, BpmnFlow, BpmnModel
from layouts.geometry import Box, Point

Route = tuple[Point, ...]
BEND = 2.0  # a bend costs as much as this many edge spacings of length
CROSSING = 20.0  # a crossing (or a run along another route) costs this many
NEAR = 10.0  # a step close by a node or along its border costs this many
PORT_CHANGE = 4.0  # leaving or entering a node elsewhere than the engine did costs this many
SNAP_DIGITS = 6  # as interchange.detour snaps its grid
LEVELS_TRIED = 12  # levels a message flow between two nodes may run along, nearest the middle


def clear_of_shapes(model: BpmnModel, shapes: Mapping[str, Box], edges: dict[str, Route], spacing: float) -> None:
    """Every flow between two drawn ends rerouted where it passes through a flow node
    other than its ends (and the sub-processes around them), in document order; a route
    still waiting for its turn is not in the way of those before it."""
    costs = Costs(spacing, BEND * spacing, CROSSING * spacing, NEAR * spacing)
    drawn = [node.id for node in model.nodes if node.id in shapes]
    jobs = [job for flow in model.flows
            if not annotates(model, flow) and (job := _job(model, flow, shapes, edges, drawn)) is not None]
    waiting = {job.flow.id for job in jobs}
    for job in jobs:
        waiting.discard(job.flow.id)
        others = [segment for key, other in edges.items() if key != job.flow.id and key not in waiting
                  for segment in zip(_snapped(other), _snapped(other)[1:])]
        rerouted = job.reroute(model, shapes, others, costs)
        if rerouted is not None:
            edges[job.flow.id] = rerouted


@dataclass(frozen=True, slots=True)
class _Job:
    """A flow to reroute: its route, the boxes it must not enter (``own``: its ends',
    which it may touch at its ports) and the first and last of its segments in the way."""

    flow: BpmnFlow
    route: Route
    obstacles: list[Box]
    own: list[Box]
    stretch: tuple[int, int]

    def reroute(self, model: BpmnModel, shapes: Mapping[str, Box], others: list[Segment],
                costs: Costs) -> Route | None:
        """From the corner before the first segment in the way to the one after the last,
        or the whole route anew when that finds a cheaper one (fewer crossings)."""
        route, last_point = self.route, len(self.route) - 1
        around = _Around(self.obstacles, others, costs.clearance)
        leaving = around.ports(model, self.flow.source, shapes, route)
        arriving = [_arriving(port) for port in around.ports(model, self.flow.target, shapes, route[::-1])]
        found: list[Route] = []
        for first, last in dict.fromkeys(((max(self.stretch[0] - 1, 0), min(self.stretch[1] + 2, last_point)),
                                          (0, last_point))):
            starts = leaving if first == 0 else _corner(route[first - 1], route[first])
            ends = arriving if last == last_point else _corner(route[last], route[last + 1])
            path = detour(starts, ends, self.obstacles + self.own, others, costs)
            if path is not None:
                found.append(orthogonal(route[:first] + path + route[last + 1:]))
        return min(found, key=lambda candidate: route_cost(candidate, others, costs)) if found else None


def _job(model: BpmnModel, flow: BpmnFlow, shapes: Mapping[str, Box], edges: Mapping[str, Route],
         drawn: list[str]) -> _Job | None:
    """The flow as a job when its route passes through a node, else None."""
    route = _snapped(edges.get(flow.id, ()))
    if len(route) < 2 or flow.source not in shapes or flow.target not in shapes:
        return None
    left, right = min(x for x, _ in route), max(x for x, _ in route)
    top, bottom = min(y for _, y in route), max(y for _, y in route)
    reached = [box for box in (shapes[node] for node in drawn)  # only these can be in the way
               if box.x < right and left < box.right and box.y < bottom and top < box.bottom]
    if not any(enters(p, q, box) for p, q in zip(route, route[1:]) for box in reached):
        return None
    obstacles, own = _boxes(model, flow, shapes, drawn)
    in_the_way = [index for index, (p, q) in enumerate(zip(route, route[1:]))
                  if any(enters(p, q, box) for box in obstacles)]
    if not in_the_way:
        return None
    return _Job(flow, route, obstacles, own, (in_the_way[0], in_the_way[-1]))


def _boxes(model: BpmnModel, flow: BpmnFlow, shapes: Mapping[str, Box],
           drawn: list[str]) -> tuple[list[Box], list[Box]]:
    """The boxes a flow's route must not pass through: every drawn node but its ends and
    the sub-processes around them; and its ends' own boxes, which it touches at its ports."""
    source_around, target_around = _around(model, flow.source), _around(model, flow.target)
    obstacles = [shapes[node] for node in drawn if node not in source_around | target_around]
    own = [shapes[end] for end, other_side in ((flow.source, target_around), (flow.target, source_around))
           if model.node(end) is not None and end not in other_side]
    return obstacles, own


def fewer_crossings(model: BpmnModel, shapes: Mapping[str, Box], edges: dict[str, Route], spacing: float) -> None:
    """The flows whose crossings the engine's layout did not weigh, each routed anew from
    any free port of its source to any of its target (``detour``) where that crosses
    fewer sequence and message flows (then fewer routes of any kind) than its route does:
    the message flows between two nodes (their nodes lie in different bands), the sequence
    flows out of a boundary event or out of its host (the event moved onto the host's
    border after the layout). In document order."""
    costs = Costs(spacing, BEND * spacing, CROSSING * spacing, NEAR * spacing)
    events = {node.id for node in model.nodes if node.attached_to}
    hosts = {str(node.attached_to) for node in model.nodes if node.attached_to}
    wanted = {flow.id for flow in model.flows if flow.tag == "messageFlow"
              or (flow.tag == "sequenceFlow" and (flow.source in events or flow.source in hosts))}
    drawn = [node.id for node in model.nodes if node.id in shapes]
    measured = {flow.id for flow in model.flows if flow.tag in ("sequenceFlow", "messageFlow")}
    segments = {key: list(zip(_snapped(route), _snapped(route)[1:])) for key, route in edges.items()}
    for flow in model.flows:
        if flow.id not in wanted or not segments.get(flow.id) \
                or None in (model.node(flow.source), model.node(flow.target)):
            continue
        route = _snapped(edges[flow.id])
        every = [segment for key, mine in segments.items() if key != flow.id for segment in mine]
        flows = [segment for key, mine in segments.items() if key != flow.id and key in measured for segment in mine]
        before = (crossings(route, flows), crossings(route, every))
        if before == (0, 0):
            continue
        obstacles, own = _boxes(model, flow, shapes, drawn)
        rerouted = _Job(flow, route, obstacles, own, (0, len(route) - 2)).reroute(model, shapes, every, costs)
        if rerouted is not None and _better(rerouted, route, (crossings(rerouted, flows), crossings(rerouted, every)),
                                            before):
            edges[flow.id] = rerouted
            segments[flow.id] = list(zip(rerouted, rerouted[1:]))


def _better(rerouted: Route, route: Route, met: tuple[int, int], before: tuple[int, int]) -> bool:
    """Whether a new route is worth it: it crosses fewer flows, or as many flows, fewer
    routes of any kind and bends no more."""
    return met[0] < before[0] or (met[0] == before[0] and met[1] < before[1] and len(rerouted) <= len(route))


def _around(model: BpmnModel, node_id: str) -> set[str]:
    """A flow's end and the sub-processes it lies in: what the flow may pass through."""
    found = {node_id}
    node = model.node(node_id)
    while node is not None and node.parent and node.parent not in found:
        found.add(node.parent)
        node = model.node(node.parent)
    return found


@dataclass(frozen=True, slots=True)
class _Around:
    """What lies around a flow being rerouted: the nodes it must not pass through and
    the other routes' segments."""

    obstacles: list[Box]
    others: list[Segment]
    spacing: float

    def ports(self, model: BpmnModel, node_id: str, shapes: Mapping[str, Box], route: Route) -> list[Port]:
        """Where a route may leave a node (``route`` starts there): the engine's port unless
        an obstacle covers it; and, for a flow node other than a boundary event (which a route
        leaves at its outer side), the middle of each side and the places beside a boundary
        event on the side, where free and on no other route."""
        heading = _heading(route[0], route[1])
        node = model.node(node_id)
        candidates = [Port(route[0], heading)] if heading else []
        if node is not None and not node.attached_to:
            sides = dict(_side_points(shapes[node_id], self.obstacles, self.spacing))
            candidates += [Port(point, direction, PORT_CHANGE * self.spacing) for point, direction in sides.items()
                           if point != route[0] and not any(_on(point, p, q) for p, q in self.others)]
        margin = self.spacing / 2
        grown = [Box(b.x - margin, b.y - margin, b.w + 2 * margin, b.h + 2 * margin) for b in self.obstacles]
        return [port for port in candidates if not any(_inside(port.point, box) for box in grown)]


def _corner(before: Point, corner: Point) -> list[Port]:
    """A corner kept of the old route, reached going from ``before``; none if the
    segment is not axis-parallel."""
    heading = _heading(before, corner)
    return [Port(corner, heading, corner=True)] if heading else []


def _arriving(port: Port) -> Port:
    """An end port as the search sees it: the way the route arrives, not the way out of the box."""
    if port.corner:
        return port
    return Port(port.point, (-port.direction[0], -port.direction[1]), port.cost)


def _side_points(box: Box, obstacles: list[Box], spacing: float) -> Iterable[tuple[Point, Direction]]:
    """The middle of each side of ``box`` and the places one spacing beside each obstacle
    lying across that side, with the way out of the box there."""
    sides = (((box.x, box.right), box.bottom, (0, 1), False), ((box.x, box.right), box.y, (0, -1), False),
             ((box.y, box.bottom), box.right, (1, 0), True), ((box.y, box.bottom), box.x, (-1, 0), True))
    for (low, high), level, direction, upright in sides:
        spans = [(o.y, o.bottom, o.x, o.right) if upright else (o.x, o.right, o.y, o.bottom) for o in obstacles]
        places = [(low + high) / 2]
        places += [place for start, end, across_low, across_high in spans if across_low < level < across_high
                   for place in (start - spacing, end + spacing)]
        for place in places:
            if low + spacing / 2 <= place <= high - spacing / 2:
                yield _snapped(((level, place) if upright else (place, level),))[0], direction


def _snapped(route: Iterable[Point]) -> Route:
    """The points with float noise taken off (``box.y + box.h / 2`` and ``box.cy`` of the
    same place can differ in the last bit), so equal places compare equal."""
    return tuple((round(x, SNAP_DIGITS), round(y, SNAP_DIGITS)) for x, y in route)


def _heading(p: Point, q: Point) -> Direction | None:
    if p[0] == q[0] and p[1] != q[1]:
        return (0, 1 if q[1] > p[1] else -1)
    if p[1] == q[1] and p[0] != q[0]:
        return (1 if q[0] > p[0] else -1, 0)
    return None


def _on(point: Point, p: Point, q: Point) -> bool:
    """Whether ``point`` lies on the axis-parallel segment p-q, ends included."""
    return (min(p[0], q[0]) <= point[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= point[1] <= max(p[1], q[1])
            and (p[0] == q[0] == point[0] or p[1] == q[1] == point[1]))


def _inside(point: Point, box: Box) -> bool:
    return box.x < point[0] < box.right and box.y < point[1] < box.bottom


def from_boundary_event(event: Box, route: Route, spacing: float, outwards: Direction = (0, 1)) -> Route:
    """A route out of a boundary event: out of its outer side (``outwards``, the way
    away from its host), across to the first segment of the engine's route (which leaves
    the host) that reaches that far out, and on along it; never back along the host's
    border to where the engine's route began, which would take the gap beside the host
    that the host's own flows leave through."""
    dx, dy = outwards
    start = (event.cx + dx * event.w / 2, event.cy + dy * event.h / 2)
    out = (start[0] + dx * spacing, start[1] + dy * spacing)
    level = 1 if dy else 0  # the coordinate the event's way out changes
    for index, (p, q) in enumerate(zip(route, route[1:])):
        if p[1 - level] == q[1 - level] and min(p[level], q[level]) <= out[level] <= max(p[level], q[level]):
            join = (p[0], out[1]) if dy else (out[0], p[1])
            return orthogonal((start, out, join) + route[index + 1:])
    across = (route[0][0], out[1]) if dy else (out[0], route[0][1])
    return orthogonal((start, out, across) + route)


def self_loop(box: Box, spacing: float) -> Route:
    """A flow from a node to itself, over the node's upper right corner."""
    gap = spacing * 2
    return ((box.right, box.cy), (box.right + gap, box.cy), (box.right + gap, box.y - gap),
            (box.cx, box.y - gap), (box.cx, box.y))


def towards(box: Box, point: Point, outwards: bool) -> Route:
    """An L from the box's upper or lower border to ``point`` (reversed when the box
    is the route's end)."""
    border_y = box.bottom if point[1] > box.bottom else box.y
    route = orthogonal(((box.cx, border_y), (box.cx, point[1]), point))
    return route if outwards else tuple(reversed(route))


def straight_between(source: Box, target: Box, horizontal: bool) -> Route:
    """A line across the flow from one box's border to the other's, where they overlap
    along the flow (pools are stacked across it), else from centre to centre."""
    if horizontal:
        low, high = max(source.x, target.x), min(source.right, target.right)
        x = (low + high) / 2 if low <= high else source.cx
        down = target.cy > source.cy
        return ((x, source.bottom if down else source.y), (x, target.y if down else target.bottom))
    low, high = max(source.y, target.y), min(source.bottom, target.bottom)
    y = (low + high) / 2 if low <= high else source.cy
    right = target.cx > source.cx
    return ((source.right if right else source.x, y), (target.x if right else target.right, y))


def across_bands(source: Box, target: Box, horizontal: bool, obstacles: Sequence[Box] = (),
                 spacing: float = 0.0, routed: Iterable[Route] = ()) -> Route:
    """A message flow between two nodes (in two bands, one across the flow from the
    other): straight across where they overlap along the flow (``straight_between``),
    else out of the source's border facing the target, along a level between them and
    into the target's border facing the source. The level is the middle of the gap
    between the two or one ``spacing`` beside an obstacle: of the ``LEVELS_TRIED``
    nearest the middle where the route enters no obstacle, the one crossing the fewest
    ``routed`` routes."""
    def turn(box: Box) -> Box:
        return box if horizontal else Box(box.y, box.x, box.h, box.w)

    def back(route: Iterable[Point]) -> Route:
        return tuple(point if horizontal else (point[1], point[0]) for point in route)

    source, target = turn(source), turn(target)
    low, high = max(source.x, target.x), min(source.right, target.right)
    if low <= high:
        return back(straight_between(source, target, True))
    down = target.cy > source.cy
    start, end = (source.bottom, target.y) if down else (source.y, target.bottom)
    boxes = [turn(box) for box in obstacles]
    levels = sorted({(start + end) / 2} | {level for box in boxes for level in (box.y - spacing, box.bottom + spacing)
                                            if min(start, end) < level < max(start, end)},
                    key=lambda level: (abs(level - (start + end) / 2), level))
    routes = [((source.cx, start), (source.cx, level), (target.cx, level), (target.cx, end)) for level in levels]
    clear = [route for route in routes if not any(enters(p, q, box) for p, q in zip(route, route[1:]) for box in boxes)]
    others = [(back((p,))[0], back((q,))[0]) for route in routed for p, q in zip(route, route[1:])]
    best = min(clear[:LEVELS_TRIED], key=lambda route: crossings(route, others), default=routes[0])
    return back(orthogonal(best))


def annotates(model: BpmnModel, flow: BpmnFlow) -> bool:
    """Whether the flow is the association of a text annotation."""
    return any(node is not None and node.kind == ANNOTATION for node in (model.node(flow.source),
                                                                          model.node(flow.target)))


def nearest_line(source: Box, target: Box) -> Route:
    """A straight line between the nearest points of two boxes' borders (an annotation's
    association, drawn as a straight dotted line, slanted where need be)."""
    start = (min(max(target.cx, source.x), source.right), min(max(target.cy, source.y), source.bottom))
    end = (min(max(start[0], target.x), target.right), min(max(start[1], target.y), target.bottom))
    start = (min(max(end[0], source.x), source.right), min(max(end[1], source.y), source.bottom))
    return (start, end)


def middle(route: Route) -> Point:
    """The middle of a route's longest segment."""
    (x1, y1), (x2, y2) = max(zip(route, route[1:]), key=lambda s: abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1]))
    return ((x1 + x2) / 2, (y1 + y2) / 2)


def enters(p: Point, q: Point, box: Box) -> bool:
    """Whether the axis-parallel segment p-q passes through the inside of ``box``."""
    inset = 1.0
    return (min(p[0], q[0]) < box.right - inset and max(p[0], q[0]) > box.x + inset
            and min(p[1], q[1]) < box.bottom - inset and max(p[1], q[1]) > box.y + inset)


def orthogonal(points: Iterable[Point]) -> Route:
    """The points without repeats and without middle points of straight runs."""
    kept: list[Point] = []
    for point in points:
        if kept and kept[-1] == point:
            continue
        if len(kept) >= 2 and (kept[-2][0] == kept[-1][0] == point[0] or kept[-2][1] == kept[-1][1] == point[1]):
            kept[-1] = point
        else:
            kept.append(point)
    return tuple(kept)
