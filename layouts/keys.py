"""The layout keys, in the seed's order (endpoint 16), and the keys a BPMN file is laid
out under: the one list of each every part reads.

A module of its own, importing nothing, so the service and the command line can name and
check the keys without loading the engine.
"""
from __future__ import annotations

LAYOUT_KEYS: tuple[str, ...] = (
    "detailed", "vertical", "horizontal", "verticalSwimlane", "horizontalSwimlane",
    "graphic", "processMatrix", "customerMatrix", "entityRelationship",
)

#: BPMN layout key (``elrepo layout``, the BPMN endpoints) → (the strategy of a scope
#: without pools or lanes, the strategy of one with them).
BPMN_LAYOUTS: dict[str, tuple[str, str]] = {
    "horizontal": ("horizontal", "horizontalSwimlane"),
    "horizontalSwimlane": ("horizontal", "horizontalSwimlane"),
    "vertical": ("vertical", "verticalSwimlane"),
    "verticalSwimlane": ("vertical", "verticalSwimlane"),
}
BPMN_LAYOUT_KEYS: tuple[str, ...] = tuple(BPMN_LAYOUTS)
