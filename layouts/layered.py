"""The layered (Sugiyama) pipeline behind the flow layouts: a flat list of named steps.

``STEPS``, in order: cycles ─► layers ─► lanes ─► proper ─► sizes ─► main path ─►
ordering ─► rethreading ─► exact order ─► sketch ─► loop turns ─► placement ─►
straightening ─► ports ─► bypass ─► loop tracks ─► side entries ─► join ports ─►
channels ─► layer starts ─► routes ─► compose. Each step is a plain function that
reads what earlier steps left in one ``FlowState`` and adds its own part;
the algorithms live in ``layouts/steps``, this module only wires them.
``run_steps(..., stop_after=name)`` returns the state after that step, so tests can check
a step's guarantees on its own. The budgets every step works within come with the
options (``LayoutOptions.budgets``, ``layouts/budgets.py``).

The pipeline works in abstract coordinates: ``r`` along the flow (rank axis), ``o``
across it (order axis). A ``Direction`` maps them to x/y at the end, so ``vertical`` is
``horizontal`` rotated.

Back edges (rework loops) stay drawn against the flow: each gets a turn vertex just
beside its source and one beside its target, so the loop leaves the source's side,
runs back through the layers on its own track and enters the target from the same side;
where that track would climb in stairs, the loop takes one or two straight lines instead
(``steps/loops.py``).

Dense graphs: the proper graph may share one dummy chain among edges with a common
source or target (routes then run together and fork late) and may leave the costliest
edges out of the layers as bypass edges, each routed out of its source through the
next channel, along a track beyond the drawing and into its target through the channel
before it (``steps/proper.py``; the budgets of every step: ``docs/layout.md``).

Swimlanes (``graph.lanes``): lanes are bands across the flow, in the order that keeps
cross-lane edges short (with a sketch, the sketch's order where that costs at most one
crossing more); ordering keeps each layer grouped by lane and placement keeps every node
inside its band, with a header strip before the first layer.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Direction, EdgeRoute, Layout, NodeBox, Point
from layouts.graph import LayoutGraph
from layouts.readability import SHARED_TAIL_LIMIT
from layouts.steps.acyclic import feedback_edges
from layouts.steps.bypass import BypassRoute, bypass_routes, drawn_ends
from layouts.steps.chain_paths import rethread
from layouts.steps.channels import ChannelSegment, assign_channels, crossings_before
from layouts.steps.compose import lane_bands, normalize, simplify_route
from layouts.steps.crossings import drawn_crossings
from layouts.steps.exact_order import order_exactly
from layouts.steps.lanes import UNASSIGNED_LANE, order_lanes
from layouts.steps.layering import minimal_length_ranks
from layouts.steps.loops import Lines, Loop, LoopTrack, loop_tracks
from layouts.steps.main_path import main_path_edges
from layouts.steps.ordering import sweep_order
from layouts.steps.placement import place_across
from layouts.steps.proper import ProperGraph, make_proper
from layouts.steps.sketch_order import (
    EXTRA_CROSSINGS,
    follow_sketch,
    lane_room,
    shifted_to_lanes,
    sketch_lanes,
    sketch_ranks,
)
from layouts.steps.spacing import Bands, Placement, Spacing
from layouts.steps.straighten import straighten

LABEL_GAP = 4.0
MAIN_PATH_WEIGHT = 4.0
#: A flat side (a node not ``pointed``) takes an edge anywhere but this near its corners;
#: a pointed node takes it at the middle of a side.
PORT_CORNER = 10.0
#: How far off the middle of a pointed symbol's side (a share of its half extent) a
#: join's ports may lie: the edge still meets the outline head on, not at a glance.
POINTED_PORT_REACH = 0.5
#: How strongly a shape holds to where it stood in the previous drawing (a link between
#: two shapes weighs 1, the main path 4 times more): more than all of a shape's links
#: together, so an old shape stays put unless the order or the gaps move it (at 4 it was
#: pulled halfway towards its links when a neighbour was deleted and left its row); a
#: long edge's dummy a quarter of it.
SKETCH_WEIGHT = 64.0
#: A shape placed this near where the sketch had it is held there by straightening.
HELD = 2.0


def _no_graph() -> ProperGraph:
    return ProperGraph(0, [], [], frozenset(), [], [], [])


@dataclass(slots=True)
class FlowState:
    """The input and what each step has found so far (grouped by the step that sets it).
    Lists over vertices are indexed nodes first, then dummies, then loop turns."""

    graph: LayoutGraph
    options: LayoutOptions
    direction: Direction
    edges: list[tuple[int, int]]  # (source, target) node indices, in graph.edges order
    roots: list[int]  # the start nodes (``is_start``): cycle breaking and ordering begin there
    # cycles
    reversed_edges: frozenset[int] = frozenset()
    dag: list[tuple[int, int]] = field(default_factory=list)  # edges with the reversed ones turned
    # layers
    ranks: list[int] = field(default_factory=list)
    # lanes
    lane_ids: list[str] = field(default_factory=list)  # lanes in drawing order
    node_lanes: list[int] | None = None  # each node's lane position; None without lanes
    # proper
    proper: ProperGraph = field(default_factory=_no_graph)
    # sizes (abstract extents of each vertex's symbol and label; dummies and turns are points)
    symbol_r: list[float] = field(default_factory=list)
    symbol_o: list[float] = field(default_factory=list)
    label_r: list[float] = field(default_factory=list)
    label_o: list[float] = field(default_factory=list)
    before: list[float] = field(default_factory=list)  # extent before the anchor across the flow
    after: list[float] = field(default_factory=list)
    rank_extent: list[float] = field(default_factory=list)
    # main path
    main_path: frozenset[int] = frozenset()  # edges of the longest forward chain
    # ordering, rethreading, exact order (loop turns add the turn vertices)
    layers: list[list[int]] = field(default_factory=list)
    # sketch: where each vertex stood in the previous drawing, if its order was taken,
    # and each lane's least extent across the flow (empty without a sketch of lanes)
    sketch_places: list[float | None] | None = None
    lane_room: list[float] = field(default_factory=list)
    # loop turns
    route_chains: list[list[int]] = field(default_factory=list)
    turn_of: dict[tuple[int, int], int] = field(default_factory=dict)  # (edge, node) → turn vertex
    turn_above: set[int] = field(default_factory=set)  # turn vertices placed before their node
    label_before: set[int] = field(default_factory=set)  # nodes whose outside label precedes the symbol
    # placement, straightening
    links: list[tuple[int, int, float]] = field(default_factory=list)
    pulls: list[tuple[int, int, float]] = field(default_factory=list)
    bands: Bands | None = None
    placement: Placement = field(default_factory=lambda: Placement([], []))
    # ports
    chain_o: list[list[float]] = field(default_factory=list)  # order coordinates along each route chain
    # bypass
    bypass: dict[int, BypassRoute] = field(default_factory=dict)
    # loop tracks
    loop_tracks: dict[int, LoopTrack] = field(default_factory=dict)  # loops that leave their chains
    # side entries
    side_entries: dict[int, float] = field(default_factory=dict)  # edge → -1/+1: into its target's corner before/after
    # join ports
    port_inset: dict[int, float] = field(default_factory=dict)  # edge → how far inside its target's box it ends
    # channels
    segment_at: dict[tuple[int, int], int] = field(default_factory=dict)  # segment key → index in its channel
    slot_of: list[list[int]] = field(default_factory=list)
    slots_used: list[int] = field(default_factory=list)
    channel_width: list[float] = field(default_factory=list)
    # layer starts
    band: list[float] = field(default_factory=list)  # each layer's extent along the flow
    layer_start: list[float] = field(default_factory=list)
    centre_r: list[float] = field(default_factory=list)
    # routes
    routes: list[list[Point]] = field(default_factory=list)
    # compose
    layout: Layout | None = None

    @property
    def order_pos(self) -> list[float]:
        return self.placement.positions

    @property
    def lane_bounds(self) -> list[float]:
        return self.placement.boundaries


class Step(NamedTuple):
    name: str
    run: Callable[[FlowState], None]


def layered_layout(graph: LayoutGraph, options: LayoutOptions, direction: Direction) -> Layout:
    layout = run_steps(graph, options, direction).layout
    assert layout is not None  # the last step composes it
    return layout


def run_steps(graph: LayoutGraph, options: LayoutOptions, direction: Direction,
              stop_after: str | None = None) -> FlowState:
    """The state after every step, or after ``stop_after`` (a name in ``STEPS``)."""
    if stop_after is not None and stop_after not in STEP_NAMES:
        raise ValueError(f"unknown step {stop_after!r}; one of: {', '.join(STEP_NAMES)}")
    index = {node.id: i for i, node in enumerate(graph.nodes)}
    state = FlowState(graph, options, direction, [(index[e.source], index[e.target]) for e in graph.edges],
                      [i for i, node in enumerate(graph.nodes) if node.is_start])
    for step in STEPS:
        step.run(state)
        if step.name == stop_after:
            break
    return state


def _break_cycles(state: FlowState) -> None:
    state.reversed_edges = feedback_edges(len(state.graph.nodes), state.edges, state.roots)
    state.dag = [(t, s) if i in state.reversed_edges else (s, t) for i, (s, t) in enumerate(state.edges)]


def _layer(state: FlowState) -> None:
    index = {node.id: i for i, node in enumerate(state.graph.nodes)}
    aligned = [(index[a], index[b]) for a, b in state.graph.aligned]
    sketch = state.options.sketch
    if sketch is not None:
        kept = sketch_ranks([node.id for node in state.graph.nodes], state.dag, sketch)
        if kept is not None:
            state.ranks = kept
            return
    state.ranks = minimal_length_ranks(len(state.graph.nodes), state.dag, state.options.budgets, aligned)


def _order_lanes(state: FlowState) -> None:
    """Lane ids in drawing order and each node's lane position (None without lanes)."""
    graph = state.graph
    if not graph.lanes:
        return
    preferred = {lane.id: i for i, lane in enumerate(graph.lanes)}
    unknown = sorted({n.lane for n in graph.nodes if n.lane not in preferred}, key=str)
    if unknown:
        raise LayoutError(f"shapes refer to lanes that do not exist: {unknown}")
    node_lane = [preferred[str(node.lane)] for node in graph.nodes]
    last = next((i for i, lane in enumerate(graph.lanes) if lane.id == UNASSIGNED_LANE), None)
    order = order_lanes(len(graph.lanes), node_lane, state.edges, last, state.options.budgets)
    sketch = state.options.sketch
    kept = None if sketch is None else sketch_lanes([lane.id for lane in graph.lanes], sketch, last)
    # the sketch's lane order where its layers can be ordered with at most one crossing
    # more than those of the lane order found afresh
    if kept is not None and kept != order and (_ordered_crossings(state, kept, node_lane)
                                               <= _ordered_crossings(state, order, node_lane) + EXTRA_CROSSINGS):
        order = kept
    rank = {lane: position for position, lane in enumerate(order)}
    state.lane_ids = [graph.lanes[lane].id for lane in order]
    state.node_lanes = [rank[lane] for lane in node_lane]


