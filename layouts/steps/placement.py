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
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix


@dataclass(frozen=True, slots=True)
class Bands:
    """Lane constraints: ``lane[v]`` in ``0..len(min_extent)-1`` for every vertex,
    ``padding[v]`` the room kept between a vertex and its lane's edges."""

    lane: Sequence[int]
    padding: Sequence[float]
    min_extent: Sequence[float]
    height_cost: float = 0.05


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
            bounds_rhs.append(-(after[p] + before[q] + gap(p, q)))
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
            bounds_rhs += [-(before[v] + bands.padding[v]), -(after[v] + bands.padding[v])]
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
    matrix = coo_matrix((vals, (rows, cols)), shape=(row, variable_count)).tocsr()
    lower = np.zeros(variable_count)
    lower[:vertex_count] = np.asarray(before, dtype=float)
    result = linprog(
        cost, A_ub=matrix, b_ub=np.asarray(bounds_rhs), bounds=np.column_stack(
            (lower, np.full(variable_count, np.inf))), method="highs-ds",
    )
    if result.status != 0:
        raise ValueError(f"coordinate assignment failed: {result.message}")
    values = [round(float(value), 3) for value in result.x]
    return Placement(values[:vertex_count], values[first_boundary:])
