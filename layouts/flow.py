"""``horizontal``, ``vertical`` and their swimlane variants: the process flow as a
layered drawing; the swimlane keys draw the lanes the graph carries (the builder puts
every node in a lane)."""
from __future__ import annotations

from dataclasses import dataclass

from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL, Direction, Layout
from layouts.graph import LayoutGraph
from layouts.layered import layered_layout


@dataclass(frozen=True, slots=True)
class FlowLayout:
    key: str
    direction: Direction

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        return layered_layout(graph, options, self.direction)


HORIZONTAL_FLOW = FlowLayout("horizontal", HORIZONTAL)
VERTICAL_FLOW = FlowLayout("vertical", VERTICAL)
HORIZONTAL_SWIMLANE = FlowLayout("horizontalSwimlane", HORIZONTAL)
VERTICAL_SWIMLANE = FlowLayout("verticalSwimlane", VERTICAL)
