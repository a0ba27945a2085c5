"""The layered pipeline step by step: ``run_steps(..., stop_after=name)`` stops after the
named step, and each step's guarantees hold on the state it leaves, on a small process
with a loop, on a dense cyclic graph in lanes and on that graph's cheap paths."""
from __future__ import annotations

import pytest

from layouts.base import LayoutOptions
from layouts.budgets import Budgets
from layouts.geometry import HORIZONTAL, VERTICAL
from layouts.graph import LayoutGraph
from layouts.layered import STEP_NAMES, FlowState, layered_layout, run_steps
from layouts.steps.crossings import drawn_crossings
from layouts.steps.straighten import STEP_LIMIT
from tests.layouts.graphs import SMALL_KINDS, SMALL_PROCESS, dense_cyclic, graph_for

CHEAP = LayoutOptions(budgets=Budgets(dummy_cap=120, layering_lp_edges=0, placement_lp_variables=0,
                                      channel_pairs=0, sweep_work=2000, chain_work=500))
CASES: dict[str, tuple[LayoutGraph, LayoutOptions]] = {
    "small process": (graph_for("horizontal", SMALL_PROCESS, SMALL_KINDS), LayoutOptions()),
    "dense in lanes": (graph_for("horizontalSwimlane", dense_cyclic()), LayoutOptions()),
    "dense, cheap paths": (graph_for("horizontalSwimlane", dense_cyclic()), CHEAP),
}


def state_after(case: str, step: str) -> FlowState:
    graph, options = CASES[case]
    return run_steps(graph, options, HORIZONTAL, stop_after=step)


def test_step_names_are_unique_and_unknown_ones_refused() -> None:
    assert len(set(STEP_NAMES)) == len(STEP_NAMES)
    graph, options = CASES["small process"]
    with pytest.raises(ValueError, match="unknown step 'sorting'; one of: cycles, layers"):
        run_steps(graph, options, HORIZONTAL, stop_after="sorting")


def test_stopping_leaves_the_later_steps_undone() -> None:
    state = state_after("small process", "ordering")
    assert state.layers and not state.route_chains and not state.placement.positions and state.layout is None


@pytest.mark.parametrize("case", CASES)
def test_the_whole_run_is_the_layout(case: str) -> None:
    graph, options = CASES[case]
    assert run_steps(graph, options, VERTICAL).layout == layered_layout(graph, options, VERTICAL)


@pytest.mark.parametrize("case", CASES)
def test_after_cycles_the_turned_edges_form_a_dag(case: str) -> None:
    state = state_after(case, "cycles")
    node_count = len(state.graph.nodes)
    successors: list[list[int]] = [[] for _ in range(node_count)]
    for source, target in state.dag:
        successors[source].append(target)
    visiting, done = [False] * node_count, [False] * node_count

    def acyclic_from(v: int) -> bool:
        visiting[v] = True
        for w in successors[v]:
            if visiting[w] or (not done[w] and not acyclic_from(w)):
                return False
        visiting[v], done[v] = False, True
        return True

    assert all(done[v] or acyclic_from(v) for v in range(node_count))


@pytest.mark.parametrize("case", CASES)
def test_after_layers_every_edge_points_down_at_least_one_layer(case: str) -> None:
    state = state_after(case, "layers")
    assert all(state.ranks[t] - state.ranks[s] >= 1 for s, t in state.dag)


@pytest.mark.parametrize("case", CASES)
def test_after_proper_every_link_spans_one_layer_and_chains_join_their_ends(case: str) -> None:
    state = state_after(case, "proper")
    proper = state.proper
    assert all(proper.layer_of[b] == proper.layer_of[a] + 1 for a in range(proper.vertex_count)
               for b in proper.down[a])
    for edge, chain in enumerate(proper.chains):
        source, target = state.edges[edge]
        assert (chain[0], chain[-1]) == ((target, source) if edge in proper.reversed_edges else (source, target))


