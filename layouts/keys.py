"""The layout keys, in the seed's order (endpoint 16): the one list every part reads.

A module of its own, importing nothing, so the service can name and check the keys
without loading the engine.
"""
from __future__ import annotations

LAYOUT_KEYS: tuple[str, ...] = (
    "detailed", "vertical", "horizontal", "verticalSwimlane", "horizontalSwimlane",
    "graphic", "processMatrix", "customerMatrix", "entityRelationship",
)
