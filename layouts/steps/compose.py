"""The last step of every layout: routes without redundant points, lanes as bands across
the flow, and the drawing moved to start at the margin with its canvas sized around it."""
from __future__ import annotations

from collections.abc import Sequence

from layouts.base import LayoutOptions
from layouts.geometry import Box, Direction, EdgeRoute, LaneBand, Layout, NodeBox


def simplify_route(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Drop repeated points and the middle of straight runs."""
    cleaned: list[tuple[float, float]] = []
    for p in points:
        p = (round(p[0], 2), round(p[1], 2))
        if cleaned and abs(cleaned[-1][0] - p[0]) < 1e-6 and abs(cleaned[-1][1] - p[1]) < 1e-6:
            continue
        if len(cleaned) >= 2:
            a, b = cleaned[-2], cleaned[-1]
            if (abs(a[0] - b[0]) < 1e-6 and abs(b[0] - p[0]) < 1e-6) or (
                    abs(a[1] - b[1]) < 1e-6 and abs(b[1] - p[1]) < 1e-6):
                cleaned[-1] = p
                continue
        cleaned.append(p)
    return cleaned


def lane_bands(lane_ids: Sequence[str], bounds: Sequence[float], header_heights: Sequence[float],
               flow_end: float, options: LayoutOptions, direction: Direction) -> list[LaneBand]:
    """Lane rectangles across the whole flow (layers from 0 to ``flow_end`` along it, lane
    ``k`` from ``bounds[k]`` to ``bounds[k + 1]`` across it, in abstract coordinates), each
    with its header strip before the first layer."""
    if not lane_ids:
        return []
    strip = max(header_heights) + 2 * options.edge_spacing
    start = -options.node_spacing / 2 - strip
    end = flow_end + options.node_spacing / 2
    return [LaneBand(lane, direction.box(start, top, end - start, bottom - top),
                     direction.box(start, top, strip, bottom - top))
            for lane, top, bottom in zip(lane_ids, bounds, bounds[1:])]


def normalize(nodes: Sequence[NodeBox], edges: Sequence[EdgeRoute], margin: float,
              lanes: Sequence[LaneBand] = ()) -> Layout:
    """Shift everything so the drawing starts at ``margin`` and size the canvas."""
    xs: list[float] = []
    ys: list[float] = []
    for lane in lanes:
        xs += [lane.box.x, lane.box.right]
        ys += [lane.box.y, lane.box.bottom]
    for node in nodes:
        for box in (node.box, node.label):
            if box is not None:
                xs += [box.x, box.right]
                ys += [box.y, box.bottom]
    for edge in edges:
        xs += [p[0] for p in edge.points]
        ys += [p[1] for p in edge.points]
    if not xs:
        return Layout(2 * margin, 2 * margin, (), ())
    dx, dy = margin - min(xs), margin - min(ys)

    def move(box: Box | None) -> Box | None:
        return None if box is None else Box(round(box.x + dx, 2), round(box.y + dy, 2), box.w, box.h)

    moved_nodes = tuple(NodeBox(n.id, move(n.box) or n.box, move(n.label)) for n in nodes)
    moved_edges = tuple(
        EdgeRoute(e.source, e.target, tuple((round(x + dx, 2), round(y + dy, 2)) for x, y in e.points),
                  move(e.label), e.key) for e in edges)
    moved_lanes = tuple(LaneBand(lane.id, move(lane.box) or lane.box, move(lane.header) or lane.header)
                        for lane in lanes)
    return Layout(round(max(xs) - min(xs) + 2 * margin, 2), round(max(ys) - min(ys) + 2 * margin, 2),
                  moved_nodes, moved_edges, moved_lanes)
