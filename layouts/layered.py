"""The layered (Sugiyama) pipeline behind the flow layouts, read top-down.

content graph ─► cycles ─► layers ─► proper graph ─► order ─► loop turns ─► placement
─► channels ─► routes ─► rotation. Every step is a function in ``layouts/steps``; this
module only wires them and keeps the working state. The pipeline works in abstract
coordinates: ``r`` along the flow (rank axis), ``o`` across it (order axis). A
``Direction`` maps them to x/y at the end, so ``vertical`` is ``horizontal`` rotated.

Back edges (rework loops) stay drawn against the flow: each gets a turn vertex just
beside its source and one beside its target, so the loop leaves the source's side,
runs back through the layers on its own track and enters the target from the same side.

Dense graphs: the proper graph may share one dummy chain among edges with a common
source or target (routes then run together and fork late) and may leave the costliest
edges out of the layers as bypass edges, each routed out of its source through the
next channel, along a track beyond the drawing and into its target through the channel
before it (``steps/proper.py``; the budgets of every step: ``docs/layout.md``).

Swimlanes (``graph.lanes``): lanes are bands across the flow, in the order that keeps
cross-lane edges short; ordering keeps each layer grouped by lane and placement keeps
every node inside its band, with a header strip before the first layer.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Direction, EdgeRoute, Layout, NodeBox, Point
from layouts.graph import LayoutGraph
from layouts.steps.acyclic import feedback_edges
from layouts.steps.bypass import bypass_routes, drawn_ends
from layouts.steps.channels import ChannelSegment, assign_channels
from layouts.steps.compose import lane_bands, normalize, simplify_route
from layouts.steps.lanes import UNASSIGNED_LANE, order_lanes
from layouts.steps.layering import minimal_length_ranks
from layouts.steps.main_path import main_path_edges
from layouts.steps.ordering import order_layers
from layouts.steps.placement import place_across
from layouts.steps.proper import ProperGraph, make_proper
from layouts.steps.spacing import Bands

LABEL_GAP = 4.0
MAIN_PATH_WEIGHT = 4.0
START_KINDS = ("evStart",)
#: Symbols without a flat side (circles, diamonds, hexagons, pentagons): edges meet them
#: at the middle of a side; a flat side takes an edge anywhere but near its corners.
POINTED_KINDS = frozenset({"evStart", "evIntermediate", "evEnd", "ruleXor", "ruleAnd", "condition",
                           "processInterfacePlaceholder"})
PORT_CORNER = 10.0


@dataclass(slots=True)
class _Work:
    """Working state of one run; lists are indexed by vertex (nodes first, then dummies)."""

    graph: ProperGraph
    symbol_r: list[float]
    symbol_o: list[float]
    label_r: list[float]
    label_o: list[float]
    before: list[float]
    after: list[float]
    rank_extent: list[float]
    layers: list[list[int]] = field(default_factory=list)
    route_chains: list[list[int]] = field(default_factory=list)
    turn_of: dict[tuple[int, int], int] = field(default_factory=dict)  # (edge, node) → turn vertex
    turn_above: set[int] = field(default_factory=set)  # turn vertices placed before their node
    main_path: frozenset[int] = frozenset()  # edges of the longest forward chain
    lane_ids: list[str] = field(default_factory=list)  # lanes in drawing order
    lane_bounds: list[float] = field(default_factory=list)
    label_before: set[int] = field(default_factory=set)  # nodes whose outside label precedes the symbol
    order_pos: list[float] = field(default_factory=list)


def layered_layout(graph: LayoutGraph, options: LayoutOptions, direction: Direction) -> Layout:
    index = {node.id: i for i, node in enumerate(graph.nodes)}
    edges = [(index[e.source], index[e.target]) for e in graph.edges]
    roots = [i for i, node in enumerate(graph.nodes) if node.kind in START_KINDS]
    reversed_edges = feedback_edges(len(graph.nodes), edges, roots)
    dag = [(t, s) if i in reversed_edges else (s, t) for i, (s, t) in enumerate(edges)]
    ranks = minimal_length_ranks(len(graph.nodes), dag)
    lane_ids, node_lanes = _lanes(graph, index, edges)
    proper = make_proper(ranks, edges, reversed_edges, node_lanes)
    work = _measure(graph, proper, direction)
    work.lane_ids = lane_ids
    off_main = {i for i, edge in enumerate(graph.edges) if edge.off_main_path}
    work.main_path = main_path_edges(len(graph.nodes), dag, ranks, skip=set(reversed_edges) | off_main)
    work.layers = order_layers(proper, roots, options.ordering_sweeps)
    _insert_turns(work)
    work.order_pos = _place(work, options, graph)
    return _route_and_compose(graph, work, options, direction)


def _lanes(graph: LayoutGraph, index: dict[str, int],
           edges: list[tuple[int, int]]) -> tuple[list[str], list[int] | None]:
    """Lane ids in drawing order and each node's lane position (None without lanes)."""
    if not graph.lanes:
        return [], None
    preferred = {lane.id: i for i, lane in enumerate(graph.lanes)}
    unknown = sorted({n.lane for n in graph.nodes if n.lane not in preferred}, key=str)
    if unknown:
        raise LayoutError(f"shapes refer to lanes that do not exist: {unknown}")
    node_lane = [preferred[str(node.lane)] for node in graph.nodes]
    last = next((i for i, lane in enumerate(graph.lanes) if lane.id == UNASSIGNED_LANE), None)
    order = order_lanes(len(graph.lanes), node_lane, edges, last=last)
    rank = {lane: position for position, lane in enumerate(order)}
    return [graph.lanes[lane].id for lane in order], [rank[lane] for lane in node_lane]