def _ordered_crossings(state: FlowState, order: list[int], node_lane: list[int]) -> int:
    """The crossings of the sweeps' order with the lanes in ``order``."""
    position = {lane: at for at, lane in enumerate(order)}
    budgets = state.options.budgets
    proper = make_proper(state.ranks, state.edges, state.reversed_edges, [position[lane] for lane in node_lane],
                         budgets)
    return drawn_crossings(proper, sweep_order(proper, state.roots, state.options.ordering_sweeps, budgets))


def _make_proper(state: FlowState) -> None:
    state.proper = make_proper(state.ranks, state.edges, state.reversed_edges, state.node_lanes,
                               state.options.budgets)


def _measure(state: FlowState) -> None:
    for node in state.graph.nodes:
        sym_r, sym_o = state.direction.to_abstract(node.width, node.height)
        has_label = node.label_width > 0 and node.label_height > 0
        lab_r, lab_o = state.direction.to_abstract(node.label_width, node.label_height) if has_label else (0.0, 0.0)
        state.symbol_r.append(sym_r)
        state.symbol_o.append(sym_o)
        state.label_r.append(lab_r)
        state.label_o.append(lab_o)
        state.before.append(sym_o / 2)
        state.after.append(sym_o / 2)
        state.rank_extent.append(max(sym_r, lab_r))
    for _ in range(state.proper.node_count, state.proper.vertex_count):
        _append_point_vertex(state)


