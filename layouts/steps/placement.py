"""Coordinate assignment across the flow: one position per vertex on the order axis.

Expects the layers in their final order, each vertex's extent before and after its anchor
(the point edges attach to), the least gap between two neighbours, and the links to keep
short. Guarantees: neighbours within a layer keep their order and never overlap; the sum
of weighted link lengths ``w * |pos[a] - pos[b]|`` is minimal (dot's priority method
posed as the linear program it approximates); ``pulls`` (a, b, w) add ``w * (pos[b] -
pos[a])`` to draw a vertex that must follow another towards it. Positions start at 0.

Link weights follow dot: 1 between two nodes, 2 between a node and a dummy, 8 between two
dummies, so long edges run straight and the main path stays on one line.

With ``bands`` (swimlanes), lane boundaries become variables too: every vertex stays
inside its lane with a padding, each lane is at least as tall as its header needs, and a
small cost on the total height keeps lanes no larger than their content.

Bounded cost: HiGHS takes seconds once the program passes some ten thousand variables
(a vertex and a link each), and more on dense graphs, so past ``LP_VARIABLES`` (past
``SPARSE_LP_VARIABLES`` when there are few links per vertex) the positions come from
``_relaxed`` instead: a few sweeps (fewer as the graph grows, at least two) that move
each layer towards the weighted median of its links' other ends (so chains line up
straight), each solved under the order and gap constraints by pool-adjacent-violators
(least squares, linear time), lanes laid out one after another. Same guarantees on
order, gaps and lanes; links are kept short, not minimal (more bends). The corpus's
largest diagram needs 4,900 variables.

Straight where it can be: the optimum of summed lengths does not care whether a link is
straight or off by a few units, but a reader does (a small step where a straight line was
nearly possible). So a last pass, ``_straighten``, moves whole blocks of aligned
vertices (a vertex with every vertex it already lies on one line with) onto the line of a
neighbour less than ``STEP_LIMIT`` away, or else clearly off it (a detour around a small
shape), where the gaps and lanes leave room and the number of such small steps drops;
links that are straight stay straight.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from layouts.steps.linear import InfeasibleProgram, minimize_linear

LP_VARIABLES = 8_000
#: Sparse graphs (links at most this many per vertex, as in process models) keep the
#: program up to more variables: HiGHS solves those fast (a 5,000-shape flow: 14,600 in 1 s).
SPARSE_LP_VARIABLES = 16_000
SPARSE_LINKS_PER_VERTEX = 1.25
RELAXATION_SWEEPS = 8
RELAXATION_WORK = 200_000  # vertices and links visited, over all sweeps
#: Offsets below this many units are small steps worth removing (a reader sees a jog).
STEP_LIMIT = 40.0
STRAIGHTEN_PASSES = 4
PUSH_LIMIT = 200  # vertices one straightening move may push along
SWAP_NUDGE = 6.0  # how far one of two links that swap lines is moved off the other's line
ALIGNED = 0.01


@dataclass(frozen=True, slots=True)
class Bands:
    """Lane constraints: ``lane[v]`` in ``0..len(min_extent)-1`` for every vertex,
    ``padding[v]`` the room kept between a vertex and its lane's edges."""

    lane: Sequence[int]
    padding: Sequence[float]
    min_extent: Sequence[float]
    height_cost: float = 0.05


@dataclass(frozen=True, slots=True)
class _Spacing:
    """The order and gap constraints: ``q`` after ``p`` in a layer starts at least
    ``least_distance(p, q)`` after it."""

    layers: Sequence[Sequence[int]]
    before: Sequence[float]
    after: Sequence[float]
    gap: Callable[[int, int], float]

    def least_distance(self, p: int, q: int) -> float:
        return self.after[p] + self.before[q] + self.gap(p, q)


@dataclass(frozen=True, slots=True)
class Placement:
    positions: list[float]
    boundaries: list[float]  # lane k spans boundaries[k] .. boundaries[k + 1]; empty without bands


def place_across(
    layers: Sequence[Sequence[int]],
    vertex_count: int,
    before: Sequence[float],
    after: Sequence[float],
    gap: Callable[[int, int], float],
    links: Sequence[tuple[int, int, float]],
    pulls: Sequence[tuple[int, int, float]] = (),
    bands: Bands | None = None,
) -> Placement:
    spacing = _Spacing(layers, before, after, gap)
    variables = vertex_count + len(links)
    sparse = len(links) <= SPARSE_LINKS_PER_VERTEX * vertex_count
    if variables > (SPARSE_LP_VARIABLES if sparse else LP_VARIABLES):
        placement = _relaxed(spacing, vertex_count, links, bands)
    else:
        placement = _optimal(spacing, vertex_count, links, pulls, bands)
    return _straighten(placement, spacing, vertex_count, links, pulls, bands)


