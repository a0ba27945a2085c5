"""``straighten`` on hand-made placements: small steps removed by moving whole aligned
blocks, neighbours and lanes pushed along, long steps and straight links kept, links that
swap lines parted, and the order, gap and lane constraints kept throughout."""
from __future__ import annotations

from collections.abc import Sequence

import pytest

from layouts.budgets import Budgets
from layouts.steps.spacing import Bands, Placement, Spacing
from layouts.steps.straighten import STEP_LIMIT, SWAP_NUDGE, straighten

Links = list[tuple[int, int, float]]


def spacing(layers: list[list[int]], extent: float = 10.0, after: Sequence[float] | None = None) -> Spacing:
    """Every vertex ``extent`` before and after its anchor (``after`` where given), 10 apart."""
    count = sum(len(layer) for layer in layers)
    return Spacing(layers, [extent] * count, list(after) if after else [extent] * count, lambda p, q: 10.0)


def small_steps(positions: Sequence[float], links: Links) -> int:
    return sum(1 for a, b, _ in links if 0.01 < abs(positions[a] - positions[b]) < STEP_LIMIT)


def assert_constraints_hold(result: Placement, space: Spacing, bands: Bands | None = None) -> None:
    at = result.positions
    for layer in space.layers:
        for p, q in zip(layer, layer[1:]):
            assert at[q] - at[p] >= space.least_distance(p, q) - 1e-6
    if bands:
        for v, lane in enumerate(bands.lane):
            top, bottom = result.boundaries[lane], result.boundaries[lane + 1]
            assert top + bands.padding[v] <= at[v] - space.before[v] + 1e-6
            assert at[v] + space.after[v] + bands.padding[v] <= bottom + 1e-6


def test_a_small_step_between_two_vertices_is_removed() -> None:
    links: Links = [(0, 1, 1.0)]
    result = straighten(Placement([0.0, 12.0], []), spacing([[0], [1]]), links)
    assert result.positions[0] == result.positions[1]


def test_a_step_of_the_limit_or_more_is_not_small_and_stays() -> None:
    links: Links = [(0, 1, 1.0), (1, 2, 1.0)]
    placement = Placement([0.0, STEP_LIMIT, STEP_LIMIT + 60.0], [])
    assert straighten(placement, spacing([[0], [1], [2]]), links).positions == placement.positions


def test_an_aligned_block_moves_whole_so_straight_links_stay_straight() -> None:
    # 0-1-2 run straight at 0; 3 hangs 15 off 2: the block {0, 1, 2} moves onto 3's line
    # (or 3 onto theirs), never 2 alone
    links: Links = [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)]
    result = straighten(Placement([0.0, 0.0, 0.0, 15.0], []), spacing([[0], [1], [2], [3]]), links)
    assert len(set(result.positions)) == 1


@pytest.mark.parametrize(("weights", "line"), [((1.0, 8.0), 20.0), ((8.0, 1.0), 0.0)])
def test_heavier_links_are_straightened_first(weights: tuple[float, float], line: float) -> None:
    # 1 lies between 0 (on line 0) and 2 (on line 20), each aligned with one more vertex,
    # and blocks of more than one vertex may not move here: 1 joins the heavier link's line
    links: Links = [(3, 0, 1.0), (0, 1, weights[0]), (1, 2, weights[1]), (2, 4, 1.0)]
    result = straighten(Placement([0.0, 10.0, 20.0, 0.0, 20.0], []), spacing([[3], [0], [1], [2], [4]]), links,
                        budgets=Budgets(swap_push_limit=1))
    assert result.positions == [0.0, line, 20.0, 0.0, 20.0]


def test_a_move_pushes_the_neighbours_in_its_way_and_keeps_the_gaps() -> None:
    # 0 is aligned with 3, and blocks of more than one vertex may not move here, so 1 moves
    # onto 0's line (25 down) and pushes 2, which stood at the least distance below it
    links: Links = [(3, 0, 1.0), (0, 1, 1.0)]
    layers = [[3], [0], [1, 2]]
    space = spacing(layers)
    result = straighten(Placement([35.0, 10.0, 40.0, 35.0], []), space, links, budgets=Budgets(swap_push_limit=1))
    assert result.positions == [35.0, 35.0, 65.0, 35.0]
    assert_constraints_hold(result, space)


def test_a_move_out_of_its_lane_pushes_the_boundary_and_the_lanes_beyond() -> None:
    # lane 0 holds 3, 0 (layers 0 and 1) and 1 (layer 2, reaching 20 after its anchor),
    # lane 1 holds 2; 1 moves onto 0's line at 45, which takes it past lane 0's end: the
    # boundary and lane 1 with its vertex move by the same 25
    links: Links = [(3, 0, 1.0), (0, 1, 1.0)]
    layers = [[3], [0, 2], [1]]
    space = spacing(layers, after=[10.0, 20.0, 10.0, 10.0])
    bands = Bands([0, 0, 1, 0], [2.0] * 4, [10.0, 10.0])
    result = straighten(Placement([45.0, 20.0, 75.0, 45.0], [0.0, 60.0, 120.0]), space, links, bands=bands,
                        budgets=Budgets(swap_push_limit=1))
    assert result.positions == [45.0, 45.0, 100.0, 45.0]
    assert result.boundaries == [0.0, 85.0, 145.0]
    assert_constraints_hold(result, space, bands)


def test_two_links_that_swap_lines_are_parted() -> None:
    # 0 → 3 runs from line 0 to line 40 and 1 → 2 from 40 to 0: in the channel they
    # would share both lines, so one end moves off by SWAP_NUDGE
    links: Links = [(0, 3, 1.0), (1, 2, 1.0)]
    layers = [[0, 1], [2, 3]]
    space = spacing(layers)
    result = straighten(Placement([0.0, 40.0, 0.0, 40.0], []), space, links)
    at = result.positions
    # the first end tried, the second link's lower end 2, moves off line 0 (the way with room)
    assert at == [0.0, 40.0, -SWAP_NUDGE, 40.0]
    assert_constraints_hold(result, space)


def test_without_passes_small_steps_stay() -> None:
    placement = Placement([0.0, 12.0], [])
    assert straighten(placement, spacing([[0], [1]]), [(0, 1, 1.0)],
                      budgets=Budgets(straighten_passes=0)).positions == placement.positions


def test_a_hand_made_drawing_keeps_its_constraints_and_loses_small_steps() -> None:
    # three layers of three, links between neighbours' lines a few units off
    layers = [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    links: Links = [(0, 3, 1.0), (1, 4, 2.0), (2, 5, 1.0), (3, 6, 8.0), (4, 7, 1.0), (5, 8, 2.0), (1, 5, 1.0)]
    positions = [0.0, 40.0, 80.0, 7.0, 45.0, 110.0, 0.0, 52.0, 95.0]
    space = spacing(layers)
    result = straighten(Placement(positions, []), space, links)
    assert_constraints_hold(result, space)
    assert small_steps(result.positions, links) < small_steps(positions, links)


def test_straighten_does_not_change_its_input() -> None:
    placement = Placement([0.0, 12.0], [])
    straighten(placement, spacing([[0], [1]]), [(0, 1, 1.0)])
    assert placement.positions == [0.0, 12.0]
