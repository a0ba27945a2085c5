"""Where black-box pools lie in the stack of pools, and how thick: as a modeller puts them,
above or below the pools they exchange messages with, wherever their message flows run
shortest and straightest, and ``BLACK_BOX`` thick (the band of a pool with nothing in it).

The engine orders a black box's band among the others by the links to its ports
(``interchange.layout_graph``), which weigh crossings, not the message flows' length: it
tends to stack every black box after the pool of the start. Here the finished stack is
reordered: each black box in turn (stack order), alone or with the black boxes next to
it, goes to the gap between two pools (or the stack's top or bottom) where the message
flows of every black box cost least, the others staying in their order. A flow to a
node costs its length across the flow, plus ``STEP_ASIDE`` where a straight line from
the node's middle to the pool would enter another node (the route would then step
aside, two bends); a flow to another pool its length across. Ties keep the engine's
place. Worked out across the flow only: every pool spans the whole drawing along it, so
a move is a shift of the pool's contents across the flow. Deterministic.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from layouts.geometry import Box, Point

BLACK_BOX = 60.0  # the thickness the corpus's authors give a black-box pool most often
STEP_ASIDE = 300.0  # what a Z costs against a straight line, in units of length
PASSES = 4  # rounds of moves, each black box once per round, while one changes the stack
OVERLAP = 0.5  # two pools that overlap by less than this across the flow touch


@dataclass(frozen=True, slots=True)
class Partner:
    """One message flow's other end, seen from a black box: a node's box and the boxes it
    may pass by (every node's but its own and its sub-processes'), or a pool's id."""

    box: Box | None = None
    obstacles: tuple[Box, ...] = ()
    pool: str = ""


@dataclass(frozen=True, slots=True)
class Stack:
    """The pools across the flow, in order: each pool's span (start, end) before and after
    the move."""

    before: dict[str, tuple[float, float]]
    after: dict[str, tuple[float, float]]
    black: frozenset[str] = frozenset()

    def moved(self, at: float, owner: str | None = None) -> float:
        """Where a coordinate across the flow goes: with the pool whose span holds it,
        scaled into a thinned black box; with ``owner`` (the pool of what it belongs to)
        where that is one of them or the others are black boxes (a boundary event's
        route reaches past its pool's border); else on the border of two pools with the
        later; outside every pool, unmoved."""
        holding = [key for key, (start, end) in self.before.items() if start <= at <= end]
        if owner is not None and (owner in holding or all(key in self.black for key in holding)):
            pool: str | None = owner
        else:
            pool = holding[-1] if holding else None
        if pool is None:
            return at
        (start, end), (new_start, new_end) = self.before[pool], self.after[pool]
        scale = (new_end - new_start) / (end - start) if end > start else 1.0
        return new_start + (at - start) * scale

    def box(self, box: Box, horizontal: bool, owner: str | None = None) -> Box:
        """A box moved with the pool that holds its middle (``moved``); a pool's own box
        (or a lane as wide) takes the pool's span."""
        start, size, middle = (box.y, box.h, box.cy) if horizontal else (box.x, box.w, box.cx)
        own = next((key for key, span in self.before.items() if span == (start, start + size)), None)
        if own is not None:
            new_start, new_end = self.after[own]
            new_size = new_end - new_start
        else:
            new_start, new_size = self.moved(middle, owner) - size / 2, size
        return Box(box.x, new_start, box.w, new_size) if horizontal else Box(new_start, box.y, new_size, box.h)

    def point(self, point: Point, horizontal: bool, owner: str | None = None) -> Point:
        return (point[0], self.moved(point[1], owner)) if horizontal else (self.moved(point[0], owner), point[1])


def restacked(pools: Mapping[str, Box], black: Sequence[str], partners: Mapping[str, Sequence[Partner]],
              horizontal: bool, least: Mapping[str, float]) -> Stack | None:
    """The stack with each black box at its cheapest place (module docstring), ``BLACK_BOX``
    thick or ``least`` (room for its flows' labels), never thicker than the engine drew
    it; None when the pools do not tile one stack across the flow."""
    def span(box: Box) -> tuple[float, float]:
        return (box.y, box.bottom) if horizontal else (box.x, box.right)

    order = sorted(pools, key=lambda pool: span(pools[pool]))
    spans = [span(pools[pool]) for pool in order]
    if any(end > start + OVERLAP for (_, end), (start, _) in zip(spans, spans[1:])):
        return None
    before = dict(zip(order, spans))
    sizes = {pool: min(max(BLACK_BOX, least.get(pool, 0.0)), end - start) if pool in black else end - start
             for pool, (start, end) in before.items()}
    origin = spans[0][0] if spans else 0.0

    def laid(sequence: list[str]) -> dict[str, tuple[float, float]]:
        found: dict[str, tuple[float, float]] = {}
        at = origin
        for pool in sequence:
            found[pool] = (at, at + sizes[pool])
            at += sizes[pool]
        return found

    def cost(sequence: list[str]) -> float:
        stack = Stack(before, laid(sequence))
        return sum(_cost(pool, stack, partners[pool], horizontal) for pool in black)

    for _ in range(PASSES):
        start = order
        for pool in [pool for pool in order if pool in black]:
            current = order.index(pool)
            places = [order]
            for block in _blocks(order, current, set(black)):
                others = [other for other in order if other not in block]
                places += [others[:index] + list(run) + others[index:]
                           for run in dict.fromkeys((block, block[::-1])) for index in range(len(others) + 1)]
            order = min(places, key=lambda place: (cost(place), abs(place.index(pool) - current)))
        if order == start:
            break
    return Stack(before, laid(order), frozenset(black))


def _blocks(order: list[str], at: int, black: set[str]) -> list[tuple[str, ...]]:
    """The runs of black boxes next to each other in ``order`` that hold its ``at``-th
    and start or end there: a black box moves alone or with its black neighbours (two
    black boxes that exchange messages move together)."""
    low, high = at, at
    while low > 0 and order[low - 1] in black:
        low -= 1
    while high + 1 < len(order) and order[high + 1] in black:
        high += 1
    return sorted({tuple(order[at:end + 1]) for end in range(at, high + 1)}
                  | {tuple(order[begin:at + 1]) for begin in range(low, at + 1)})


def _cost(pool: str, stack: Stack, partners: Sequence[Partner], horizontal: bool) -> float:
    """What the pool's message flows cost in the stack (module docstring)."""
    start, end = stack.after[pool]
    total = 0.0
    for partner in partners:
        if partner.pool:
            other_start, other_end = stack.after[partner.pool]
            total += max(other_start - end, start - other_end, 0.0)
            continue
        assert partner.box is not None
        node = stack.box(partner.box, horizontal)
        low, high = (node.y, node.bottom) if horizontal else (node.x, node.right)
        middle = node.cx if horizontal else node.cy
        near, far = (high, start) if start >= high else (end, low)
        total += max(far - near, 0.0)
        for obstacle in partner.obstacles:
            moved = stack.box(obstacle, horizontal)
            along = (moved.x, moved.right) if horizontal else (moved.y, moved.bottom)
            across = (moved.y, moved.bottom) if horizontal else (moved.x, moved.right)
            if along[0] < middle < along[1] and near < across[1] and across[0] < far:
                total += STEP_ASIDE
                break
    return total
