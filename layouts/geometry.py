"""What a layout strategy returns: positioned boxes, orthogonal routes, lanes, cells.

Frozen plain data in SVG user units, origin top-left, y pointing down. The SVG writer
draws exactly this and decides no position of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h


@dataclass(frozen=True, slots=True)
class NodeBox:
    """A placed node: ``box`` is the symbol (and the overlay; a container's whole box),
    ``label`` the box reserved for a label outside the symbol, if any."""

    id: str
    box: Box
    label: Box | None = None


@dataclass(frozen=True, slots=True)
class EdgeRoute:
    """An edge as a polyline of axis-parallel segments from source to target; the arrow
    goes at the last point. ``label`` is where an edge label goes, if any."""

    source: str
    target: str
    points: tuple[Point, ...]
    label: Box | None = None
    key: str = ""


@dataclass(frozen=True, slots=True)
class LaneBand:
    """A swimlane: ``box`` is the lane body, ``header`` the strip holding its name."""

    id: str
    box: Box
    header: Box


@dataclass(frozen=True, slots=True)
class Cell:
    """A matrix cell at the crossing of a row and a column element."""

    row_id: str
    column_id: str
    box: Box


@dataclass(frozen=True, slots=True)
class Layout:
    width: float
    height: float
    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeRoute, ...] = field(default=())
    lanes: tuple[LaneBand, ...] = field(default=())
    cells: tuple[Cell, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Direction:
    """``horizontal`` (flow left to right) or ``vertical`` (top to bottom)."""

    name: str

    @property
    def swapped(self) -> bool:
        return self.name == "vertical"

    def to_abstract(self, width: float, height: float) -> tuple[float, float]:
        return (height, width) if self.swapped else (width, height)

    def point(self, r: float, o: float) -> Point:
        return (o, r) if self.swapped else (r, o)

    def box(self, r: float, o: float, r_extent: float, o_extent: float) -> Box:
        if self.swapped:
            return Box(o, r, o_extent, r_extent)
        return Box(r, o, r_extent, o_extent)


HORIZONTAL = Direction("horizontal")
VERTICAL = Direction("vertical")
