"""Long edges re-threaded: each dummy chain moved onto the path with the fewest crossings.

Expects a proper layered graph and an order of its layers. Guarantees: every vertex
stays in its layer (and lane); a chain moves only when that strictly lowers the
crossings of the drawing (``crossings.drawn_crossings``), the rest of the order kept as
it is; deterministic.

Median sorts and adjacent swaps move one dummy at a time, and a long edge running
beside a bundle it crosses only gets rid of the crossing when all its dummies move
together. Here each chain's dummies are taken out and put back where the edge crosses
fewest other edges: a shortest path through the gaps of the layers it spans (dynamic
programming, one step per layer), every step's cost counted against all the other
links between its two layers. The ends of a loop (a reversed edge) leave and enter
their node from above or below it (the turn vertices of the layered pipeline), so its
path starts and ends in the gap just above or just below the node and also pays for
the node's links it passes; an edge leaving a node that has loops pays for the loops'
turns it makes cross it. With swimlanes a dummy stays in its lane's part of the layer.

Cost: a step is a few array operations on a gaps × gaps table, so a chain costs its
span times the square of its widest layer. Only chains with a crossing are looked at,
and in later rounds only those near a chain that moved; ``Budgets.chain_work`` such units
per call and ``Budgets.rethreading_rounds`` rounds bound the work, never time.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.crossings import Layers, drawn_crossings, positions
from layouts.steps.proper import ProperGraph

IntArray = NDArray[np.int64]
Table = NDArray[np.int32]
INFINITE = 1 << 28  # a gap's cost where it is closed; sums of a few stay within int32


@dataclass(slots=True)
class _Rethreading:
    graph: ProperGraph
    layers: Layers
    position: IntArray = field(init=False)
    owner: IntArray = field(init=False)  # the one chain a dummy belongs to, or -1
    upper: IntArray = field(init=False)  # every link, grouped by its upper layer
    lower: IntArray = field(init=False)
    start: IntArray = field(init=False)  # links of upper layer k: start[k]..start[k + 1]
    layer_of: IntArray = field(init=False)
    loops_down: dict[int, list[int]] = field(init=False)  # node → loops leaving it downwards
    loops_up: dict[int, list[int]] = field(init=False)
    lanes: bool = field(init=False)  # swimlanes: dummies keep to their lane

    def __post_init__(self) -> None:
        graph = self.graph
        self.position = np.array(positions(graph, self.layers), dtype=np.int64)
        # (a dummy that several chains share gets one of them: none of those moves)
        self.owner = np.full(graph.vertex_count, -1, dtype=np.int64)
        self.owner[_dummies(graph)] = np.repeat(np.arange(len(graph.chains)), [len(c) - 2 for c in graph.chains])
        link_count = sum(len(adjacent) for adjacent in graph.down)
        upper = np.repeat(np.arange(graph.vertex_count), [len(adjacent) for adjacent in graph.down])
        lower = np.fromiter(itertools.chain.from_iterable(graph.down), dtype=np.int64, count=link_count)
        link_layer = np.asarray(graph.layer_of, dtype=np.int64)[upper]
        by_layer = np.lexsort((lower, upper, link_layer))
        self.upper, self.lower, link_layer = upper[by_layer], lower[by_layer], link_layer[by_layer]
        self.start = np.searchsorted(link_layer, np.arange(graph.layer_count() + 1)).astype(np.int64)
        self.layer_of = np.asarray(graph.layer_of, dtype=np.int64)
        self.lanes = any(graph.lane)
        self.loops_down, self.loops_up = {}, {}
        for edge in sorted(graph.reversed_edges - graph.bypass):
            chain = graph.chains[edge]
            self.loops_down.setdefault(chain[0], []).append(edge)
            self.loops_up.setdefault(chain[-1], []).append(edge)

    def set_layer(self, k: int, layer: list[int]) -> None:
        self.layers[k] = layer
        self.position[np.asarray(layer, dtype=np.int64)] = np.arange(len(layer))

    def movable(self) -> list[int]:
        """Chains with dummies of their own (a chain shared by several edges stays)."""
        graph = self.graph
        users = np.bincount(_dummies(graph), minlength=graph.vertex_count).tolist()
        return [edge for edge, chain in enumerate(graph.chains)
                if len(chain) > 2 and edge not in graph.bypass and all(users[d] == 1 for d in chain[1:-1])]


def _dummies(graph: ProperGraph) -> IntArray:
    """The dummies of every chain, chain after chain (a shared one as often as it is)."""
    return np.fromiter(itertools.chain.from_iterable(chain[1:-1] for chain in graph.chains), dtype=np.int64)


def rethread(graph: ProperGraph, layers: Layers, budgets: Budgets = DEFAULT_BUDGETS) -> Layers:
    """The pipeline's re-threading step: ``reroute_chains`` where the drawing has a crossing
    (elsewhere no chain could move)."""
    return reroute_chains(graph, layers, budgets) if drawn_crossings(graph, layers) > 0 else layers


def reroute_chains(graph: ProperGraph, layers: Layers, budgets: Budgets = DEFAULT_BUDGETS) -> Layers:
    """``layers`` with chains re-threaded while ``budgets.chain_work`` units (layers spanned
    × widest layer squared; the corpus needs at most 2,610,000: BPIC15_1, two rounds) last."""
    state = _Rethreading(graph, [list(layer) for layer in layers])
    movable = state.movable()
    width = [len(layer) + 1 for layer in layers]
    changed = np.zeros(len(layers), dtype=np.int64)  # when each layer last changed
    seen = dict.fromkeys(movable, -1)  # when each chain was last looked at
    clock, left = 0, budgets.chain_work
    for _ in range(budgets.rethreading_rounds):
        moved = False
        for edge in movable:
            chain = graph.chains[edge]
            first, last = graph.layer_of[chain[0]], graph.layer_of[chain[-1]]
            if changed[first:last + 1].max() < seen[edge]:
                continue  # nothing around it moved since it was looked at: it would stay
            units = (last - first) * max(width[first:last + 1]) ** 2
            if units > left:
                return state.layers
            left -= units
            clock += 1
            seen[edge] = clock
            if _reroute(state, edge):
                changed[first + 1:last] = clock
                moved = True
        if not moved:
            break
    return state.layers


def _reroute(state: _Rethreading, edge: int) -> bool:
    """Move ``edge``'s dummies onto its cheapest path; whether they moved."""
    graph = state.graph
    chain = graph.chains[edge]
    top, bottom = chain[0], chain[-1]
    first, steps = graph.layer_of[top], len(chain) - 1
    position = state.position
    span = slice(int(state.start[first]), int(state.start[first + steps]))
    upper, lower = state.upper[span], state.lower[span]
    others = (state.owner[upper] != edge) & (state.owner[lower] != edge)
    upper, lower = upper[others], lower[others]
    step = state.layer_of[upper] - first
    at = position[np.asarray(chain, dtype=np.int64)]
    a, b = position[upper], position[lower]
    loop = edge in graph.reversed_edges
    near_loops = ([e for e in state.loops_down.get(top, []) if e != edge],
                  [e for e in state.loops_up.get(bottom, []) if e != edge])
    if not near_loops[0] and not near_loops[1] and not _crosses(a, b, step, at, loop, steps):
        return False
    # positions with the chain's dummies taken out (the end layers keep theirs)
    taken = at.copy()
    taken[0] = taken[-1] = INFINITE
    a = a - (a > taken[step])
    b = b - (b > taken[step + 1])
    sizes = np.array([len(state.layers[first + t]) for t in range(steps + 1)], dtype=np.int64)
    sizes[1:-1] -= 1
    gaps = int(sizes.max()) + 1
    prefix = _link_prefix(step, a, b, steps, gaps)
    top_at, bottom_at, last = int(at[0]), int(at[-1]), gaps - 1
    if loop:  # its turns lie just above or below its nodes
        head, tail = _crossing_table(prefix[0]), _crossing_table(prefix[-1])
        leave = np.minimum(head[top_at], head[top_at + 1])
        enter = np.minimum(tail[:, bottom_at], tail[:, bottom_at + 1])
    else:  # the end nodes' own links do not cross the chain
        head, tail = prefix[0], prefix[-1]
        leave = head[top_at, last] - head[top_at] + head[last] - head[top_at + 1]
        enter = tail[:, last] - tail[:, bottom_at + 1] + tail[last, bottom_at] - tail[:, bottom_at]
    leave = leave + _turn_costs(state, near_loops[0], top, chain[1], 1, gaps)
    enter = enter + _turn_costs(state, near_loops[1], bottom, chain[-2], -2, gaps)
    current = taken[1:-1]
    # the inner steps' crossings (see _crossing_table): links before the upper gap, links
    # before the lower gap, less twice those before both
    inner = prefix[1:steps - 1]
    before_upper, before_lower = inner[:, :, last], inner[:, last, :]
    inner_steps = np.arange(steps - 2)
    now = int(leave[current[0]] + enter[current[-1]] + before_upper[inner_steps, current[:-1]].sum()
              + before_lower[inner_steps, current[1:]].sum() - 2 * inner[inner_steps, current[:-1], current[1:]].sum())
    if now == 0:  # no path costs less than nothing
        return False
    closed = _closed_gaps(state, chain, sizes, gaps)
    choices: list[IntArray] = []
    # The path to lower gap j of an inner step from upper gap i costs value[i] + before_upper[i]
    # - 2 prefix[i, j] + before_lower[j] + closed[j]. The terms of j are paid in the next
    # step instead (the same sums, one array call fewer a step), whose table is kept by
    # lower gap (row) and upper gap (column): the minimum is taken along contiguous rows.
    lower_terms = before_lower + closed[2:steps]
    carried = np.zeros_like(lower_terms)
    carried[1:] = lower_terms[:-1]
    tables = (before_upper + carried).astype(np.int32)[:, None, :] - 2 * inner.transpose(0, 2, 1)
    value = leave + closed[1]
    rows = np.arange(gaps)
    for table in tables:
        sums = value + table
        choice = sums.argmin(axis=1)
        choices.append(choice)
        value = sums[rows, choice]
    value = value + enter + (lower_terms[-1] if steps > 2 else 0)
    gap = int(value.argmin())
    if int(value[gap]) >= now:
        return False
    path = [gap]
    for choice in reversed(choices):
        gap = int(choice[gap])
        path.append(gap)
    for dummy, gap in zip(chain[1:-1], reversed(path)):
        k = graph.layer_of[dummy]
        layer = [v for v in state.layers[k] if v != dummy]
        state.set_layer(k, [*layer[:gap], dummy, *layer[gap:]])
    return True