def _append_point_vertex(state: FlowState) -> None:
    for values in (state.symbol_r, state.symbol_o, state.label_r, state.label_o, state.before,
                   state.after, state.rank_extent):
        values.append(0.0)


def _find_main_path(state: FlowState) -> None:
    off_main = {i for i, edge in enumerate(state.graph.edges) if edge.off_main_path}
    defaults = {i for i, edge in enumerate(state.graph.edges) if edge.default_branch}
    state.main_path = main_path_edges(len(state.graph.nodes), state.dag, state.ranks,
                                      skip=set(state.reversed_edges) | off_main, preferred=defaults)


def _sweep(state: FlowState) -> None:
    state.layers = sweep_order(state.proper, state.roots, state.options.ordering_sweeps, state.options.budgets)


def _rethread(state: FlowState) -> None:
    state.layers = rethread(state.proper, state.layers, state.options.budgets)


def _order_exactly(state: FlowState) -> None:
    state.layers = order_exactly(state.proper, state.layers, state.options.budgets)


def _follow_sketch(state: FlowState) -> None:
    """With the previous drawing as a sketch, its order within each layer where that
    costs at most one crossing more (``steps/sketch_order.py``)."""
    sketch = state.options.sketch
    if sketch is None:
        return
    node_ids = [node.id for node in state.graph.nodes]
    edge_ends = [(edge.source, edge.target) for edge in state.graph.edges]
    if state.lane_ids and sketch.lanes:
        need = [symbol + label for symbol, label in zip(state.symbol_o, state.label_o)]
        state.lane_room = lane_room(state.proper, state.layers, state.lane_ids, sketch, _lane_headers(state), need,
                                    state.options.node_spacing)
    state.layers, places = follow_sketch(state.proper, state.layers, node_ids, edge_ends, sketch,
                                         state.options.budgets)
    state.sketch_places = places if places is None or not state.lane_room else shifted_to_lanes(
        places, state.proper.lane, state.lane_ids, state.lane_room, sketch)


def _insert_turns(state: FlowState) -> None:
    """Give every back edge a turn vertex next to its source and its target in their
    layers, on the side where the loop crosses fewer edges, nearer loops first; then
    build the chains the routes follow and put outside labels on the side loops avoid."""
    graph = state.proper
    turns_at = _turn_sides(state)
    for layer in state.layers:
        expanded: list[int] = []
        for vertex in layer:
            turns = turns_at.get(vertex, [])
            above = sorted((-span, edge) for is_above, span, edge in turns if is_above)
            below = sorted((span, edge) for is_above, span, edge in turns if not is_above)
            expanded += [_new_turn(state, vertex, edge, True) for _, edge in above]
            expanded.append(vertex)
            expanded += [_new_turn(state, vertex, edge, False) for _, edge in below]
            if below and not above:
                state.label_before.add(vertex)
        layer[:] = expanded
    for edge, chain in enumerate(graph.chains):
        if edge in graph.reversed_edges and edge not in graph.bypass:
            first, last = state.turn_of[(edge, chain[0])], state.turn_of[(edge, chain[-1])]
            state.route_chains.append([first, *chain[1:-1], last])
        else:
            state.route_chains.append(list(chain))
    for node in range(graph.node_count):
        if state.label_o[node] > 0:
            extent = state.label_o[node] + LABEL_GAP
            if node in state.label_before:
                state.before[node] += extent
            else:
                state.after[node] += extent


def _turn_sides(state: FlowState) -> dict[int, list[tuple[bool, int, int]]]:
    """Per node, its loops' turns: (above the node, the loop's span, the edge)."""
    graph = state.proper
    position = {v: i for layer in state.layers for i, v in enumerate(layer)}
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
    return turns_at


def _new_turn(state: FlowState, node: int, edge: int, above: bool) -> int:
    graph = state.proper
    turn = graph.vertex_count
    graph.layer_of.append(graph.layer_of[node])
    graph.lane.append(graph.lane[node])
    graph.up.append([])
    graph.down.append([])
    _append_point_vertex(state)
    state.turn_of[(edge, node)] = turn
    if above:
        state.turn_above.add(turn)
    return turn