def _measure(graph: LayoutGraph, proper: ProperGraph, direction: Direction) -> _Work:
    work = _Work(proper, [], [], [], [], [], [], [])
    for node in graph.nodes:
        sym_r, sym_o = direction.to_abstract(node.width, node.height)
        has_label = node.label_width > 0 and node.label_height > 0
        lab_r, lab_o = direction.to_abstract(node.label_width, node.label_height) if has_label else (0.0, 0.0)
        work.symbol_r.append(sym_r)
        work.symbol_o.append(sym_o)
        work.label_r.append(lab_r)
        work.label_o.append(lab_o)
        work.before.append(sym_o / 2)
        work.after.append(sym_o / 2)
        work.rank_extent.append(max(sym_r, lab_r))
    for _ in range(proper.node_count, proper.vertex_count):
        _append_point_vertex(work)
    return work


def _append_point_vertex(work: _Work) -> None:
    for values in (work.symbol_r, work.symbol_o, work.label_r, work.label_o, work.before,
                   work.after, work.rank_extent):
        values.append(0.0)


def _insert_turns(work: _Work) -> None:
    """Give every back edge a turn vertex next to its source and its target in their
    layers, on the side where the loop crosses fewer edges, nearer loops first; then
    build the chains the routes follow and put outside labels on the side loops avoid."""
    graph = work.graph
    position = {v: i for layer in work.layers for i, v in enumerate(layer)}
    turns_at: dict[int, list[tuple[bool, int, int]]] = {}
    for edge, chain in enumerate(graph.chains):
        if edge not in graph.reversed_edges or edge in graph.bypass:
            continue
        span = len(chain) - 1
        for node, neighbour, adjacency in ((chain[0], chain[1], graph.down), (chain[-1], chain[-2], graph.up)):
            others = list(adjacency[node])
            others.remove(neighbour)
            crossings_above = sum(1 for w in others if position[w] < position[neighbour])
            crossings_below = sum(1 for w in others if position[w] > position[neighbour])
            turns_at.setdefault(node, []).append((crossings_above < crossings_below, span, edge))
    for layer in work.layers:
        expanded: list[int] = []
        for vertex in layer:
            turns = turns_at.get(vertex, [])
            above = sorted((-span, edge) for is_above, span, edge in turns if is_above)
            below = sorted((span, edge) for is_above, span, edge in turns if not is_above)
            expanded += [_new_turn(work, vertex, edge, True) for _, edge in above]
            expanded.append(vertex)
            expanded += [_new_turn(work, vertex, edge, False) for _, edge in below]
            if below and not above:
                work.label_before.add(vertex)
        layer[:] = expanded
    for edge, chain in enumerate(graph.chains):
        if edge in graph.reversed_edges and edge not in graph.bypass:
            first, last = work.turn_of[(edge, chain[0])], work.turn_of[(edge, chain[-1])]
            work.route_chains.append([first, *chain[1:-1], last])
        else:
            work.route_chains.append(list(chain))
    for node in range(graph.node_count):
        if work.label_o[node] > 0:
            extent = work.label_o[node] + LABEL_GAP
            if node in work.label_before:
                work.before[node] += extent
            else:
                work.after[node] += extent