def _crosses(a: IntArray, b: IntArray, step: IntArray, at: IntArray, loop: bool, steps: int) -> bool:
    """Does the chain (positions ``at``, layer by layer) cross any of the links (upper
    position ``a`` in layer ``step``, lower ``b``)? A loop's ends count the crossings of
    the cheaper side."""
    start, end = at[step], at[step + 1]
    if (((a < start) & (b > end)) | ((a > start) & (b < end))).any():
        return True
    if not loop:
        return False
    for t, node_at, node_side, far_side, toward in ((0, at[0], a, b, at[1]), (steps - 1, at[-1], b, a, at[-2])):
        own = far_side[(step == t) & (node_side == node_at)]
        if min(int((own < toward).sum()), int((own > toward).sum())) > 0:
            return True
    return False


def _link_prefix(step: IntArray, a: IntArray, b: IntArray, steps: int, gaps: int) -> Table:
    """``prefix[t, i, j]``: the given links (upper position ``a`` in layer ``step``,
    lower ``b``, the chain taken out) with ``a < i`` and ``b < j``. Stored with ``i``
    varying fastest (a transposed view), as the path search reads it."""
    # counts at (a + 1, b + 1), then summed along j and along i, each time along
    # contiguous memory (numpy's cumsum is several times slower across it)
    index = (step * gaps + a + 1) * gaps + b + 1
    counts = np.bincount(index, minlength=steps * gaps * gaps).astype(np.int32).reshape(steps, gaps, gaps)
    np.cumsum(counts, axis=2, out=counts)
    flipped = np.ascontiguousarray(counts.transpose(0, 2, 1))
    np.cumsum(flipped, axis=2, out=flipped)
    prefix: Table = flipped.transpose(0, 2, 1)
    return prefix


