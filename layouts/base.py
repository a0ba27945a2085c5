"""The one interface every layout strategy implements, and the options they share."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.geometry import Layout
from layouts.graph import LayoutGraph
from layouts.sketch import Sketch


class LayoutError(ValueError):
    """The graph cannot be laid out by this strategy (message is user-facing)."""


@dataclass(frozen=True, slots=True)
class LayoutOptions:
    """Spacings in user units. ``node_spacing`` separates neighbours within a layer,
    ``layer_spacing`` is the least gap between layers, ``edge_spacing`` separates
    parallel edge segments, ``margin`` surrounds the drawing; ``budgets`` bound the
    steps' work (``layouts/budgets.py``). A flow drawing of at least ``wrap_min_nodes``
    shapes longer than ``wrap_aspect`` times its width is folded into strips
    (``layouts/steps/wrap.py``). ``sketch``, the drawing of the diagram's previous
    version, keeps shapes where they stood as far as it costs at most one crossing
    (``layouts/sketch.py``)."""

    node_spacing: float = 30.0
    layer_spacing: float = 50.0
    edge_spacing: float = 12.0
    margin: float = 20.0
    ordering_sweeps: int = 24
    wrap_aspect: float = 4.0
    wrap_min_nodes: int = 150
    sketch: Sketch | None = None
    budgets: Budgets = DEFAULT_BUDGETS


class LayoutStrategy(Protocol):
    @property
    def key(self) -> str: ...

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout: ...