def _spacing(state: FlowState) -> Spacing:
    """The order and gap constraints: shapes ``node_spacing`` apart, edge points
    ``edge_spacing``, a shape and a point the larger of half the one and the other."""
    options, node_count = state.options, state.proper.node_count

    def gap(p: int, q: int) -> float:
        if p < node_count and q < node_count:
            return options.node_spacing
        if p >= node_count and q >= node_count:
            return options.edge_spacing
        return max(options.edge_spacing, options.node_spacing / 2)

    return Spacing(state.layers, state.before, state.after, gap)


def _place(state: FlowState) -> None:
    graph, options = state.proper, state.options

    def is_point(vertex: int) -> bool:
        return vertex >= graph.node_count

    weights: dict[tuple[int, int], float] = {}  # a chain shared by several edges is one link
    for edge, chain in enumerate(state.route_chains):
        if edge in graph.bypass:
            continue
        boost = MAIN_PATH_WEIGHT if edge in state.main_path else 1.0
        for a, b in zip(chain, chain[1:]):
            weights[(a, b)] = weights.get((a, b), 0.0) + boost * (1, 2, 8)[is_point(a) + is_point(b)]
    state.links = [(a, b, weight) for (a, b), weight in weights.items()]
    # a light pull keeps each loop hugging its node without bending the flow towards it
    state.pulls = [(turn, node, 0.25) if turn in state.turn_above else (node, turn, 0.25)
                   for (_, node), turn in state.turn_of.items()]
    if state.lane_ids:
        padding = [options.edge_spacing if is_point(v) else options.node_spacing / 2
                   for v in range(graph.vertex_count)]
        state.bands = Bands(graph.lane, padding, state.lane_room or _lane_headers(state))
    spacing = _spacing(state)
    anchors = [(v, place, SKETCH_WEIGHT if v < graph.node_count else SKETCH_WEIGHT / 4)
               for v, place in enumerate(state.sketch_places or ()) if place is not None]
    state.placement = place_across(spacing.layers, graph.vertex_count, spacing.before, spacing.after, spacing.gap,
                                   state.links, state.pulls, state.bands, options.budgets, anchors)


def _lane_headers(state: FlowState) -> list[float]:
    """Each lane's least extent across the flow: its header's."""
    specs = {lane.id: lane for lane in state.graph.lanes}
    return [specs[lane].header_width + 2 * state.options.edge_spacing for lane in state.lane_ids]


def _straighten(state: FlowState) -> None:
    # the optimum of summed lengths does not care about small steps; a reader does
    state.placement = straighten(state.placement, _spacing(state), state.links,
                                 state.pulls, state.bands, state.options.budgets, _held(state))


def _held(state: FlowState) -> frozenset[int]:
    """The shapes placement left where the sketch had them: straightening keeps them there."""
    positions = state.placement.positions
    return frozenset(v for v, place in enumerate(state.sketch_places or ())
                     if place is not None and v < state.proper.node_count and abs(positions[v] - place) <= HELD)


def _chain_ports(state: FlowState) -> None:
    """Order coordinates along each edge's chain, with the ends moved along a flat side of
    the source or target to where the edge continues, when that point lies on the side:
    the edge then leaves or enters straight instead of stepping next to the shape
    (reversed and bypass edges keep their ports)."""
    proper = state.proper
    o = state.order_pos

    def on_flat_side(node: int, value: float) -> bool:
        reach = state.symbol_o[node] / 2 - PORT_CORNER
        return not state.graph.nodes[node].pointed and abs(value - o[node]) <= reach

    drawn = [edge for edge in range(len(state.route_chains))
             if edge not in proper.reversed_edges and edge not in proper.bypass]
    # a port of its own only for the single edge on a side: a moved end beside a shared
    # port would cross the other edges' step into it
    leaving = Counter(state.route_chains[edge][0] for edge in drawn)
    entering = Counter(state.route_chains[edge][-1] for edge in drawn)
    state.chain_o = [[o[v] for v in chain] for chain in state.route_chains]
    for edge in drawn:
        chain, coordinates = state.route_chains[edge], state.chain_o[edge]
        source, target = chain[0], chain[-1]
        if entering[target] == 1 and on_flat_side(target, coordinates[-2]):
            coordinates[-1] = coordinates[-2]
        elif len(chain) == 2 and leaving[source] == 1 and on_flat_side(source, coordinates[-1]):
            coordinates[0] = coordinates[-1]
        if len(chain) > 2 and leaving[source] == 1 and on_flat_side(source, coordinates[1]):
            coordinates[0] = coordinates[1]


def _enter_joins_from_the_side(state: FlowState) -> None:
    """Where edges run into a shape (a join, or a task several flows lead to) from both
    sides across the flow, they would meet on one line in front of it and turn into one
    stub together (a T, read as one line running past); where more than
    ``SHARED_TAIL_LIMIT`` run into it, they would share that stub. So the outermost
    edges of one side (up to that limit) run on along their own lines and enter the
    shape's side (a pointed symbol's corner) across the flow instead (``_enter_join``)."""
    proper = state.proper
    arriving: dict[int, list[int]] = {}
    for edge, chain in enumerate(state.route_chains):
        if edge not in proper.reversed_edges and edge not in proper.bypass:
            arriving.setdefault(chain[-1], []).append(edge)
    looped = {node for (_, node) in state.turn_of}
    room = _SideRoom(state)
    for target, edges in arriving.items():
        if target not in looped:
            _enter_join(state, target, edges, room)


