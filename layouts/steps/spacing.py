"""What coordinate assignment works with: the lanes a vertex must stay in, the order and
gap constraints within a layer, and the resulting positions (``placement.py`` finds
them, ``straighten.py`` removes small steps from them)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bands:
    """Lane constraints: ``lane[v]`` in ``0..len(min_extent)-1`` for every vertex,
    ``padding[v]`` the room kept between a vertex and its lane's edges."""

    lane: Sequence[int]
    padding: Sequence[float]
    min_extent: Sequence[float]
    height_cost: float = 0.05


@dataclass(frozen=True, slots=True)
class Spacing:
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