@pytest.mark.parametrize("step", ["ordering", "rethreading", "exact order"])
@pytest.mark.parametrize("case", CASES)
def test_after_each_ordering_step_every_vertex_is_once_in_its_layer(case: str, step: str) -> None:
    state = state_after(case, step)
    proper = state.proper
    assert sorted(v for layer in state.layers for v in layer) == list(range(proper.vertex_count))
    assert all(proper.layer_of[v] == k for k, layer in enumerate(state.layers) for v in layer)
    # so no link spans more than one layer of the order
    position = {v: (k, i) for k, layer in enumerate(state.layers) for i, v in enumerate(layer)}
    assert all(position[b][0] == position[a][0] + 1 for a in range(proper.vertex_count) for b in proper.down[a])


@pytest.mark.parametrize("case", CASES)
def test_rethreading_and_the_exact_order_never_add_crossings(case: str) -> None:
    counts = [drawn_crossings(state.proper, state.layers)
              for state in (state_after(case, step) for step in ("ordering", "rethreading", "exact order"))]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.parametrize("step", ["placement", "straightening"])
@pytest.mark.parametrize("case", CASES)
def test_after_placement_no_two_neighbours_of_a_layer_overlap(case: str, step: str) -> None:
    state = state_after(case, step)
    at, options = state.placement.positions, state.options
    for layer in state.layers:
        for p, q in zip(layer, layer[1:]):
            # the ends of their extents at least the smaller of the spacings apart
            assert at[q] - state.before[q] - (at[p] + state.after[p]) >= options.edge_spacing - 1e-6
    if state.lane_ids:
        bounds = state.placement.boundaries
        for v, lane in enumerate(state.proper.lane):
            assert bounds[lane] <= at[v] - state.before[v] and at[v] + state.after[v] <= bounds[lane + 1]


@pytest.mark.parametrize("case", CASES)
def test_straightening_leaves_no_more_small_steps_than_placement(case: str) -> None:
    def small_steps(state: FlowState) -> int:
        at = state.placement.positions
        return sum(1 for a, b, _ in state.links if 0.01 < abs(at[a] - at[b]) < STEP_LIMIT)

    assert small_steps(state_after(case, "straightening")) <= small_steps(state_after(case, "placement"))


def test_after_bypass_every_track_lies_beyond_the_drawing_and_its_lanes() -> None:
    state = state_after("dense, cheap paths", "bypass")
    assert state.bypass and set(state.bypass) == set(state.proper.bypass)
    at = state.placement.positions
    top = min(min(at[v] - state.before[v] for v in range(state.proper.vertex_count)), state.placement.boundaries[0])
    assert all(route.track < top for route in state.bypass.values())


@pytest.mark.parametrize("case", CASES)
def test_after_channels_overlapping_segments_never_share_a_slot(case: str) -> None:
    state = state_after(case, "channels")
    for channel, slots in enumerate(state.slot_of):
        assert len(slots) == sum(1 for key, _ in state.segment_at.items() if _channel_of(state, key) == channel)
        assert all(slot < state.slots_used[channel] for slot in slots)
        assert state.channel_width[channel] >= (state.slots_used[channel] + 1) * state.options.edge_spacing


def _channel_of(state: FlowState, key: tuple[int, int]) -> int:
    """The channel of a segment key: a link's upper vertex's layer, a loop track's change
    of lines or a bypass segment's own."""
    if key[1] >= 0:
        return state.proper.layer_of[key[0]]
    if key[1] == -3:
        channel = state.loop_tracks[key[0]].channel
        assert channel is not None
        return channel
    route = state.bypass[key[0]]
    return route.out_channel if key[1] == -1 else route.in_channel


@pytest.mark.parametrize("case", CASES)
def test_after_routes_every_edge_is_orthogonal(case: str) -> None:
    state = state_after(case, "routes")
    assert len(state.routes) == len(state.graph.edges)
    for points in state.routes:
        assert len(points) >= 2
        assert all(a[0] == b[0] or a[1] == b[1] for a, b in zip(points, points[1:]))