def _optimal(spacing: _Spacing, vertex_count: int, links: Sequence[tuple[int, int, float]],
             pulls: Sequence[tuple[int, int, float]], bands: Bands | None) -> Placement:
    """Positions minimizing the weighted link lengths, by linear programming."""
    layers, before = spacing.layers, spacing.before
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    bounds_rhs: list[float] = []
    row = 0
    for link_index, (a, b, _) in enumerate(links):
        slack = vertex_count + link_index
        # pos[a] - pos[b] - t <= 0 and pos[b] - pos[a] - t <= 0
        rows += [row, row, row, row + 1, row + 1, row + 1]
        cols += [a, b, slack, b, a, slack]
        vals += [1.0, -1.0, -1.0, 1.0, -1.0, -1.0]
        bounds_rhs += [0.0, 0.0]
        row += 2
    for layer in layers:
        for p, q in zip(layer, layer[1:]):
            rows += [row, row]
            cols += [p, q]
            vals += [1.0, -1.0]
            bounds_rhs.append(-spacing.least_distance(p, q))
            row += 1
    lane_count = len(bands.min_extent) if bands else 0
    first_boundary = vertex_count + len(links)
    variable_count = first_boundary + (lane_count + 1 if bands else 0)
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
    for a, b, weight in pulls:
        cost[b] += weight
        cost[a] -= weight
    if row == 0:
        return Placement([before[v] for v in range(vertex_count)], [])
    lower = np.zeros(variable_count)
    lower[:vertex_count] = np.asarray(before, dtype=float)
    try:
        solution = minimize_linear(cost, rows, cols, vals, np.asarray(bounds_rhs), lower)
    except InfeasibleProgram as error:
        raise ValueError(f"coordinate assignment failed: {error}") from None
    values = [round(float(value), 3) for value in solution]
    return Placement(values[:vertex_count], values[first_boundary:])