def _new_turn(work: _Work, node: int, edge: int, above: bool) -> int:
    graph = work.graph
    turn = graph.vertex_count
    graph.layer_of.append(graph.layer_of[node])
    graph.lane.append(graph.lane[node])
    graph.up.append([])
    graph.down.append([])
    _append_point_vertex(work)
    work.turn_of[(edge, node)] = turn
    if above:
        work.turn_above.add(turn)
    return turn


def _place(work: _Work, options: LayoutOptions, layout_graph: LayoutGraph) -> list[float]:
    graph = work.graph

    def is_point(vertex: int) -> bool:
        return vertex >= graph.node_count

    def gap(p: int, q: int) -> float:
        if not is_point(p) and not is_point(q):
            return options.node_spacing
        if is_point(p) and is_point(q):
            return options.edge_spacing
        return max(options.edge_spacing, options.node_spacing / 2)

    weights: dict[tuple[int, int], float] = {}  # a chain shared by several edges is one link
    for edge, chain in enumerate(work.route_chains):
        if edge in graph.bypass:
            continue
        boost = MAIN_PATH_WEIGHT if edge in work.main_path else 1.0
        for a, b in zip(chain, chain[1:]):
            weights[(a, b)] = weights.get((a, b), 0.0) + boost * (1, 2, 8)[is_point(a) + is_point(b)]
    links = [(a, b, weight) for (a, b), weight in weights.items()]
    # a light pull keeps each loop hugging its node without bending the flow towards it
    pulls = [(turn, node, 0.25) if turn in work.turn_above else (node, turn, 0.25)
             for (_, node), turn in work.turn_of.items()]
    bands = None
    if work.lane_ids:
        specs = {lane.id: lane for lane in layout_graph.lanes}
        padding = [options.edge_spacing if is_point(v) else options.node_spacing / 2
                   for v in range(graph.vertex_count)]
        bands = Bands(graph.lane, padding, [specs[lane].header_width + 2 * options.edge_spacing
                                            for lane in work.lane_ids])
    placement = place_across(work.layers, graph.vertex_count, work.before, work.after, gap, links, pulls, bands)
    work.lane_bounds = placement.boundaries
    return placement.positions


