"""Layout key → strategy: an explicit table, spelled as the seed spells the keys."""
from __future__ import annotations

from layouts.base import LayoutStrategy
from layouts.detailed import DETAILED
from layouts.entity_relationship import ENTITY_RELATIONSHIP
from layouts.flow import HORIZONTAL_FLOW, HORIZONTAL_SWIMLANE, VERTICAL_FLOW, VERTICAL_SWIMLANE
from layouts.graphic import GRAPHIC
from layouts.matrix import CUSTOMER_MATRIX, PROCESS_MATRIX

#: Every key the render endpoint accepts (seed, endpoint 16).
LAYOUT_KEYS: tuple[str, ...] = (
    "detailed", "vertical", "horizontal", "verticalSwimlane", "horizontalSwimlane",
    "graphic", "processMatrix", "customerMatrix", "entityRelationship",
)

STRATEGIES: dict[str, LayoutStrategy] = {
    HORIZONTAL_FLOW.key: HORIZONTAL_FLOW,
    VERTICAL_FLOW.key: VERTICAL_FLOW,
    HORIZONTAL_SWIMLANE.key: HORIZONTAL_SWIMLANE,
    VERTICAL_SWIMLANE.key: VERTICAL_SWIMLANE,
    DETAILED.key: DETAILED,
    GRAPHIC.key: GRAPHIC,
    PROCESS_MATRIX.key: PROCESS_MATRIX,
    CUSTOMER_MATRIX.key: CUSTOMER_MATRIX,
    ENTITY_RELATIONSHIP.key: ENTITY_RELATIONSHIP,
}


def get_strategy(key: str) -> LayoutStrategy | None:
    """The strategy for ``key``, or None when the key is unknown or not built yet."""
    return STRATEGIES.get(key)
