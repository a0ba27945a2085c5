"""Geometry invariants every layout must keep, checked on a ``Layout`` directly."""
from __future__ import annotations

from layouts.geometry import Box, Layout, Point
from layouts.graph import LayoutGraph

TOLERANCE = 0.5


def intersects(a: Box, b: Box, tolerance: float = TOLERANCE) -> bool:
    """Do the boxes share more than a ``tolerance``-wide strip?"""
    return min(a.right, b.right) - max(a.x, b.x) > tolerance and min(a.bottom, b.bottom) - max(a.y, b.y) > tolerance


def inside(inner: Box, outer: Box, tolerance: float = 0.01) -> bool:
    return (inner.x >= outer.x - tolerance and inner.y >= outer.y - tolerance
            and inner.right <= outer.right + tolerance and inner.bottom <= outer.bottom + tolerance)


def overlapping_pairs(layout: Layout, nesting: bool = False) -> list[tuple[str, str]]:
    """Pairs of intersecting boxes; with ``nesting`` (graphic) a box wholly inside
    another is a child in its container, not an overlap (as the shared checker counts)."""
    boxes = [(n.id, n.box) for n in layout.nodes]
    return [(a_id, b_id) for i, (a_id, a) in enumerate(boxes) for b_id, b in boxes[i + 1:]
            if intersects(a, b) and not (nesting and (inside(a, b) or inside(b, a)))]


def segment_enters(p: Point, q: Point, box: Box, tolerance: float = 1.0) -> bool:
    """Does the axis-parallel segment p-q pass through the interior of ``box``?"""
    x0, y0, x1, y1 = box.x + tolerance, box.y + tolerance, box.right - tolerance, box.bottom - tolerance
    if abs(p[1] - q[1]) < 1e-9:
        lo, hi = sorted((p[0], q[0]))
        return y0 < p[1] < y1 and lo < x1 and hi > x0
    lo, hi = sorted((p[1], q[1]))
    return x0 < p[0] < x1 and lo < y1 and hi > y0


def edges_through_shapes(layout: Layout) -> list[tuple[str, str, str]]:
    hits = []
    for edge in layout.edges:
        for node in layout.nodes:
            if node.id in (edge.source, edge.target):
                continue
            if any(segment_enters(p, q, node.box) for p, q in zip(edge.points, edge.points[1:])):
                hits.append((edge.source, edge.target, node.id))
    return hits


def non_orthogonal_segments(layout: Layout) -> list[tuple[str, str]]:
    return [(e.source, e.target) for e in layout.edges for p, q in zip(e.points, e.points[1:])
            if abs(p[0] - q[0]) > 1e-6 and abs(p[1] - q[1]) > 1e-6]


def endpoint_problems(layout: Layout) -> list[str]:
    """Each route must start on its source's box and end on its target's box."""
    boxes = {n.id: n.box for n in layout.nodes}
    problems = []
    for edge in layout.edges:
        for point, node_id in ((edge.points[0], edge.source), (edge.points[-1], edge.target)):
            if not on_boundary(point, boxes[node_id]):
                problems.append(f"{edge.source}->{edge.target} does not touch {node_id} at {point}")
    return problems


def on_boundary(point: Point, box: Box, tolerance: float = 0.6) -> bool:
    x, y = point
    inside_x = box.x - tolerance <= x <= box.right + tolerance
    inside_y = box.y - tolerance <= y <= box.bottom + tolerance
    on_vertical = min(abs(x - box.x), abs(x - box.right)) <= tolerance and inside_y
    on_horizontal = min(abs(y - box.y), abs(y - box.bottom)) <= tolerance and inside_x
    return on_vertical or on_horizontal


def within_canvas(layout: Layout) -> bool:
    for node in layout.nodes:
        if node.box.x < 0 or node.box.y < 0 or node.box.right > layout.width or node.box.bottom > layout.height:
            return False
    return all(0 <= x <= layout.width and 0 <= y <= layout.height for e in layout.edges for x, y in e.points)


def label_collisions(layout: Layout) -> list[tuple[str, str]]:
    """Outside labels that overlap a symbol or another label."""
    regions = [(n.id, n.box) for n in layout.nodes] + [(n.id + "#label", n.label)
                                                       for n in layout.nodes if n.label]
    hits = []
    for i, (a_id, a) in enumerate(regions):
        for b_id, b in regions[i + 1:]:
            if (a_id.endswith("#label") or b_id.endswith("#label")) and intersects(a, b):
                hits.append((a_id, b_id))
    return hits


