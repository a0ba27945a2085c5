"""Coordinate assignment across the flow: one position per vertex on the order axis.

Expects the layers in their final order, each vertex's extent before and after its anchor
(the point edges attach to), the least gap between two neighbours, and the links to keep
short. Guarantees: neighbours within a layer keep their order and never overlap; the sum
of weighted link lengths ``w * |pos[a] - pos[b]|`` is minimal (dot's priority method
posed as the linear program it approximates); ``pulls`` (a, b, w) add ``w * (pos[b] -
pos[a])`` to draw a vertex that must follow another towards it; ``anchors`` (v, place,
w) add ``w * |pos[v] - place|`` to hold a vertex where it stood in a previous drawing
(the relaxed positions below ignore them). Positions start at 0.
The small steps the optimum leaves are the pipeline's next step (``straighten.py``).

Link weights follow dot: 1 between two nodes, 2 between a node and a dummy, 8 between two
dummies, so long edges run straight and the main path stays on one line.

With ``bands`` (swimlanes), lane boundaries become variables too: every vertex stays
inside its lane with a padding, each lane is at least as tall as its header needs, and a
small cost on the total height keeps lanes no larger than their content.

Bounded cost: HiGHS takes seconds once the program passes some ten thousand variables
(a vertex and a link each), and more on dense graphs, so past ``Budgets.placement_lp_variables``
(past ``sparse_placement_lp_variables`` when there are few links per vertex) the positions come from
``_relaxed`` instead: a few sweeps (fewer as the graph grows, at least two) that move
each layer towards the weighted median of its links' other ends (so chains line up
straight), each solved under the order and gap constraints by pool-adjacent-violators
(least squares, linear time), lanes laid out one after another. Same guarantees on
order, gaps and lanes; links are kept short, not minimal (more bends). The corpus's
largest diagram needs 4,900 variables.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate

import numpy as np

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.linear import InfeasibleProgram, minimize
from layouts.steps.spacing import Bands, Placement, Spacing

#: Sparse graphs (links at most this many per vertex, as in process models) keep the
#: program up to more variables: HiGHS solves those fast (a 5,000-shape flow: 14,600 in 1 s).
SPARSE_LINKS_PER_VERTEX = 1.25
#: HiGHS's dual simplex with Devex pricing instead of dual steepest edge: the placement
#: programs take about 40 % fewer instructions (BPIC15_1: 172 -> 110 ms) for the same optimum.
PLACEMENT_SOLVER = {"simplex_dual_edge_weight_strategy": 1}
#: From this many links a link's length is written as two variables and one equality row
#: instead of one variable and two rows: half the rows, and the dual simplex half the time
#: (BPIC15_1, 2,454 links: 114 -> 51 ms) for the same optimal length, reached at another
#: vertex. Smaller programs take a few milliseconds either way and keep the drawings they had.
ONE_ROW_LINKS = 1_000


def place_across(
    layers: Sequence[Sequence[int]],
    vertex_count: int,
    before: Sequence[float],
    after: Sequence[float],
    gap: Callable[[int, int], float],
    links: Sequence[tuple[int, int, float]],
    pulls: Sequence[tuple[int, int, float]] = (),
    bands: Bands | None = None,
    budgets: Budgets = DEFAULT_BUDGETS,
    anchors: Sequence[tuple[int, float, float]] = (),
) -> Placement:
    spacing = Spacing(layers, before, after, gap)
    variables = vertex_count + len(links) + len(anchors)
    sparse = len(links) <= SPARSE_LINKS_PER_VERTEX * vertex_count
    if variables > (budgets.sparse_placement_lp_variables if sparse else budgets.placement_lp_variables):
        return _relaxed(spacing, vertex_count, links, bands, budgets)
    return _optimal(spacing, vertex_count, links, pulls, bands, anchors)


def _optimal(spacing: Spacing, vertex_count: int, links: Sequence[tuple[int, int, float]],
             pulls: Sequence[tuple[int, int, float]], bands: Bands | None,
             anchors: Sequence[tuple[int, float, float]]) -> Placement:
    """Positions minimizing the weighted link lengths, by linear programming."""
    layers, before = spacing.layers, spacing.before
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    bounds_rhs: list[float] = []
    row = 0
    link_count = len(links)
    one_row = link_count >= ONE_ROW_LINKS
    for link_index, (a, b, _) in enumerate(links):
        length = vertex_count + link_index
        if one_row:  # pos[a] - pos[b] = ahead - behind, both >= 0: the length is their sum
            rows += [row] * 4
            cols += [a, b, length, length + link_count]
            vals += [1.0, -1.0, -1.0, 1.0]
            bounds_rhs.append(0.0)
            row += 1
        else:  # pos[a] - pos[b] - t <= 0 and pos[b] - pos[a] - t <= 0
            rows += [row, row, row, row + 1, row + 1, row + 1]
            cols += [a, b, length, b, a, length]
            vals += [1.0, -1.0, -1.0, 1.0, -1.0, -1.0]
            bounds_rhs += [0.0, 0.0]
            row += 2
    equalities = row if one_row else 0
    for layer in layers:
        for p, q in zip(layer, layer[1:]):
            rows += [row, row]
            cols += [p, q]
            vals += [1.0, -1.0]
            bounds_rhs.append(-spacing.least_distance(p, q))
            row += 1
    lane_count = len(bands.min_extent) if bands else 0
    first_boundary = vertex_count + (2 if one_row else 1) * link_count
    first_anchor = first_boundary + (lane_count + 1 if bands else 0)
    variable_count = first_anchor + len(anchors)
    for anchor_index, (v, place, _) in enumerate(anchors):
        # pos - t <= place and place - pos - t <= 0: t is the distance from the place
        distance = first_anchor + anchor_index
        rows += [row, row, row + 1, row + 1]
        cols += [v, distance, v, distance]
        vals += [1.0, -1.0, -1.0, -1.0]
        bounds_rhs += [place, -place]
        row += 2
    if bands:
        for v in range(vertex_count):
            top, bottom = first_boundary + bands.lane[v], first_boundary + bands.lane[v] + 1
            # top + padding <= pos - before  and  pos + after + padding <= bottom
            rows += [row, row, row + 1, row + 1]
            cols += [top, v, v, bottom]
            vals += [1.0, -1.0, 1.0, -1.0]
            bounds_rhs += [-(before[v] + bands.padding[v]), -(spacing.after[v] + bands.padding[v])]
            row += 2
        for k, extent in enumerate(bands.min_extent):
            rows += [row, row]
            cols += [first_boundary + k, first_boundary + k + 1]
            vals += [1.0, -1.0]
            bounds_rhs.append(-extent)
            row += 1
    cost = np.zeros(variable_count)
    if bands:
        cost[first_boundary] -= bands.height_cost
        cost[variable_count - 1] += bands.height_cost
    for link_index, (_, _, weight) in enumerate(links):
        cost[vertex_count + link_index] = weight
        if one_row:
            cost[vertex_count + link_count + link_index] = weight
    for a, b, weight in pulls:
        cost[b] += weight
        cost[a] -= weight
    for anchor_index, (_, _, weight) in enumerate(anchors):
        cost[first_anchor + anchor_index] = weight
    if row == 0:
        return Placement([before[v] for v in range(vertex_count)], [])
    lower = np.zeros(variable_count)
    lower[:vertex_count] = np.asarray(before, dtype=float)
    try:
        solution = minimize(cost, rows, cols, vals, [0.0] * equalities + [-np.inf] * (row - equalities),
                            bounds_rhs, lower, np.full(variable_count, np.inf), options=PLACEMENT_SOLVER)
    except InfeasibleProgram as error:
        raise ValueError(f"coordinate assignment failed: {error}") from None
    values = [round(float(value), 3) for value in solution]
    return Placement(values[:vertex_count], values[first_boundary:first_anchor])


def _relaxed(spacing: Spacing, vertex_count: int, links: Sequence[tuple[int, int, float]],
             bands: Bands | None, budgets: Budgets) -> Placement:
    """Positions by sweeps of constrained least squares, lane by lane (see the module
    docstring); links between lanes do not pull. At most ``relaxation_sweeps``, fewer
    where they would visit more than ``relaxation_work`` vertices and links."""
    lane = bands.lane if bands else [0] * vertex_count
    neighbours: list[list[tuple[int, float]]] = [[] for _ in range(vertex_count)]
    for a, b, weight in links:
        if lane[a] == lane[b]:
            neighbours[a].append((b, weight))
            neighbours[b].append((a, weight))
    rows = [[list(run) for run in _lane_runs(layer, lane)] for layer in spacing.layers]
    offsets = [[[0.0, *accumulate(spacing.least_distance(p, q) for p, q in zip(run, run[1:]))]
                for run in layer] for layer in rows]
    position = [0.0] * vertex_count
    for layer, layer_offsets in zip(rows, offsets):
        for run, run_offsets in zip(layer, layer_offsets):
            for v, offset in zip(run, run_offsets):
                position[v] = offset
    sweeps = max(2, min(budgets.relaxation_sweeps, budgets.relaxation_work // (vertex_count + len(links))))
    for sweep in range(sweeps):
        order = range(len(rows)) if sweep % 2 == 0 else range(len(rows) - 1, -1, -1)
        for k in order:
            for run, run_offsets in zip(rows[k], offsets[k]):
                wanted, weights = [], []
                for v in run:
                    total = sum(weight for _, weight in neighbours[v])
                    wanted.append(_weighted_median([(position[w], weight) for w, weight in neighbours[v]])
                                  if total else position[v])
                    weights.append(total or 1e-3)
                for v, value in zip(run, _isotonic([w - o for w, o in zip(wanted, run_offsets)], weights)):
                    position[v] = value
                for v, offset in zip(run, run_offsets):
                    position[v] += offset
    return _stack_lanes(position, vertex_count, spacing.before, spacing.after, bands)


def _weighted_median(values: list[tuple[float, float]]) -> float:
    """The value at half the total weight; between the two middle ones on a tie."""
    values.sort()
    half = sum(weight for _, weight in values) / 2
    running = 0.0
    for index, (value, weight) in enumerate(values):
        running += weight
        if running > half + 1e-9:
            return value
        if abs(running - half) <= 1e-9:
            return (value + values[index + 1][0]) / 2
    return values[-1][0]


def _lane_runs(layer: Sequence[int], lane: Sequence[int]) -> list[list[int]]:
    """A layer cut into its runs of one lane each (the order keeps lanes grouped)."""
    runs: list[list[int]] = []
    for v in layer:
        if runs and lane[runs[-1][-1]] == lane[v]:
            runs[-1].append(v)
        else:
            runs.append([v])
    return runs


def _isotonic(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The non-decreasing sequence nearest ``values`` in weighted least squares
    (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for value, weight in zip(values, weights):
        blocks.append([value * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, mass, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += mass
            blocks[-1][2] += count
    result: list[float] = []
    for total, mass, count in blocks:
        result += [total / mass] * int(count)
    return result


def _stack_lanes(position: list[float], vertex_count: int, before: Sequence[float], after: Sequence[float],
                 bands: Bands | None) -> Placement:
    """Shift each lane's vertices so lanes follow one another, each as tall as its
    content and its header need; without lanes, shift the drawing to start at 0."""
    lane = bands.lane if bands else [0] * vertex_count
    padding = bands.padding if bands else [0.0] * vertex_count
    lane_count = len(bands.min_extent) if bands else 1
    low = [float("inf")] * lane_count
    high = [float("-inf")] * lane_count
    for v in range(vertex_count):
        low[lane[v]] = min(low[lane[v]], position[v] - before[v] - padding[v])
        high[lane[v]] = max(high[lane[v]], position[v] + after[v] + padding[v])
    boundaries = [0.0]
    shift = [0.0] * lane_count
    for k in range(lane_count):
        extent = high[k] - low[k] if high[k] >= low[k] else 0.0
        if bands:
            extent = max(extent, bands.min_extent[k])
        shift[k] = boundaries[-1] - (low[k] if high[k] >= low[k] else 0.0)
        boundaries.append(boundaries[-1] + extent)
    positions = [round(position[v] + shift[lane[v]], 3) for v in range(vertex_count)]
    return Placement(positions, [round(b, 3) for b in boundaries] if bands else [])