def _route_and_compose(
    graph: LayoutGraph, work: _Work, options: LayoutOptions, direction: Direction
) -> Layout:
    proper = work.graph
    o = work.order_pos
    layer_count = len(work.layers)
    band = [max((work.rank_extent[v] for v in layer), default=0.0) for layer in work.layers]
    band = [max(width, options.edge_spacing) for width in band]

    channel_segments: list[list[ChannelSegment]] = [[] for _ in range(max(layer_count - 1, 0))]
    # (a, b) → index in its channel's list: a link shared by several edges is one segment;
    # bypass segments are keyed (edge, -1) out of a source and (edge, -2) into a target
    segment_at: dict[tuple[int, int], int] = {}
    chain_o = _chain_ports(graph, work)
    for edge, chain in enumerate(work.route_chains):
        if edge in proper.bypass:
            continue
        for (a, b), (o_a, o_b) in zip(zip(chain, chain[1:]), zip(chain_o[edge], chain_o[edge][1:])):
            if (a, b) not in segment_at:
                segment_at[(a, b)] = len(channel_segments[proper.layer_of[a]])
                channel_segments[proper.layer_of[a]].append(ChannelSegment(edge, o_a, o_b))
    bypass = bypass_routes(proper, o, work.before, work.lane_bounds[0] if work.lane_bounds else None,
                           options.node_spacing, options.edge_spacing)
    for edge, route in bypass.items():
        source, target = drawn_ends(proper, edge)
        backward = edge in proper.reversed_edges
        out_segment = ChannelSegment(edge, *((route.track, o[source]) if backward else (o[source], route.track)))
        in_segment = ChannelSegment(edge, *((o[target], route.track) if backward else (route.track, o[target])))
        for key, channel, segment in ((route.out_key, route.out_channel, out_segment),
                                      (route.in_key, route.in_channel, in_segment)):
            if key not in segment_at:
                segment_at[key] = len(channel_segments[channel])
                channel_segments[channel].append(segment)
    slot_of: list[list[int]] = []
    slots_used: list[int] = []
    channel_width: list[float] = []
    for slots, used in assign_channels(channel_segments):
        slot_of.append(slots)
        slots_used.append(used)
        channel_width.append(max(options.layer_spacing, (used + 1) * options.edge_spacing))

    layer_start = [0.0] * layer_count
    for k in range(1, layer_count):
        layer_start[k] = layer_start[k - 1] + band[k - 1] + channel_width[k - 1]
    centre_r = [layer_start[proper.layer_of[v]] + band[proper.layer_of[v]] / 2
                for v in range(proper.vertex_count)]

    def slot_r(key: tuple[int, int], channel: int) -> float:
        first = layer_start[channel] + band[channel] + (
            channel_width[channel] - (slots_used[channel] - 1) * options.edge_spacing) / 2
        return first + slot_of[channel][segment_at[key]] * options.edge_spacing

    port_shift = _loop_port_shifts(work, options)
    routes: list[list[Point]] = []
    for edge, chain in enumerate(work.route_chains):
        points: list[tuple[float, float]] = []  # (r, o)
        if edge in proper.bypass:
            source, target = drawn_ends(proper, edge)
            route = bypass[edge]
            side = -1 if edge in proper.reversed_edges else 1  # leave towards the track's end
            points.append((centre_r[source] + side * work.symbol_r[source] / 2, o[source]))
            for key, channel, o_from, o_to in ((route.out_key, route.out_channel, o[source], route.track),
                                               (route.in_key, route.in_channel, route.track, o[target])):
                r = slot_r(key, channel)
                points += [(r, o_from), (r, o_to)]
            points.append((centre_r[target] - side * work.symbol_r[target] / 2, o[target]))
        elif edge in proper.reversed_edges:
            target, source = proper.chains[edge][0], proper.chains[edge][-1]
            shift_s, shift_t = port_shift[(edge, source)], port_shift[(edge, target)]
            points.append((centre_r[source] + shift_s, _side(work, source, chain[-1])))
            points.append((centre_r[source] + shift_s, o[chain[-1]]))
            for a, b in reversed(list(zip(chain, chain[1:]))):
                channel = proper.layer_of[a]
                if abs(o[a] - o[b]) > 1e-6:
                    r = slot_r((a, b), channel)
                    points += [(r, o[b]), (r, o[a])]
            points.append((centre_r[target] + shift_t, o[chain[0]]))
            points.append((centre_r[target] + shift_t, _side(work, target, chain[0])))
        else:
            source, target = chain[0], chain[-1]
            ports = chain_o[edge]
            points.append((centre_r[source] + work.symbol_r[source] / 2, ports[0]))
            for (a, b), (o_a, o_b) in zip(zip(chain, chain[1:]), zip(ports, ports[1:])):
                if abs(o_a - o_b) > 1e-6:
                    r = slot_r((a, b), proper.layer_of[a])
                    points += [(r, o_a), (r, o_b)]
            points.append((centre_r[target] - work.symbol_r[target] / 2, ports[-1]))
        routes.append([direction.point(r, oo) for r, oo in simplify_route(points)])

    node_boxes: list[NodeBox] = []
    for v, node in enumerate(graph.nodes):
        symbol = direction.box(centre_r[v] - work.symbol_r[v] / 2, o[v] - work.symbol_o[v] / 2,
                               work.symbol_r[v], work.symbol_o[v])
        label = None
        if work.label_o[v] > 0:
            label_o = (o[v] - work.symbol_o[v] / 2 - LABEL_GAP - work.label_o[v]
                       if v in work.label_before else o[v] + work.symbol_o[v] / 2 + LABEL_GAP)
            label = direction.box(centre_r[v] - work.label_r[v] / 2, label_o,
                                  work.label_r[v], work.label_o[v])
        node_boxes.append(NodeBox(node.id, symbol, label))
    edge_routes = [EdgeRoute(e.source, e.target, tuple(points), key=e.key)
                   for e, points in zip(graph.edges, routes)]
    specs = {lane.id: lane for lane in graph.lanes}
    lanes = lane_bands(work.lane_ids, work.lane_bounds, [specs[lane].header_height for lane in work.lane_ids],
                       layer_start[-1] + band[-1] if layer_count else 0.0, options, direction)
    return normalize(node_boxes, edge_routes, options.margin, lanes)