def _enter_join(state: FlowState, target: int, edges: list[int], room: _SideRoom) -> None:
    """Move edges into ``target``'s corner on the side that leaves no T and the fewest
    edges on one end, each where ``room.is_free``."""
    o = state.order_pos[target]
    sides: dict[float, list[tuple[float, int]]] = {-1.0: [], 1.0: []}
    for edge in edges:
        line = state.chain_o[edge][-2]
        if abs(line - o) > 1e-6:
            sides[-1.0 if line < o else 1.0].append((abs(line - o), edge))
    tee = bool(sides[-1.0]) and bool(sides[1.0])
    if not tee and len(edges) <= SHARED_TAIL_LIMIT:
        return

    def outcome(side: float) -> tuple[bool, int, int, float]:
        """(a T is left, the most edges on one end, edges moved) when ``side`` moves."""
        moving = min(len(sides[side]), SHARED_TAIL_LIMIT)
        return tee and moving < len(sides[side]), max(len(edges) - moving, moving), moving, side

    for side in sorted((side for side in sides if sides[side]), key=outcome):
        moved = False
        for _, edge in sorted(sides[side], reverse=True)[:SHARED_TAIL_LIMIT]:
            if room.is_free(edge, side):
                room.enter(edge, side)
                moved = True
        if moved:
            return


def _spread_join_ports(state: FlowState) -> None:
    """Where more than ``SHARED_TAIL_LIMIT`` edges still run into one shape's incoming
    side after the side entries, they would all share its last stretch: they enter
    through ports of their own along that side instead, at most that many per port
    (``_join_port_groups``), the ports up to two edge spacings apart (closer where the
    side is short: a flat side keeps ``PORT_CORNER`` clear of its corners, a pointed
    symbol uses the middle ``POINTED_PORT_REACH`` of its side and an edge ends on its
    outline, a circle's if the node is ``round``, else a diamond's)."""
    proper = state.proper
    arriving: dict[int, dict[int, list[int]]] = {}  # target → the vertex before it → edges on that link
    for edge, chain in enumerate(state.route_chains):
        if edge not in proper.reversed_edges and edge not in proper.bypass and edge not in state.side_entries:
            arriving.setdefault(chain[-1], {}).setdefault(chain[-2], []).append(edge)
    for target, links in arriving.items():
        if sum(len(edges) for edges in links.values()) <= SHARED_TAIL_LIMIT:
            continue
        node = state.graph.nodes[target]
        half_o, half_r = state.symbol_o[target] / 2, state.symbol_r[target] / 2
        reach = half_o * POINTED_PORT_REACH if node.pointed else max(half_o - PORT_CORNER, 0.0)
        groups = _join_port_groups(state.order_pos[target], [(state.chain_o[edges[0]][-2], edges)
                                                             for edges in links.values()])
        steps = max(abs(step) for step, _ in groups)
        spacing = min(2 * state.options.edge_spacing, reach / steps) if steps else 0.0
        for step, edges in groups:
            offset = step * spacing
            for edge in edges:
                state.chain_o[edge][-1] = state.order_pos[target] + offset
                if node.pointed and offset:
                    share = abs(offset) / half_o
                    state.port_inset[edge] = half_r * (1 - math.sqrt(1 - share * share) if node.round else share)


def _join_port_groups(middle: float, bundles: list[tuple[float, list[int]]]) -> list[tuple[int, list[int]]]:
    """(port, edges) for the edges running into one side, each bundle (the edges on one
    line into it, a shared chain) given whole: port 0, the middle, takes the bundles
    running straight in and then the nearest from either side while it holds no more
    than ``SHARED_TAIL_LIMIT`` edges; the rest of each side fill ports -1, -2, ... (before
    the middle) and 1, 2, ... (after it), the nearer lines at the nearer ports, so no two
    of them need to cross."""
    before = sorted((bundle for bundle in bundles if bundle[0] < middle - 1e-6), key=lambda b: -b[0])
    after = sorted((bundle for bundle in bundles if bundle[0] > middle + 1e-6), key=lambda b: b[0])
    centre = [edge for line, edges in bundles if abs(line - middle) <= 1e-6 for edge in edges]
    while True:
        nearest = min((side for side in (before, after) if side), key=lambda side: abs(side[0][0] - middle),
                      default=None)
        if nearest is None or len(centre) + len(nearest[0][1]) > SHARED_TAIL_LIMIT:
            break
        centre += nearest.pop(0)[1]
    groups = [(0, centre)] if centre else []
    for sign, side in ((-1, before), (1, after)):
        port: list[int] = []
        step = 1
        for _, edges in side:
            if port and len(port) + len(edges) > SHARED_TAIL_LIMIT:
                groups.append((sign * step, port))
                port, step = [], step + 1
            port = port + edges
        if port:
            groups.append((sign * step, port))
    return groups