def _relaxed(spacing: _Spacing, vertex_count: int, links: Sequence[tuple[int, int, float]],
             bands: Bands | None) -> Placement:
    """Positions by sweeps of constrained least squares, lane by lane (see the module
    docstring); links between lanes do not pull."""
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
    sweeps = max(2, min(RELAXATION_SWEEPS, RELAXATION_WORK // (vertex_count + len(links))))
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


def _straighten(placement: Placement, spacing: _Spacing, vertex_count: int,
                links: Sequence[tuple[int, int, float]], pulls: Sequence[tuple[int, int, float]],
                bands: Bands | None) -> Placement:
    """Remove small steps: move a block of aligned vertices onto a neighbour's line when
    the layer gaps and lanes leave room and fewer links then bend by less than
    ``STEP_LIMIT`` (see the module docstring). Heavier links are tried first."""
    position = list(placement.positions)
    layer_of = [0] * vertex_count
    index_in_layer = [0] * vertex_count
    for k, layer in enumerate(spacing.layers):
        for i, v in enumerate(layer):
            layer_of[v], index_in_layer[v] = k, i
    incident: list[list[int]] = [[] for _ in range(vertex_count)]
    for link_index, (a, b, _) in enumerate(links):
        incident[a].append(link_index)
        incident[b].append(link_index)
    attached: list[list[int]] = [[] for _ in range(vertex_count)]  # loop turns move with their node
    for a, b, _ in pulls:
        attached[a].append(b)
        attached[b].append(a)

    def small_step(link_index: int) -> bool:
        a, b, _ = links[link_index]
        return ALIGNED < abs(position[a] - position[b]) < STEP_LIMIT

    def block_of(start: int) -> set[int]:
        block = {start}
        stack = [start]
        while stack:
            v = stack.pop()
            others = [w for link_index in incident[v] for w in links[link_index][:2]
                      if abs(position[links[link_index][0]] - position[links[link_index][1]]) <= ALIGNED]
            for w in others + attached[v]:
                if w not in block:
                    block.add(w)
                    stack.append(w)
        return block

    boundaries = list(placement.boundaries)
    lane_members: dict[int, list[int]] = {}
    if bands and boundaries:
        for v in range(vertex_count):
            lane_members.setdefault(bands.lane[v], []).append(v)

    def pushed(block: set[int], shift: float, anchor: int) -> tuple[set[int], set[int]] | None:
        """``block`` with the blocks it pushes ahead of it when moved by ``shift``, and the
        lane boundaries it pushes (with every lane beyond them); None when that would
        move ``anchor`` or more than ``PUSH_LIMIT`` vertices."""
        moving = set(block)
        moved_boundaries: set[int] = set()
        queue = list(block)
        step = 1 if shift > 0 else -1
        while queue:
            v = queue.pop()
            if bands and boundaries:
                lane, padding = bands.lane[v], bands.padding[v]
                far = lane + 1 if shift > 0 else lane
                extent = spacing.after[v] if shift > 0 else -spacing.before[v]
                outside = (position[v] + shift + extent + step * padding - boundaries[far]) * step > 1e-6
                if outside and far not in moved_boundaries:
                    beyond = range(far, len(boundaries)) if shift > 0 else range(0, far + 1)
                    moved_boundaries.update(beyond)
                    for other_lane in (range(far, len(boundaries) - 1) if shift > 0 else range(0, far)):
                        for w in lane_members.get(other_lane, []):
                            if w not in moving:
                                moving.add(w)
                                queue.append(w)
            layer = spacing.layers[layer_of[v]]
            neighbour_index = index_in_layer[v] + step
            if not 0 <= neighbour_index < len(layer) or layer[neighbour_index] in moving:
                continue
            w = layer[neighbour_index]
            room = abs(position[w] - position[v]) - (spacing.least_distance(v, w) if step > 0
                                                     else spacing.least_distance(w, v))
            if room < abs(shift) - 1e-6:
                ahead = block_of(w)
                if anchor in ahead or len(moving) + len(ahead) > PUSH_LIMIT:
                    return None
                moving |= ahead
                queue += list(ahead)
        if anchor in moving or len(moving) > PUSH_LIMIT:
            return None
        return moving, moved_boundaries

    def steps_around(block: set[int], shift: float) -> int:
        count = 0
        for link_index in {i for v in block for i in incident[v]}:
            a, b, _ = links[link_index]
            if (a in block) != (b in block):
                offset = position[a] - position[b] + (shift if a in block else -shift)
                count += ALIGNED < abs(offset) < STEP_LIMIT
        return count

    def apply(vertices: set[int], lane_boundaries: set[int], shift: float) -> None:
        for v in vertices:
            position[v] = round(position[v] + shift, 3)
        for k in lane_boundaries:
            boundaries[k] = round(boundaries[k] + shift, 3)

    by_weight = sorted(range(len(links)), key=lambda i: (-links[i][2], i))
    for _ in range(STRAIGHTEN_PASSES):
        moved = False
        for link_index in by_weight:
            if not small_step(link_index):
                continue
            a, b, _ = links[link_index]
            best: tuple[int, set[int], set[int], float] | None = None
            for mover, anchor in ((a, b), (b, a)):
                block = block_of(mover)
                if anchor in block:
                    continue
                offset = position[mover] - position[anchor]
                away = math.copysign(STEP_LIMIT + 1.0, offset) - offset
                for shift in (-offset, away):  # onto the anchor's line, or clearly off it
                    push = pushed(block, shift, anchor)
                    if push is not None:
                        gain = steps_around(push[0], 0.0) - steps_around(push[0], shift)
                        if gain > 0 and (best is None or gain > best[0]):
                            best = (gain, *push, shift)
            if best is not None:
                apply(*best[1:])
                moved = True
        if not moved:
            break
    # two links that swap lines between two layers (one runs from x to y, the other from
    # y to x) would share both lines in the channel whatever their slots: move one end
    # of either off its line, where that adds no small step
    def nudge(v: int, anchor: int) -> bool:
        block = block_of(v)
        for shift in (SWAP_NUDGE, -SWAP_NUDGE):
            push = pushed(block, shift, anchor)
            if push is not None and steps_around(push[0], shift) <= steps_around(push[0], 0.0):
                apply(*push, shift)
                return True
        return False

    for first, second in _swapped_links(links, position, layer_of):
        if abs(position[links[first][0]] - position[links[second][1]]) <= ALIGNED:  # not parted yet
            if not nudge(links[second][1], links[second][0]):
                nudge(links[first][1], links[first][0])
    return Placement(position, boundaries)


def _swapped_links(links: Sequence[tuple[int, int, float]], position: Sequence[float],
                   layer_of: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs of links between the same two layers where one runs from the other's end
    line to its start line (links run from the upper layer to the lower one)."""
    by_lines: dict[tuple[int, float, float], int] = {}
    pairs: list[tuple[int, int]] = []
    for link_index, (a, b, _) in enumerate(links):
        upper, lower = (a, b) if layer_of[a] < layer_of[b] else (b, a)
        key = (layer_of[upper], round(position[upper], 2), round(position[lower], 2))
        if key[1] == key[2]:
            continue
        swapped = by_lines.get((key[0], key[2], key[1]))
        if swapped is not None:
            pairs.append((swapped, link_index))
        by_lines.setdefault(key, link_index)
    return pairs