def _chain_ports(graph: LayoutGraph, work: _Work) -> list[list[float]]:
    """Order coordinates along each edge's chain, with the ends moved along a flat side of
    the source or target to where the edge continues, when that point lies on the side:
    the edge then leaves or enters straight instead of stepping next to the shape
    (reversed and bypass edges keep their ports)."""
    proper = work.graph
    o = work.order_pos

    def on_flat_side(node: int, value: float) -> bool:
        reach = work.symbol_o[node] / 2 - PORT_CORNER
        return graph.nodes[node].kind not in POINTED_KINDS and abs(value - o[node]) <= reach

    drawn = [edge for edge in range(len(work.route_chains))
             if edge not in proper.reversed_edges and edge not in proper.bypass]
    # a port of its own only for the single edge on a side: a moved end beside a shared
    # port would cross the other edges' step into it
    leaving = Counter(work.route_chains[edge][0] for edge in drawn)
    entering = Counter(work.route_chains[edge][-1] for edge in drawn)
    result = [[o[v] for v in chain] for chain in work.route_chains]
    for edge in drawn:
        chain, coordinates = work.route_chains[edge], result[edge]
        source, target = chain[0], chain[-1]
        if entering[target] == 1 and on_flat_side(target, coordinates[-2]):
            coordinates[-1] = coordinates[-2]
        elif len(chain) == 2 and leaving[source] == 1 and on_flat_side(source, coordinates[-1]):
            coordinates[0] = coordinates[-1]
        if len(chain) > 2 and leaving[source] == 1 and on_flat_side(source, coordinates[1]):
            coordinates[0] = coordinates[1]
    return result


def _side(work: _Work, node: int, turn: int) -> float:
    """Order coordinate of the side of ``node``'s symbol that faces its turn vertex."""
    half = work.symbol_o[node] / 2
    return work.order_pos[node] + (-half if turn in work.turn_above else half)


def _loop_port_shifts(work: _Work, options: LayoutOptions) -> dict[tuple[int, int], float]:
    """Where along a node's side each loop attaches: loops heading against the flow on
    the upstream part, nearer ones further out, so loops stacked beside a node never
    cross each other."""
    proper = work.graph
    o = work.order_pos
    groups: dict[tuple[int, bool], tuple[list[tuple[float, int]], list[tuple[float, int]]]] = {}
    for (edge, node), turn in work.turn_of.items():
        leaving, arriving = groups.setdefault((node, turn in work.turn_above), ([], []))
        distance = abs(o[turn] - o[node])
        (leaving if node == proper.chains[edge][-1] else arriving).append((distance, edge))
    shifts: dict[tuple[int, int], float] = {}
    for (node, _), (leaving, arriving) in groups.items():
        ordered = [edge for _, edge in sorted(leaving)]
        ordered += [edge for _, edge in sorted(arriving, reverse=True)]
        count = len(ordered)
        span = min(work.symbol_r[node] * 0.6, (count - 1) * options.edge_spacing)
        for i, edge in enumerate(ordered):
            shifts[(edge, node)] = 0.0 if count == 1 else -span / 2 + i * span / (count - 1)
    return shifts