class _SideRoom:
    """Is the way into a symbol's corner free? No label on that side, no other vertex (a
    dummy a loop track left excepted) and no loop track between the edge's line and the
    corner, no new crossing in the channel before the symbol (a bend that crossed an
    edge anyway may run on across it), no chain shared with other edges."""

    def __init__(self, state: FlowState) -> None:
        self.state = state
        self.links = Counter((a, b) for chain in state.route_chains for a, b in zip(chain, chain[1:]))
        self.ghosts = {v for loop in state.loop_tracks for v in state.route_chains[loop][1:-1]}
        # per channel, the bent segments of the edges drawn along their chains
        self.bends: list[dict[tuple[int, int], ChannelSegment]] = [{} for _ in state.layers]
        for edge, chain in enumerate(state.route_chains):
            if edge in state.proper.bypass or edge in state.loop_tracks:
                continue
            ports = state.chain_o[edge]
            for (a, b), (o_a, o_b) in zip(zip(chain, chain[1:]), zip(ports, ports[1:])):
                if abs(o_a - o_b) > 1e-6:
                    self.bends[state.proper.layer_of[a]][(a, b)] = ChannelSegment(edge, o_a, o_b)

    def enter(self, edge: int, side: float) -> None:
        """Let ``edge`` run on into its target's corner on ``side``."""
        state = self.state
        chain = state.route_chains[edge]
        state.side_entries[edge] = side
        state.chain_o[edge][-1] = state.chain_o[edge][-2]
        self.bends[state.proper.layer_of[chain[-2]]].pop((chain[-2], chain[-1]), None)

    def is_free(self, edge: int, side: float) -> bool:
        state = self.state
        proper, o = state.proper, state.order_pos
        chain = state.route_chains[edge]
        before, target = chain[-2], chain[-1]
        line = state.chain_o[edge][-2]
        label_side = -1.0 if target in state.label_before else 1.0
        if self.links[(before, target)] > 1 or (state.label_o[target] > 0 and label_side == side):
            return False
        low, high = sorted((line, o[target] + side * state.symbol_o[target] / 2))
        clearance = state.options.edge_spacing
        layer = proper.layer_of[target]
        if any(v != target and v not in self.ghosts and o[v] - state.before[v] - clearance < high
               and o[v] + state.after[v] + clearance > low for v in state.layers[layer]):
            return False
        channel = proper.layer_of[before]
        for track in state.loop_tracks.values():
            track_line = track.line_at(layer)
            if track_line is not None and low - clearance < track_line < high + clearance:
                return False
            if track.channel == channel and _spans(track.source_o, track.target_o, line):
                return False
        bend = ChannelSegment(edge, line, o[target])
        return all(min(crossings_before(bend, crossed), crossings_before(crossed, bend)) > 0
                   for crossed in self.bends[channel].values()
                   if crossed.edge != edge and _spans(crossed.left, crossed.right, line))


def _spans(a: float, b: float, value: float) -> bool:
    return min(a, b) + 1e-6 < value < max(a, b) - 1e-6


def _route_bypass(state: FlowState) -> None:
    options = state.options
    state.bypass = bypass_routes(state.proper, state.order_pos, state.before,
                                 state.lane_bounds[0] if state.lane_bounds else None,
                                 options.node_spacing, options.edge_spacing)


def _channel_segments(state: FlowState) -> Iterator[tuple[tuple[int, int], int, ChannelSegment]]:
    """(key, channel, segment) of every edge's segments between two layers: a chain's links
    (a link shared by several edges is one key), a loop's change of lines on its track
    keyed (edge, -3), a bypass edge's segments keyed (edge, -1) out of a source and
    (edge, -2) into a target (shared within a fork or merge)."""
    proper, o = state.proper, state.order_pos
    for edge, chain in enumerate(state.route_chains):
        if edge in proper.bypass:
            continue
        track = state.loop_tracks.get(edge)
        if track is not None:
            if track.channel is not None:
                yield (edge, -3), track.channel, ChannelSegment(edge, track.target_o, track.source_o)
            continue
        ports = state.chain_o[edge]
        for (a, b), (o_a, o_b) in zip(zip(chain, chain[1:]), zip(ports, ports[1:])):
            yield (a, b), proper.layer_of[a], ChannelSegment(edge, o_a, o_b)
    for edge, route in state.bypass.items():
        source, target = drawn_ends(proper, edge)
        backward = edge in proper.reversed_edges
        out_segment = ChannelSegment(edge, *((route.track, o[source]) if backward else (o[source], route.track)))
        in_segment = ChannelSegment(edge, *((o[target], route.track) if backward else (route.track, o[target])))
        yield route.out_key, route.out_channel, out_segment
        yield route.in_key, route.in_channel, in_segment


def _place_loop_tracks(state: FlowState) -> None:
    """Straight tracks for loops whose chains would climb back in stairs
    (``steps/loops.py``): along a free line between the rows or around the drawing."""
    proper, o = state.proper, state.order_pos
    loops = []
    for edge, chain in enumerate(state.route_chains):
        if edge in proper.reversed_edges and edge not in proper.bypass:
            target, source = proper.chains[edge][0], proper.chains[edge][-1]
            loops.append(Loop(edge, source, target, chain, chain[-1] in state.turn_above,
                              chain[0] in state.turn_above))
    if not loops:
        return
    segments: list[dict[int, list[tuple[float, float]]]] = [{} for _ in range(max(len(state.layers) - 1, 0))]
    for _, channel, segment in _channel_segments(state):
        segments[channel].setdefault(segment.edge, []).append((segment.left, segment.right))
    extents = [(o[v] - state.before[v], o[v] + state.after[v]) for v in range(proper.vertex_count)]
    low = min([start for start, _ in extents] + state.lane_bounds[:1] + [r.track for r in state.bypass.values()])
    high = max([end for _, end in extents] + state.lane_bounds[-1:])
    layer_of = [proper.layer_of[v] for v in range(proper.vertex_count)]
    lines = Lines(state.layers, layer_of, proper.node_count, o, state.before, state.after,
                  state.options.edge_spacing)
    spacing = state.options.node_spacing
    state.loop_tracks = loop_tracks(lines, loops, segments, (low - spacing, high + spacing))


