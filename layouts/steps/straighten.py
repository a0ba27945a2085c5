"""Straight where it can be: the optimum of summed lengths does not care whether a link is
straight or off by a few units, but a reader does (a small step where a straight line was
nearly possible). So a last pass, ``straighten``, moves whole blocks of aligned
vertices (a vertex with every vertex it already lies on one line with) onto the line of a
neighbour less than ``STEP_LIMIT`` away, or else clearly off it (a detour around a small
shape; farther off where the vertices it pushes along would otherwise stand a small step
off theirs), where the gaps and lanes leave room and the number of such small steps drops;
links that are straight stay straight.

Expects a placement that keeps the order and gap constraints (and lanes). Guarantees the
same constraints after every move. ``Straightening`` holds one run's state (positions,
lane boundaries, the aligned blocks found since the last move); its methods are the moves.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.steps.spacing import Bands, Placement, Spacing

STEP_LIMIT = 40.0
SWAP_NUDGE = 6.0  # how far one of two links that swap lines is moved off the other's line
ALIGNED = 0.01
FARTHER_TRIES = 2  # how many times a move clearly off a line may go farther to clear the steps it makes


def straighten(placement: Placement, spacing: Spacing, links: Sequence[tuple[int, int, float]],
               pulls: Sequence[tuple[int, int, float]] = (), bands: Bands | None = None,
               budgets: Budgets = DEFAULT_BUDGETS, fixed: frozenset[int] = frozenset()) -> Placement:
    """Remove small steps: move a block of aligned vertices onto a neighbour's line when
    the layer gaps and lanes leave room and fewer links then bend by less than
    ``STEP_LIMIT`` (see the module docstring), heavier links first; then part links that
    swap lines. ``links`` (a, b, weight) join vertices of consecutive layers, ``pulls``
    (a, b, weight) tie a loop's turn to its node (the two move together); no move takes
    a ``fixed`` vertex along (a shape held where the previous drawing had it)."""
    return Straightening(placement, spacing, links, pulls, bands, budgets, fixed).run()


class Straightening:
    """One run of ``straighten``: the positions and lane boundaries as moves change them,
    what each vertex is linked or attached to, and the aligned blocks found since the
    last move (a move may break any of them)."""

    def __init__(self, placement: Placement, spacing: Spacing, links: Sequence[tuple[int, int, float]],
                 pulls: Sequence[tuple[int, int, float]], bands: Bands | None, budgets: Budgets,
                 fixed: frozenset[int] = frozenset()) -> None:
        vertex_count = len(placement.positions)
        self.fixed = fixed
        self.position = list(placement.positions)
        self.boundaries = list(placement.boundaries)
        self.spacing = spacing
        self.links = links
        self.bands = bands
        self.budgets = budgets
        self.layer_of = [0] * vertex_count
        self.index_in_layer = [0] * vertex_count
        for k, layer in enumerate(spacing.layers):
            for i, v in enumerate(layer):
                self.layer_of[v], self.index_in_layer[v] = k, i
        self.incident: list[list[int]] = [[] for _ in range(vertex_count)]
        self.linked: list[list[int]] = [[] for _ in range(vertex_count)]  # the other end of each incident link
        for link_index, (a, b, _) in enumerate(links):
            self.incident[a].append(link_index)
            self.incident[b].append(link_index)
            self.linked[a].append(b)
            self.linked[b].append(a)
        self.attached: list[list[int]] = [[] for _ in range(vertex_count)]  # loop turns move with their node
        for a, b, _ in pulls:
            self.attached[a].append(b)
            self.attached[b].append(a)
        # blocks hold until a move: remembered for each of their vertices, forgotten by `apply`
        self.known_blocks: dict[int, set[int] | None] = {}
        self.lane_members: dict[int, list[int]] = {}
        if bands and self.boundaries:
            for v in range(vertex_count):
                self.lane_members.setdefault(bands.lane[v], []).append(v)

    def run(self) -> Placement:
        self.onto_lines()
        self.part_swapped_links()
        return Placement(self.position, self.boundaries)

    def onto_lines(self) -> None:
        """Passes over the links, heaviest first, each small step removed by the move of
        either end's block that removes most small steps around it."""
        links = self.links
        by_weight = sorted(range(len(links)), key=lambda i: (-links[i][2], i))
        for _ in range(self.budgets.straighten_passes):
            moved = False
            for link_index in by_weight:
                if not self.small_step(link_index):
                    continue
                best = self.best_move(link_index)
                if best is not None:
                    self.apply(*best)
                    moved = True
            if not moved:
                break

    def best_move(self, link_index: int) -> tuple[set[int], set[int], float] | None:
        """The vertices, lane boundaries and shift of the move that removes most small
        steps: one end's block onto the other end's line, or clearly off it; None when
        no move removes any."""
        position = self.position
        a, b, _ = self.links[link_index]
        best: tuple[int, set[int], set[int], float] | None = None
        for mover, anchor in ((a, b), (b, a)):
            block = self.block_of(mover)
            if block is None or anchor in block:
                continue
            offset = position[mover] - position[anchor]
            away = math.copysign(STEP_LIMIT + 1.0, offset) - offset
            # onto the anchor's line, or clearly off it; with shapes held where a previous
            # drawing had them, only onto it (clearly off moves a shape out of its row)
            farther = self.farther_off(block, away, anchor) if not self.fixed else []
            for shift in (-offset, *farther):
                push = self.pushed(block, shift, anchor)
                if push is not None:
                    gain = self.steps_around(push[0], 0.0) - self.steps_around(push[0], shift)
                    if gain > 0 and (best is None or gain > best[0]):
                        best = (gain, *push, shift)
        return None if best is None else best[1:]

    def part_swapped_links(self) -> None:
        """Two links that swap lines between two layers (one runs from x to y, the other
        from y to x) would share both lines in the channel whatever their slots: move one
        end off its line (with its aligned block, else alone), where that adds no small
        step, else where it adds the fewest, pushing more if need be (a step, or a part
        of the drawing moved a little, reads better than two edges on one line)."""
        links, position, budgets = self.links, self.position, self.budgets
        for first, second in _swapped_links(links, position, self.layer_of):
            if abs(position[links[first][0]] - position[links[second][1]]) <= ALIGNED:  # not parted yet
                (upper_first, lower_first, _), (upper_second, lower_second, _) = links[first], links[second]
                ends = [(lower_second, upper_second), (lower_first, upper_first),
                        (upper_second, lower_second), (upper_first, lower_first)]
                any(self.nudge(v, anchor, added, whole, limit)
                    for limit in (budgets.push_limit, budgets.swap_push_limit)
                    for added in range(3) for whole in (True, False) for v, anchor in ends)

    def small_step(self, link_index: int) -> bool:
        a, b, _ = self.links[link_index]
        return ALIGNED < abs(self.position[a] - self.position[b]) < STEP_LIMIT

    def block_of(self, start: int) -> set[int] | None:
        """``start`` with every vertex aligned with it; None past ``swap_push_limit``
        vertices (no move may take such a block along, and long aligned chains are common)."""
        if start in self.known_blocks:
            return self.known_blocks[start]
        position = self.position
        block = {start}
        stack = [start]
        while stack:
            if len(block) > self.budgets.swap_push_limit:
                self.known_blocks[start] = None
                return None
            v = stack.pop()
            at = position[v]
            for w in self.linked[v]:
                if w not in block and abs(at - position[w]) <= ALIGNED:
                    block.add(w)
                    stack.append(w)
            for w in self.attached[v]:
                if w not in block:
                    block.add(w)
                    stack.append(w)
        for v in block:
            self.known_blocks[v] = block
        return block

    def pushed(self, block: set[int], shift: float, anchor: int, limit: int | None = None
               ) -> tuple[set[int], set[int]] | None:
        """``block`` with the blocks it pushes ahead of it when moved by ``shift``, and the
        lane boundaries it pushes (with every lane beyond them); None when that would
        move ``anchor`` or more than ``limit`` vertices (``push_limit`` unless given)."""
        if limit is None:
            limit = self.budgets.push_limit
        position, spacing, bands, boundaries = self.position, self.spacing, self.bands, self.boundaries
        moving = set(block)
        moved_boundaries: set[int] = set()
        queue = list(block)
        step = 1 if shift > 0 else -1
        while queue:
            v = queue.pop()
            if bands and boundaries and self.push_lanes(v, shift, moving, moved_boundaries, queue) \
                    and len(moving) > limit:
                return None
            layer = spacing.layers[self.layer_of[v]]
            neighbour_index = self.index_in_layer[v] + step
            if not 0 <= neighbour_index < len(layer) or layer[neighbour_index] in moving:
                continue
            w = layer[neighbour_index]
            room = abs(position[w] - position[v]) - (spacing.least_distance(v, w) if step > 0
                                                     else spacing.least_distance(w, v))
            if room < abs(shift) - 1e-6:
                ahead = self.block_of(w)
                if ahead is None or anchor in ahead or len(moving) + len(ahead) > limit:
                    return None
                moving |= ahead
                queue += list(ahead)
        if anchor in moving or len(moving) > limit or not self.fixed.isdisjoint(moving):
            return None
        return moving, moved_boundaries

    def push_lanes(self, v: int, shift: float, moving: set[int], moved_boundaries: set[int],
                   queue: list[int]) -> bool:
        """Where ``v`` moved by ``shift`` would leave its lane (with its padding), the lane
        boundary it crosses and every one beyond join ``moved_boundaries``, the vertices
        of the lanes beyond ``moving`` and ``queue``; whether it did."""
        assert self.bands is not None
        boundaries, spacing = self.boundaries, self.spacing
        step = 1 if shift > 0 else -1
        lane, padding = self.bands.lane[v], self.bands.padding[v]
        far = lane + 1 if shift > 0 else lane
        extent = spacing.after[v] if shift > 0 else -spacing.before[v]
        outside = (self.position[v] + shift + extent + step * padding - boundaries[far]) * step > 1e-6
        if not outside or far in moved_boundaries:
            return False
        moved_boundaries.update(range(far, len(boundaries)) if shift > 0 else range(0, far + 1))
        for other_lane in (range(far, len(boundaries) - 1) if shift > 0 else range(0, far)):
            for w in self.lane_members.get(other_lane, []):
                if w not in moving:
                    moving.add(w)
                    queue.append(w)
        return True

    def steps_around(self, block: set[int], shift: float) -> int:
        """Small steps of the links leaving ``block`` once it has moved by ``shift``."""
        position = self.position
        count = 0
        for link_index in {i for v in block for i in self.incident[v]}:
            a, b, _ = self.links[link_index]
            if (a in block) != (b in block):
                offset = position[a] - position[b] + (shift if a in block else -shift)
                count += ALIGNED < abs(offset) < STEP_LIMIT
        return count

    def new_steps(self, vertices: set[int], shift: float) -> list[float]:
        """The offsets of the links that moving ``vertices`` by ``shift`` turns into
        small steps."""
        position = self.position
        offsets = []
        for link_index in {i for v in vertices for i in self.incident[v]}:
            a, b, _ = self.links[link_index]
            if (a in vertices) != (b in vertices):
                before = position[a] - position[b]
                after = before + (shift if a in vertices else -shift)
                if ALIGNED < abs(after) < STEP_LIMIT and not ALIGNED < abs(before) < STEP_LIMIT:
                    offsets.append(after)
        return offsets

    def farther_off(self, block: set[int], away: float, anchor: int) -> list[float]:
        """``away``, and moves farther the same way where ``away`` would take along
        vertices that then stand a small step off a neighbour: far enough to clear it."""
        shifts = [away]
        for _ in range(FARTHER_TRIES):
            push = self.pushed(block, shifts[-1], anchor)
            made = self.new_steps(push[0], shifts[-1]) if push is not None else []
            if not made:
                break
            shifts.append(shifts[-1] + math.copysign(STEP_LIMIT + 1.0 - min(map(abs, made)), away))
        return shifts

    def apply(self, vertices: set[int], lane_boundaries: set[int], shift: float) -> None:
        self.known_blocks.clear()
        for v in vertices:
            self.position[v] = round(self.position[v] + shift, 3)
        for k in lane_boundaries:
            self.boundaries[k] = round(self.boundaries[k] + shift, 3)

    def nudge(self, v: int, anchor: int, added_steps: int, whole: bool, limit: int) -> bool:
        """Move ``v`` (with its aligned block when ``whole``) off its line by ``SWAP_NUDGE``
        either way, where that adds at most ``added_steps`` small steps; whether it moved."""
        block = self.block_of(v) if whole else {v}
        if block is None:
            return False
        for shift in (SWAP_NUDGE, -SWAP_NUDGE):
            push = self.pushed(block, shift, anchor, limit)
            if push is not None and self.steps_around(push[0], shift) <= self.steps_around(push[0], 0.0) + added_steps:
                self.apply(*push, shift)
                return True
        return False


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
