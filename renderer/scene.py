"""What the SVG writer draws besides geometry: per node its element, type and label lines.

A ``Scene`` is built next to the ``LayoutGraph`` by the builder of the layout key
(``renderer/flow.py`` and its siblings); the writer pairs it with the ``Layout`` a
strategy returned. Ids match ``LayoutNode.id``.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ShapeView:
    """One drawn node. ``shape_id`` goes to data-shape-id, ``guid`` (the element id) to
    data-guid, ``type`` to data-type. ``lines`` are the wrapped, ellipsized label lines;
    ``role`` as in ``LayoutNode.role``."""

    shape_id: str
    guid: str
    type: str
    lines: tuple[str, ...] = ()
    lane_id: str | None = None
    role: str = "shape"


@dataclass(frozen=True, slots=True)
class LaneView:
    id: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Scene:
    """``edge_labels`` maps an edge key (``LayoutEdge.key``) to its label lines;
    ``cell_marks`` maps (row id, column id) to the text of a matrix cell; ``legend`` lists
    (mark, meaning) pairs drawn under a matrix; ``symbol_legend`` lists (view role,
    meaning) pairs: each symbol a drawing uses for more than its type (``detailed``'s
    satellites), to be drawn small beside its meaning under the drawing;
    ``associations`` holds the keys of edges drawn as undirected associations (a dotted
    line without an arrowhead: a task and its org unit, IT system or document)."""

    diagram_id: str
    layout_key: str
    shapes: dict[str, ShapeView]
    lanes: dict[str, LaneView] = field(default_factory=dict)
    edge_labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cell_marks: dict[tuple[str, str], str] = field(default_factory=dict)
    legend: tuple[tuple[str, str], ...] = ()
    font_size: float = 12.0
    symbol_legend: tuple[tuple[str, str], ...] = ()
    associations: frozenset[str] = frozenset()