def _assign_channels(state: FlowState) -> None:
    """A slot per bent segment in each channel between two layers (``_channel_segments``),
    and the channels' widths."""
    options = state.options
    channels: list[list[ChannelSegment]] = [[] for _ in range(max(len(state.layers) - 1, 0))]
    for key, channel, segment in _channel_segments(state):
        if key not in state.segment_at:
            state.segment_at[key] = len(channels[channel])
            channels[channel].append(segment)
    for slots, used in assign_channels(channels, options.budgets):
        state.slot_of.append(slots)
        state.slots_used.append(used)
        state.channel_width.append(max(options.layer_spacing, (used + 1) * options.edge_spacing))
    _widen_for_labels(state)


def _widen_for_labels(state: FlowState) -> None:
    """The channel a labelled edge (``LayoutEdge.label_width``/``label_height``, a BPMN
    flow's name) leaves its source through is wide enough for the label and an edge
    spacing on each side, so the label finds room beside the edge between the layers
    rather than on a node. Edges without a label (every edge of our own diagrams) leave
    the channels as they are."""
    proper = state.proper
    for index, (edge, chain) in enumerate(zip(state.graph.edges, state.route_chains)):
        if edge.label_width <= 0 or edge.label_height <= 0 or index in proper.bypass or len(chain) < 2:
            continue
        label_r, _ = state.direction.to_abstract(edge.label_width, edge.label_height)
        first = chain[-1] if index in proper.reversed_edges else chain[0]  # the source's end
        channel = min(proper.layer_of[chain[0]], proper.layer_of[chain[1]]) if first == chain[0] \
            else min(proper.layer_of[chain[-1]], proper.layer_of[chain[-2]])
        if channel < len(state.channel_width):
            state.channel_width[channel] = max(state.channel_width[channel],
                                               label_r + 2 * state.options.edge_spacing)


def _start_layers(state: FlowState) -> None:
    """Where each layer starts along the flow: after the one before and its channel."""
    proper = state.proper
    layer_count = len(state.layers)
    band = [max((state.rank_extent[v] for v in layer), default=0.0) for layer in state.layers]
    state.band = [max(width, state.options.edge_spacing) for width in band]
    state.layer_start = [0.0] * layer_count
    for k in range(1, layer_count):
        state.layer_start[k] = state.layer_start[k - 1] + state.band[k - 1] + state.channel_width[k - 1]
    state.centre_r = [state.layer_start[proper.layer_of[v]] + state.band[proper.layer_of[v]] / 2
                      for v in range(proper.vertex_count)]


def _route(state: FlowState) -> None:
    """Each edge's orthogonal polyline: a bypass edge around the drawing, a loop out of and
    back into its nodes' sides, a forward edge from its source's outgoing side to its
    target's incoming one; vertical runs in their channel slots."""
    proper = state.proper
    port_shift = _loop_port_shifts(state)
    for edge, chain in enumerate(state.route_chains):
        if edge in proper.bypass:
            points = _bypass_route(state, edge)
        elif edge in proper.reversed_edges:
            points = _loop_route(state, edge, chain, port_shift)
        else:
            points = _forward_route(state, edge, chain)
        state.routes.append([state.direction.point(r, oo) for r, oo in simplify_route(points)])


def _slot_r(state: FlowState, key: tuple[int, int], channel: int) -> float:
    """The rank coordinate of the segment ``key``'s slot: the slots centred in the channel."""
    spacing = state.options.edge_spacing
    first = state.layer_start[channel] + state.band[channel] + (
        state.channel_width[channel] - (state.slots_used[channel] - 1) * spacing) / 2
    return first + state.slot_of[channel][state.segment_at[key]] * spacing


def _bypass_route(state: FlowState, edge: int) -> list[tuple[float, float]]:
    o, centre_r = state.order_pos, state.centre_r
    source, target = drawn_ends(state.proper, edge)
    route = state.bypass[edge]
    side = -1 if edge in state.proper.reversed_edges else 1  # leave towards the track's end
    points = [(centre_r[source] + side * state.symbol_r[source] / 2, o[source])]
    for key, channel, o_from, o_to in ((route.out_key, route.out_channel, o[source], route.track),
                                       (route.in_key, route.in_channel, route.track, o[target])):
        r = _slot_r(state, key, channel)
        points += [(r, o_from), (r, o_to)]
    points.append((centre_r[target] - side * state.symbol_r[target] / 2, o[target]))
    return points


def _loop_route(state: FlowState, edge: int, chain: list[int],
                port_shift: dict[tuple[int, int], float]) -> list[tuple[float, float]]:
    proper, o, centre_r = state.proper, state.order_pos, state.centre_r
    target, source = proper.chains[edge][0], proper.chains[edge][-1]
    shift_s, shift_t = port_shift[(edge, source)], port_shift[(edge, target)]
    track = state.loop_tracks.get(edge)
    if track is not None:
        points = [(centre_r[source] + shift_s, _side(state, source, chain[-1])),
                  (centre_r[source] + shift_s, track.source_o)]
        if track.channel is not None:
            r = _slot_r(state, (edge, -3), track.channel)
            points += [(r, track.source_o), (r, track.target_o)]
        return points + [(centre_r[target] + shift_t, track.target_o),
                         (centre_r[target] + shift_t, _side(state, target, chain[0]))]
    points = [(centre_r[source] + shift_s, _side(state, source, chain[-1])),
              (centre_r[source] + shift_s, o[chain[-1]])]
    for a, b in reversed(list(zip(chain, chain[1:]))):
        if abs(o[a] - o[b]) > 1e-6:
            r = _slot_r(state, (a, b), proper.layer_of[a])
            points += [(r, o[b]), (r, o[a])]
    points.append((centre_r[target] + shift_t, o[chain[0]]))
    points.append((centre_r[target] + shift_t, _side(state, target, chain[0])))
    return points


