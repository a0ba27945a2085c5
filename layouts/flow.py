"""``horizontal``, ``vertical`` and their swimlane variants: the process flow as a
layered drawing; the swimlane keys draw the lanes the graph carries (the builder puts
every node in a lane). A long drawing without lanes is folded into strips
(``steps/wrap.py``); such a drawing ignores ``LayoutOptions.sketch`` (its strips fold the
sketch's coordinates)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL, Direction, Layout
from layouts.graph import LayoutGraph
from layouts.layered import layered_layout
from layouts.steps.wrap import WrapOptions, wrap_layout


@dataclass(frozen=True, slots=True)
class FlowLayout:
    key: str
    direction: Direction

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        if options.sketch is not None and not graph.lanes and len(graph.nodes) >= options.wrap_min_nodes:
            # a drawing this large may have been wrapped into strips, whose folded
            # coordinates tell neither layers nor rows apart: laid out afresh (issue 22 open)
            options = replace(options, sketch=None)
        drawn = layered_layout(graph, options, self.direction)
        return wrap_layout(drawn, self.direction, WrapOptions(options.wrap_aspect, options.wrap_min_nodes,
                                                              options.edge_spacing, options.margin))


HORIZONTAL_FLOW = FlowLayout("horizontal", HORIZONTAL)
VERTICAL_FLOW = FlowLayout("vertical", VERTICAL)
HORIZONTAL_SWIMLANE = FlowLayout("horizontalSwimlane", HORIZONTAL)
VERTICAL_SWIMLANE = FlowLayout("verticalSwimlane", VERTICAL)
