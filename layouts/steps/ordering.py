"""Crossing minimization: the order of the vertices within each layer.

Expects a proper layered graph (adjacencies only between consecutive layers) and a
priority list of root nodes. Guarantees: every vertex appears once in its layer; the
returned order has the fewest crossings found; the result depends only on the input.

Method (dot's mincross): a depth-first initial order, then alternating downward and
upward sweeps that sort each layer by the weighted median of its neighbours, each
followed by adjacent swaps ("transpose") while they remove crossings. The best order
seen is kept; the loop ends after ``max_sweeps`` or when several sweeps bring nothing.
A second start (the sweep order reversed) runs when the graph is small enough; the
start with fewer crossings wins (``sweep_order``, the pipeline's "ordering" step). The
pipeline's next steps re-thread each long edge as a whole (``chain_paths.rethread``) and
give small graphs their exact optimum (``exact_order.order_exactly``); ``order_layers``
runs all three. Orders are compared by the crossings the drawing will have
(``crossings.drawn_crossings``: with the loops' turns). With swimlanes, each layer stays grouped by lane
(``graph.lane``, in lane order) and only vertices of the same lane trade places.

Bounded cost: sweeps and transposes draw on one budget of ``Budgets.sweep_work`` units (a sweep
costs the graph's vertices and adjacencies, a transpose pass the products of
neighbours' degrees it compares); re-threading and the exact program have their own
limits. Work is counted, never timed, so the result stays a function of the input. The
budgets exceed what the corpus's largest diagram needs, so real models are ordered as
without them; dense graphs get fewer sweeps and fewer re-threaded chains.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.chain_paths import rethread
from layouts.steps.crossings import CrossingCounter, Layers, positions
from layouts.steps.exact_order import order_exactly
from layouts.steps.proper import ProperGraph

IntArray = NDArray[np.int64]
NO_LINK, SEVERAL_LINKS = -1, -2  # in place of a vertex's single neighbour
#: From these many vertices the transpose's first pass is prepared with numpy.
FIRST_PASS_AT_ONCE = 200


@dataclass(slots=True)
class Work:
    """A countdown of work units: ``spend`` says whether ``units`` still fit."""

    left: int

    def spend(self, units: int) -> bool:
        if units > self.left:
            self.left = 0
            return False
        self.left -= units
        return True


def order_layers(graph: ProperGraph, roots: Sequence[int], max_sweeps: int = 24,
                 budgets: Budgets = DEFAULT_BUDGETS) -> Layers:
    """The whole crossing minimization: the sweeps, re-threading, the exact order."""
    return order_exactly(graph, rethread(graph, sweep_order(graph, roots, max_sweeps, budgets), budgets), budgets)


def sweep_order(graph: ProperGraph, roots: Sequence[int], max_sweeps: int = 24,
                budgets: Budgets = DEFAULT_BUDGETS) -> Layers:
    """The best order of the sweeps from one or two starts (see the module docstring)."""
    best: Layers = []
    best_rank = (0, 0)
    starts = 2 if graph.vertex_count < budgets.second_start_vertices else 1
    work = Work(budgets.sweep_work)
    setup = _SweepSetup.of(graph)
    counter = setup.counter
    for start in range(starts):
        layers = _by_lane(graph, initial_order(graph, roots)) if start == 0 else _reversed_start(graph, roots)
        layers, crossings = _sweep(graph, layers, max_sweeps, start, work, setup)
        # on a tie, fewer crossings among the links: a loop's turn is the easier one to remove
        rank = (crossings, counter.links(layers, positions(graph, layers)))
        if not best or rank < best_rank:
            best, best_rank = layers, rank
        if crossings == 0:
            break
    return best


def transposed(graph: ProperGraph, layers: Layers, budgets: Budgets = DEFAULT_BUDGETS) -> Layers:
    """``layers`` with neighbours swapped while that removes crossings (no sweep): the
    nearest order with fewer crossings, for an order that should change little (the
    previous drawing's, ``sketch_order.follow_sketch``)."""
    setup = _SweepSetup.of(graph)
    ordered = [list(layer) for layer in layers]
    _transpose(graph, ordered, positions(graph, ordered), allow_ties=False, single=setup.single,
               work=Work(budgets.sweep_work), pass_work=setup.transpose_work)
    return ordered


def swept_from(graph: ProperGraph, layers: Layers, budgets: Budgets = DEFAULT_BUDGETS,
               max_sweeps: int = 24) -> Layers:
    """The sweeps of ``sweep_order`` started from ``layers`` instead of a depth-first
    order: a local optimum near an order that should change little (the previous
    drawing's, when neighbour swaps alone leave too many crossings)."""
    return _sweep(graph, [list(layer) for layer in layers], max_sweeps, 0, Work(budgets.sweep_work),
                  _SweepSetup.of(graph))[0]


def _reversed_start(graph: ProperGraph, roots: Sequence[int]) -> Layers:
    return _by_lane(graph, [list(reversed(layer)) for layer in initial_order(graph, list(reversed(roots)))])


def _by_lane(graph: ProperGraph, layers: Layers) -> Layers:
    """Each layer stably grouped by lane (a no-op without swimlanes)."""
    return [sorted(layer, key=graph.lane.__getitem__) for layer in layers]


def initial_order(graph: ProperGraph, roots: Sequence[int]) -> Layers:
    """Depth-first from the roots along downward adjacencies, then the rest in id
    order: connected vertices start close together, components one after another."""
    layers: Layers = [[] for _ in range(graph.layer_count())]
    seen = [False] * graph.vertex_count
    candidates = list(roots) + list(range(graph.vertex_count))
    for root in candidates:
        if seen[root]:
            continue
        stack = [root]
        while stack:
            vertex = stack.pop()
            if seen[vertex]:
                continue
            seen[vertex] = True
            layers[graph.layer_of[vertex]].append(vertex)
            # reversed so the first successor is visited first (the seen ones are skipped when popped)
            stack += reversed(graph.down[vertex] + graph.up[vertex])
    return layers


@dataclass(frozen=True, slots=True)
class _SweepSetup:
    """What the sweeps read of the graph, gathered once for both starts."""

    counter: CrossingCounter
    single: _SingleLinks
    lanes: bool
    sweep_work: int  # a sweep's cost: the vertices and links
    transpose_work: int  # a transpose pass's: each vertex's neighbours compared with its neighbour's

    @staticmethod
    def of(graph: ProperGraph) -> _SweepSetup:
        return _SweepSetup(
            CrossingCounter(graph), _SingleLinks.of(graph), any(graph.lane),
            graph.vertex_count + sum(len(adjacent) for adjacent in graph.down),
            sum(len(adjacent) ** 2 for adjacency in (graph.up, graph.down) for adjacent in adjacency))


def _sweep(graph: ProperGraph, layers: Layers, max_sweeps: int, parity: int, work: Work,
           setup: _SweepSetup) -> tuple[Layers, int]:
    counter = setup.counter
    position = positions(graph, layers)
    best = [list(layer) for layer in layers]
    best_crossings = counter.drawn(layers, position)
    stale = 0
    for sweep in range(max_sweeps):
        if best_crossings == 0 or stale >= 4 or not work.spend(setup.sweep_work):
            break
        downward = (sweep + parity) % 2 == 0
        indices = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for k in indices:
            neighbours = graph.up if downward else graph.down
            _median_sort(layers[k], neighbours, position, graph.lane, setup.lanes)
        _transpose(graph, layers, position, allow_ties=sweep % 4 >= 2, single=setup.single, work=work,
                   pass_work=setup.transpose_work)
        crossings = counter.drawn(layers, position)
        if crossings < best_crossings:
            best, best_crossings, stale = [list(layer) for layer in layers], crossings, 0
        else:
            stale += 1
    return best, best_crossings


def _median(values: list[int]) -> float:
    count = len(values)
    middle = count // 2
    if count % 2 == 1:
        return float(values[middle])
    if count == 2:
        return (values[0] + values[1]) / 2
    left = values[middle - 1] - values[0]
    right = values[-1] - values[middle]
    if left + right == 0:
        return (values[middle - 1] + values[middle]) / 2
    return (values[middle - 1] * right + values[middle] * left) / (left + right)


def _median_sort(layer: list[int], neighbours: list[list[int]], position: list[int],
                 lane: list[int], lanes: bool) -> None:
    """Sort ``layer`` in place by neighbour medians, stably; vertices without neighbours
    keep their slots; with ``lanes`` (swimlanes), lanes stay grouped."""
    medians: list[float] = []  # of the movable vertices, in layer order
    movable: list[int] = []
    fixed_slots: list[int] = []
    for index, vertex in enumerate(layer):
        adjacent = neighbours[vertex]
        if len(adjacent) == 1:  # most vertices: the median is the one neighbour's position
            medians.append(position[adjacent[0]])
            movable.append(vertex)
        elif adjacent:
            medians.append(_median(sorted([position[w] for w in adjacent])))
            movable.append(vertex)
        else:
            fixed_slots.append(index)
    # a stable sort of the indices by median: ties keep their order, as (median, index) would
    reordered = [movable[i] for i in sorted(range(len(movable)), key=medians.__getitem__)]
    for index in fixed_slots:  # in increasing order, so each lands in its slot
        reordered.insert(index, layer[index])
    if lanes:
        reordered.sort(key=lane.__getitem__)
    layer[:] = reordered
    for index, vertex in enumerate(layer):
        position[vertex] = index


@dataclass(frozen=True, slots=True)
class _SingleLinks:
    """Per vertex, its neighbour above (``up``) and below (``down``) when it has exactly
    one there, else ``NO_LINK`` or ``SEVERAL_LINKS``: lists for the transpose's usual
    comparison (two list lookups), arrays for its first pass (all pairs at once)."""

    up: list[int]
    down: list[int]
    up_array: IntArray
    down_array: IntArray

    @staticmethod
    def of(graph: ProperGraph) -> _SingleLinks:
        up, down = ([adjacent[0] if len(adjacent) == 1 else SEVERAL_LINKS if adjacent else NO_LINK
                     for adjacent in adjacency] for adjacency in (graph.up, graph.down))
        return _SingleLinks(up, down, np.array(up, dtype=np.int64), np.array(down, dtype=np.int64))


def _first_pass_pairs(layers: Layers, position: list[int], single: _SingleLinks, allow_ties: bool) -> list[list[bool]]:
    """Per layer, per pair of neighbours, whether the transpose's first pass must compare
    it: all pairs but those whose links (at most one per vertex on either side) show,
    at once (numpy), that they stay as they are."""
    vertices = np.fromiter(itertools.chain.from_iterable(layers), dtype=np.int64, count=len(position))
    at = np.array(position, dtype=np.int64)
    left, right = vertices[:-1], vertices[1:]  # also pairs across layers, left out below
    kept = swapped = np.zeros(len(left), dtype=np.int64)
    undecided = np.zeros(len(left), dtype=np.bool_)
    for neighbour in (single.up_array, single.down_array):
        left_neighbour, right_neighbour = neighbour[left], neighbour[right]
        both = (left_neighbour >= 0) & (right_neighbour >= 0)
        undecided |= (left_neighbour != NO_LINK) & (right_neighbour != NO_LINK) & ~both  # several links
        # (without a single neighbour, index -1 or -2 reads some position, masked out)
        left_at, right_at = at[left_neighbour], at[right_neighbour]
        kept = kept + (both & (left_at > right_at))
        swapped = swapped + (both & (left_at < right_at))
    swaps = (swapped < kept) | (allow_ties & (kept > 0) & (swapped == kept))
    compare = (swaps | undecided).tolist()
    pairs: list[list[bool]] = []
    start = 0
    for layer in layers:
        pairs.append(compare[start:start + len(layer) - 1])
        start += len(layer)
    return pairs


def _pair_crossings(left_neighbours: list[int], right_neighbours: list[int], position: list[int]) -> tuple[int, int]:
    """Crossings among the links of two neighbours to ``left_neighbours`` and
    ``right_neighbours`` (the same side), the two kept in order and swapped."""
    kept = swapped = 0
    for a in left_neighbours:
        pa = position[a]
        for b in right_neighbours:
            pb = position[b]
            if pa > pb:
                kept += 1
            elif pa < pb:
                swapped += 1
    return kept, swapped


def _transpose(graph: ProperGraph, layers: Layers, position: list[int], allow_ties: bool, single: _SingleLinks,
               work: Work, pass_work: int, max_passes: int = 8) -> None:
    """Swap neighbours while that removes crossings; with ``allow_ties`` also swap
    neighbours whose order does not matter, which lets the next sweep escape a plateau
    (dot's "reverse" transpose). A pass costs ``pass_work``, the sum of squared degrees.
    ``single``: ``_SingleLinks.of(graph)``.

    Whether two neighbours swap depends only on them and their neighbours' positions,
    so a pass compares only the pairs that changed since they were last compared and
    kept (the outcome is that of comparing them all): a swap marks the pairs around
    the swapped two and the pairs of their neighbours in the layers above and below.
    On a large graph the first pass starts from the pairs that a comparison of all of
    them at once (``_first_pass_pairs``) does not show to stay: the same marks keep
    those that change before their turn."""
    up, down, lane, layer_of = graph.up, graph.down, graph.lane, graph.layer_of
    lanes = any(lane)
    only_up, only_down = single.up, single.down
    kept: int
    swapped: int
    stale = (_first_pass_pairs(layers, position, single, allow_ties) if graph.vertex_count >= FIRST_PASS_AT_ONCE
             else [[True] * max(len(layer) - 1, 0) for layer in layers])  # per pair: compare it again
    layer_stale = [True] * len(layers)

    for _ in range(max_passes):
        if not work.spend(pass_work):
            return
        improved = False
        for k, layer in enumerate(layers):
            if not layer_stale[k]:
                continue
            layer_stale[k] = False
            flags = stale[k]
            index = -1
            while True:
                try:  # the next pair to compare, found by C code: most pairs stay unmarked
                    index = flags.index(True, index + 1)
                except ValueError:
                    break
                flags[index] = False
                v, w = layer[index], layer[index + 1]
                if lanes and lane[v] != lane[w]:
                    continue
                # the links above, then below; most vertices have one on each side
                left_only, right_only = only_up[v], only_up[w]
                if left_only >= 0 and right_only >= 0:
                    left_at, right_at = position[left_only], position[right_only]
                    kept, swapped = left_at > right_at, left_at < right_at
                elif up[v] and up[w]:
                    kept, swapped = _pair_crossings(up[v], up[w], position)
                else:
                    kept = swapped = 0
                left_only, right_only = only_down[v], only_down[w]
                if left_only >= 0 and right_only >= 0:
                    left_at, right_at = position[left_only], position[right_only]
                    kept += left_at > right_at
                    swapped += left_at < right_at
                elif down[v] and down[w]:
                    below_kept, below_swapped = _pair_crossings(down[v], down[w], position)
                    kept += below_kept
                    swapped += below_swapped
                if swapped < kept or (allow_ties and kept > 0 and swapped == kept):
                    layer[index], layer[index + 1] = w, v
                    position[v], position[w] = index + 1, index
                    # the pairs of the two (the next one still in this scan) and of their
                    # neighbours above and below, whose neighbour moved, compared again
                    if index > 0:
                        flags[index - 1] = True
                    flags[index] = True
                    if index + 1 < len(flags):
                        flags[index + 1] = True
                    for vertex in (*up[v], *down[v], *up[w], *down[w]):
                        marked, at = stale[layer_of[vertex]], position[vertex]
                        if at > 0:
                            marked[at - 1] = True
                        if at < len(marked):
                            marked[at] = True
                        layer_stale[layer_of[vertex]] = True
                    layer_stale[k] = True
                    improved = improved or swapped < kept
        if not improved:
            return
