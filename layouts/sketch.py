"""The drawing of a diagram's previous version, as the layered layout's sketch (issue 22).

A ``Sketch`` holds, in the flow's own terms (``along`` the flow, ``across`` it), where
each shape of the old drawing stood and where each edge ran: all a new layout needs to
keep a reader's mental map. It is made from a positioned ``Layout`` (``Sketch.of``) and
written as compact JSON (``to_json``/``from_json``) for the store and for files, so the
same content and the same sketch give the same drawing.

A drawing wrapped into strips (``steps/wrap.py``) is read unfolded (``steps/folds.py``): each shape and route
point where it stood before the wrapping, and ``cuts``, where the strips were cut along
the flow, so that the new drawing can be cut in the same places.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from layouts.geometry import Direction, Layout, Point
from layouts.steps.folds import folds_of, unfolded

#: Coordinates kept to this many decimals: a sketch is a plan, not a drawing.
DECIMALS = 1


@dataclass(frozen=True, slots=True)
class Sketch:
    """``nodes``: shape id → (along, across) centre; ``routes``: (source id, target id) →
    the route's points (along, across), the first route of each pair; ``cuts``: where a
    wrapped drawing was cut into strips, along the flow (empty: not wrapped); ``lanes``:
    lane id → where the lane began and ended across the flow (empty: no lanes)."""

    nodes: dict[str, Point] = field(default_factory=dict)
    routes: dict[tuple[str, str], tuple[Point, ...]] = field(default_factory=dict)
    cuts: tuple[float, ...] = ()
    lanes: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __hash__(self) -> int:  # options holding a sketch stay usable as keys
        return hash(self.to_json())

    @classmethod
    def of(cls, layout: Layout, direction: Direction) -> Sketch:
        def flow(point: Point) -> Point:
            x, y = point
            return (y, x) if direction.swapped else (x, y)

        spans = [(box.y, box.bottom) if not direction.swapped else (box.x, box.right)
                 for box in (node.box for node in layout.nodes)]
        drawn_routes = [[flow(point) for point in edge.points] for edge in layout.edges]
        folds = folds_of(spans, drawn_routes)

        def kept(point: Point) -> Point | None:
            place = unfolded(point, folds)
            return None if place is None else (round(place[0], DECIMALS), round(place[1], DECIMALS))

        nodes: dict[str, Point] = {}
        for node in layout.nodes:
            centre = kept(flow((node.box.cx, node.box.cy)))
            if centre is not None:
                nodes[node.id] = centre
        routes: dict[tuple[str, str], tuple[Point, ...]] = {}
        for edge, points in zip(layout.edges, drawn_routes):
            routes.setdefault((edge.source, edge.target),
                              tuple(place for place in map(kept, points) if place is not None))
        lanes = {lane.id: (round(lane.box.y, DECIMALS), round(lane.box.bottom, DECIMALS)) if not direction.swapped
                 else (round(lane.box.x, DECIMALS), round(lane.box.right, DECIMALS)) for lane in layout.lanes}
        return cls(nodes, routes, tuple(round(fold.cut, DECIMALS) for fold in folds), lanes)

    def to_json(self) -> str:
        record: dict[str, Any] = {
            "nodes": self.nodes,
            "routes": [[source, target, points] for (source, target), points in self.routes.items()]}
        # only a wrapped drawing's cuts and a swimlane drawing's lanes: the sketches of
        # the others stay as they were
        if self.cuts:
            record["cuts"] = self.cuts
        if self.lanes:
            record["lanes"] = self.lanes
        return json.dumps(record, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Sketch:
        """The sketch ``to_json`` wrote; ``ValueError`` with a one-line reason otherwise."""
        try:
            raw: Any = json.loads(text)
            nodes = {str(key): _point(value) for key, value in raw["nodes"].items()}
            routes = {(str(source), str(target)): tuple(_point(point) for point in points)
                      for source, target, points in raw["routes"]}
            cuts = tuple(float(cut) for cut in raw.get("cuts", ()))
            lanes = {str(key): _point(value) for key, value in raw.get("lanes", {}).items()}
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"not a layout sketch: {error}") from None
        return cls(nodes, routes, cuts, lanes)

    def across_at(self, source: str, target: str, along: float) -> float | None:
        """Where the old route from ``source`` to ``target`` ran across the flow at
        ``along`` (its segment there, else its nearest point), None without one."""
        points = self.routes.get((source, target))
        if not points:
            return None
        for (a_along, a_across), (b_along, b_across) in zip(points, points[1:]):
            if min(a_along, b_along) <= along <= max(a_along, b_along) and a_across == b_across:
                return a_across
        return min(points, key=lambda point: abs(point[0] - along))[1]


def _point(value: Any) -> Point:
    along, across = value
    return float(along), float(across)
