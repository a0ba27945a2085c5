"""Layout key → strategy: an explicit table over the keys of ``layouts/keys.py``."""
from __future__ import annotations

from layouts.base import LayoutError, LayoutStrategy
from layouts.detailed import DETAILED
from layouts.entity_relationship import ENTITY_RELATIONSHIP
from layouts.flow import HORIZONTAL_FLOW, HORIZONTAL_SWIMLANE, VERTICAL_FLOW, VERTICAL_SWIMLANE
from layouts.graphic import GRAPHIC
from layouts.keys import LAYOUT_KEYS
from layouts.matrix import CUSTOMER_MATRIX, PROCESS_MATRIX

__all__ = ["LAYOUT_KEYS", "STRATEGIES", "UnknownLayoutKey", "get_strategy"]


class UnknownLayoutKey(LayoutError):
    """A key that is not one of ``LAYOUT_KEYS``."""


STRATEGIES: dict[str, LayoutStrategy] = {strategy.key: strategy for strategy in (
    DETAILED, VERTICAL_FLOW, HORIZONTAL_FLOW, VERTICAL_SWIMLANE, HORIZONTAL_SWIMLANE,
    GRAPHIC, PROCESS_MATRIX, CUSTOMER_MATRIX, ENTITY_RELATIONSHIP,
)}
if tuple(STRATEGIES) != LAYOUT_KEYS:  # a strategy added or renamed without its key
    raise ImportError(f"layout strategies {tuple(STRATEGIES)} do not match {LAYOUT_KEYS}")


def get_strategy(key: str) -> LayoutStrategy:
    """The strategy for ``key``; ``UnknownLayoutKey`` names the known keys otherwise."""
    strategy = STRATEGIES.get(key)
    if strategy is None:
        raise UnknownLayoutKey(f"unknown layout {key!r}; one of: {', '.join(LAYOUT_KEYS)}")
    return strategy
