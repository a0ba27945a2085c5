"""``horizontal``, ``vertical`` and their swimlane variants: the process flow as a
layered drawing; the swimlane keys draw the lanes the graph carries (the builder puts
every node in a lane). A long drawing without lanes is folded into strips
(``steps/wrap.py``); with ``LayoutOptions.sketch`` of a wrapped drawing (read unfolded),
it is laid out from the sketch and cut where the sketch was."""
from __future__ import annotations

from dataclasses import dataclass

from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL, Direction, Layout
from layouts.graph import LayoutGraph
from layouts.layered import layered_layout
from layouts.steps.wrap import Previous, WrapOptions, wrap_layout


@dataclass(frozen=True, slots=True)
class FlowLayout:
    key: str
    direction: Direction

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        drawn = layered_layout(graph, options, self.direction)
        sketch = options.sketch
        previous = None if sketch is None or not sketch.cuts else Previous(
            sketch.cuts, {shape: place[0] for shape, place in sketch.nodes.items()})
        return wrap_layout(drawn, self.direction, WrapOptions(options.wrap_aspect, options.wrap_min_nodes,
                                                              options.edge_spacing, options.margin), previous)


HORIZONTAL_FLOW = FlowLayout("horizontal", HORIZONTAL)
VERTICAL_FLOW = FlowLayout("vertical", VERTICAL)
HORIZONTAL_SWIMLANE = FlowLayout("horizontalSwimlane", HORIZONTAL)
VERTICAL_SWIMLANE = FlowLayout("verticalSwimlane", VERTICAL)