def lane_violations(layout: Layout, lane_of: dict[str, str]) -> list[str]:
    """Nodes not wholly inside the body of their lane."""
    bodies = {lane.id: lane.box for lane in layout.lanes}
    outside = []
    for node in layout.nodes:
        body = bodies.get(lane_of[node.id])
        box = node.box
        if body is None or not (body.x <= box.x and box.right <= body.right
                                and body.y <= box.y and box.bottom <= body.bottom):
            outside.append(node.id)
    return outside


def nesting_problems(graph: LayoutGraph, layout: Layout) -> list[str]:
    """``graphic``: a container's box is its whole area, its header strip the top
    ``height``; each child lies inside its parent's box, below the parent's header, and
    comes after its parent in ``Layout.nodes`` (overlays are written parents first)."""
    placed = {n.id: n for n in layout.nodes}
    position = {n.id: index for index, n in enumerate(layout.nodes)}
    header_height = {n.id: n.height for n in graph.nodes}
    problems = []
    for node in graph.nodes:
        if node.parent is None:
            continue
        parent, child = placed[node.parent].box, placed[node.id].box
        if not inside(child, parent):
            problems.append(f"{node.id} is outside its parent {node.parent}")
        if child.y < parent.y + header_height[node.parent] - 1e-6:
            problems.append(f"{node.id} covers the header of {node.parent}")
        if position[node.id] < position[node.parent]:
            problems.append(f"{node.id} comes before its parent {node.parent}")
    return problems


def satellite_problems(graph: LayoutGraph, layout: Layout) -> list[str]:
    """``detailed``: each satellite beside its host (left or right, level with it within
    four satellite heights), the host without an outside label."""
    placed = {n.id: n for n in layout.nodes}
    problems = []
    for node in graph.nodes:
        if node.role != "satellite" or node.parent is None:
            continue
        host, satellite = placed[node.parent], placed[node.id].box
        if host.label is not None:
            problems.append(f"host {node.parent} keeps an outside label")
        level = satellite.y < host.box.bottom + 4 * satellite.h and satellite.bottom > host.box.y - 4 * satellite.h
        if not level or not (satellite.x >= host.box.right or satellite.right <= host.box.x):
            problems.append(f"{node.id} is not beside {node.parent}")
    return problems


def matrix_tiling_problems(graph: LayoutGraph, layout: Layout) -> list[str]:
    """Matrices: one cell per crossing, rows by columns, each as tall as its row header
    and level with it, as wide as its column header and under it."""
    headers = {n.id: n.box for n in layout.nodes}
    rows = [n.id for n in graph.nodes if n.role == "row"]
    columns = [n.id for n in graph.nodes if n.role == "column"]
    problems = []
    if [(c.row_id, c.column_id) for c in layout.cells] != [(r, c) for r in rows for c in columns]:
        problems.append("the cells are not the crossings of rows and columns in order")
    for cell in layout.cells:
        row, column = headers[cell.row_id], headers[cell.column_id]
        if (cell.box.y, cell.box.h) != (row.y, row.h) or (cell.box.x, cell.box.w) != (column.x, column.w):
            problems.append(f"cell {cell.row_id}/{cell.column_id} is not at its row and column")
    return problems


def entity_label_problems(layout: Layout) -> list[str]:
    """``entityRelationship``: every route passes through its group's label box (the first
    route of a group carries it); labels lie on the canvas, cover no entity nor each other."""
    problems = []
    for route in layout.edges:
        label = route.label or next((r.label for r in layout.edges if r.key == route.key
                                     and r.target == route.target and r.label is not None), None)
        if label is None:
            continue
        if not any(min(p[0], q[0]) - 0.1 <= label.cx <= max(p[0], q[0]) + 0.1
                   and min(p[1], q[1]) - 0.1 <= label.cy <= max(p[1], q[1]) + 0.1
                   for p, q in zip(route.points, route.points[1:])):
            problems.append(f"{route.source}->{route.target} misses its label")
    labels = [route.label for route in layout.edges if route.label is not None]
    canvas = Box(0, 0, layout.width, layout.height)
    for i, label in enumerate(labels):
        if not inside(label, canvas) or any(intersects(label, node.box) for node in layout.nodes):
            problems.append(f"label {label} is off the canvas or covers an entity")
        if any(intersects(label, other) for other in labels[i + 1:]):
            problems.append(f"label {label} overlaps another")
    return problems