def _crossing_table(prefix: Table) -> Table:
    """``cost[i, j]``: crossings of a link from gap ``i`` to gap ``j`` with the links
    counted in ``prefix`` (one step), those with ``a < i`` and ``b >= j`` or ``a >= i``
    and ``b < j``."""
    last = len(prefix) - 1  # every position lies before the last gap
    cost: Table = prefix[:, last:] + prefix[last:, :] - 2 * prefix
    return cost


def _turn_costs(state: _Rethreading, loops: list[int], node: int, dummy: int, neighbour_index: int,
                gaps: int) -> IntArray:
    """Per gap of ``dummy``'s layer (the dummy taken out), the crossings of the turns of
    ``node``'s ``loops`` on this side when the chain's end link runs to that gap: each
    loop turns on the side where it crosses fewer of the node's links."""
    costs = np.zeros(gaps, dtype=np.int64)
    if not loops:
        return costs
    graph, position = state.graph, state.position
    removed = int(position[dummy])
    adjacency = graph.down[node] if neighbour_index == 1 else graph.up[node]
    gap = np.arange(gaps)
    for loop in loops:
        toward = graph.chains[loop][neighbour_index]
        target = int(position[toward]) - (int(position[toward]) > removed)
        rest = [int(position[w]) - (int(position[w]) > removed) for w in adjacency if w not in (dummy, toward)]
        above = sum(1 for p in rest if p < target)
        below = sum(1 for p in rest if p > target)
        costs += np.minimum(above + (gap <= target), below + (gap > target))
    return costs


def _closed_gaps(state: _Rethreading, chain: list[int], sizes: IntArray, gaps: int) -> IntArray:
    """Per layer of the chain, 0 for the gaps (with the chain's dummy taken out) its dummy
    may take and a prohibitive cost elsewhere: past the layer's end or, with swimlanes,
    outside the dummy's lane."""
    closed = np.where(np.arange(gaps)[None, :] > sizes[:, None], INFINITE, 0)
    lane = state.graph.lane
    if state.lanes:
        for t, dummy in enumerate(chain[1:-1], start=1):
            others = [lane[v] for v in state.layers[state.graph.layer_of[dummy]] if v != dummy]
            closed[t, :sum(1 for other in others if other < lane[dummy])] = INFINITE
            closed[t, sum(1 for other in others if other <= lane[dummy]) + 1:] = INFINITE
    return closed