def _forward_route(state: FlowState, edge: int, chain: list[int]) -> list[tuple[float, float]]:
    centre_r = state.centre_r
    source, target = chain[0], chain[-1]
    ports = state.chain_o[edge]
    points = [(centre_r[source] + state.symbol_r[source] / 2, ports[0])]
    for (a, b), (o_a, o_b) in zip(zip(chain, chain[1:]), zip(ports, ports[1:])):
        if abs(o_a - o_b) > 1e-6:
            r = _slot_r(state, (a, b), state.proper.layer_of[a])
            points += [(r, o_a), (r, o_b)]
    side = state.side_entries.get(edge)
    if side is not None:
        return points + [(centre_r[target], ports[-1]),
                         (centre_r[target], state.order_pos[target] + side * state.symbol_o[target] / 2)]
    points.append((centre_r[target] - state.symbol_r[target] / 2 + state.port_inset.get(edge, 0.0), ports[-1]))
    return points


def _side(state: FlowState, node: int, turn: int) -> float:
    """Order coordinate of the side of ``node``'s symbol that faces its turn vertex."""
    half = state.symbol_o[node] / 2
    return state.order_pos[node] + (-half if turn in state.turn_above else half)


def _loop_port_shifts(state: FlowState) -> dict[tuple[int, int], float]:
    """Where along a node's side each loop attaches: loops heading against the flow on
    the upstream part, nearer ones further out, so loops stacked beside a node never
    cross each other."""
    proper = state.proper
    o = state.order_pos
    groups: dict[tuple[int, bool], tuple[list[tuple[float, int]], list[tuple[float, int]]]] = {}
    for (edge, node), turn in state.turn_of.items():
        leaving, arriving = groups.setdefault((node, turn in state.turn_above), ([], []))
        distance = abs(o[turn] - o[node])
        (leaving if node == proper.chains[edge][-1] else arriving).append((distance, edge))
    shifts: dict[tuple[int, int], float] = {}
    for (node, _), (leaving, arriving) in groups.items():
        ordered = [edge for _, edge in sorted(leaving)]
        ordered += [edge for _, edge in sorted(arriving, reverse=True)]
        count = len(ordered)
        span = min(state.symbol_r[node] * 0.6, (count - 1) * state.options.edge_spacing)
        for i, edge in enumerate(ordered):
            shifts[(edge, node)] = 0.0 if count == 1 else -span / 2 + i * span / (count - 1)
    # loops arriving above and below a node on one line would meet head-on through it:
    # the ones below move half an edge spacing downstream
    for (node, above), (_, arriving) in groups.items():
        if above or (node, True) not in groups:
            continue
        lines_above = {round(shifts[(edge, node)], 1) for _, edge in groups[(node, True)][1]}
        if any(round(shifts[(edge, node)], 1) in lines_above for _, edge in arriving):
            leaving, _ = groups[(node, False)]
            for _, edge in leaving + arriving:
                shifts[(edge, node)] += state.options.edge_spacing / 2
    return shifts


def _compose(state: FlowState) -> None:
    """Node and label boxes, edge routes and lane bands in x/y, the drawing moved to the margin."""
    graph, direction, o, centre_r = state.graph, state.direction, state.order_pos, state.centre_r
    node_boxes: list[NodeBox] = []
    for v, node in enumerate(graph.nodes):
        symbol = direction.box(centre_r[v] - state.symbol_r[v] / 2, o[v] - state.symbol_o[v] / 2,
                               state.symbol_r[v], state.symbol_o[v])
        label = None
        if state.label_o[v] > 0:
            label_o = (o[v] - state.symbol_o[v] / 2 - LABEL_GAP - state.label_o[v]
                       if v in state.label_before else o[v] + state.symbol_o[v] / 2 + LABEL_GAP)
            label = direction.box(centre_r[v] - state.label_r[v] / 2, label_o,
                                  state.label_r[v], state.label_o[v])
        node_boxes.append(NodeBox(node.id, symbol, label))
    edge_routes = [EdgeRoute(e.source, e.target, tuple(points), key=e.key)
                   for e, points in zip(graph.edges, state.routes)]
    specs = {lane.id: lane for lane in graph.lanes}
    flow_end = state.layer_start[-1] + state.band[-1] if state.layers else 0.0
    lanes = lane_bands(state.lane_ids, state.lane_bounds, [specs[lane].header_height for lane in state.lane_ids],
                       flow_end, state.options, direction)
    state.layout = normalize(node_boxes, edge_routes, state.options.margin, lanes)


#: The pipeline, in order; ``run_steps(..., stop_after=name)`` stops after the step named.
STEPS: tuple[Step, ...] = (
    Step("cycles", _break_cycles),
    Step("layers", _layer),
    Step("lanes", _order_lanes),
    Step("proper", _make_proper),
    Step("sizes", _measure),
    Step("main path", _find_main_path),
    Step("ordering", _sweep),
    Step("rethreading", _rethread),
    Step("exact order", _order_exactly),
    Step("sketch", _follow_sketch),
    Step("loop turns", _insert_turns),
    Step("placement", _place),
    Step("straightening", _straighten),
    Step("ports", _chain_ports),
    Step("bypass", _route_bypass),
    Step("loop tracks", _place_loop_tracks),
    Step("side entries", _enter_joins_from_the_side),
    Step("join ports", _spread_join_ports),
    Step("channels", _assign_channels),
    Step("layer starts", _start_layers),
    Step("routes", _route),
    Step("compose", _compose),
)
STEP_NAMES: tuple[str, ...] = tuple(step.name for step in STEPS)
