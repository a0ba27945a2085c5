"""Wrapping: a long flow folded into strips stacked across the flow, so that a drawing of
hundreds of shapes is not a ribbon many times wider than high (issue 21, item 2).

Expects a finished drawing without lanes or cells, in horizontal terms (flow along x;
``wrap_layout`` turns a vertical drawing first and back after). Guarantees: when the
drawing holds at least ``min_nodes`` nodes and is more than ``max_aspect`` times longer
than wide, it is cut at k - 1 places along the flow into k strips (the fewest that bring
the estimated aspect to ``max_aspect``), each cut in a gap no shape or label spans and no
edge runs across, near an even division and where the fewest edges pass. Strip k sits
below strip k - 1, starting at the left again. An edge passing a cut leaves the strip at
its right end, runs down into the gap between the strips, back to the left and into the
next strip at the height it had at the cut: four bends of its own, on tracks nested so
that no two such edges cross each other (the edge highest at the cut takes the outermost
column on the right, the deepest track in the gap and the innermost column on the left).
Nothing else moves within its strip, so crossings and the shapes' order within a strip
stay as they were. Otherwise the drawing is returned as it is.

Given where the previous drawing was cut (``Previous``, from its sketch, issue 22), a
drawing that still needs wrapping is cut in the same places: each cut in a gap between
the shapes that stood before the old cut and those that stood after it (the gap with the
fewest edges passing), so every old shape stays in its strip; where a cut finds no such
gap, the cuts are chosen afresh. ``steps/folds.py`` reads the cuts back from a wrapped drawing.

This is ELK Layered's "graph wrapping" idea done after routing, on plain geometry.
"""
from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from layouts.geometry import Box, Direction, Layout, NodeBox, Point
from layouts.steps.compose import simplify_route


@dataclass(frozen=True, slots=True)
class WrapOptions:
    """``max_aspect``: length along the flow over width across it, at most; ``min_nodes``:
    smaller drawings are never wrapped (a short ribbon reads well); ``spacing`` between
    wrap tracks, ``margin`` around the drawing."""

    max_aspect: float
    min_nodes: int
    spacing: float
    margin: float


@dataclass(frozen=True, slots=True)
class Previous:
    """The previous drawing's ``cuts`` along the flow and where each of its shapes stood
    along the flow (``along``), both unfolded (``layouts.sketch.Sketch``)."""

    cuts: Sequence[float]
    along: Mapping[str, float]


def wrap_layout(layout: Layout, direction: Direction, options: WrapOptions, previous: Previous | None = None) -> Layout:
    """``layout`` folded into strips when it is long and large enough (module docstring)."""
    if layout.lanes or layout.cells or len(layout.nodes) < options.min_nodes:
        return layout
    if direction.swapped:
        return _transposed(_wrap(_transposed(layout), options, previous))
    return _wrap(layout, options, previous)


def _wrap(layout: Layout, options: WrapOptions, previous: Previous | None) -> Layout:
    length, width = layout.width, layout.height
    if width <= 0 or length / width <= options.max_aspect:
        return layout
    candidates = _cut_candidates(layout)
    if not candidates:
        return layout
    kept = _kept_cuts(layout, candidates, previous) if previous is not None and previous.cuts else None
    if kept:
        return _fold(layout, kept, options)
    # strips are thinner than the whole drawing, so the estimate may fall short: add
    # strips until the folded drawing meets the aspect (or strips run out of places)
    strips = _strip_count(length, width, options)
    while True:
        cuts = _choose_cuts(candidates, length, strips)
        folded = _fold(layout, cuts, options) if cuts else layout
        if folded.width <= options.max_aspect * folded.height or len(cuts) < strips - 1:
            return folded
        strips += 1


def _strip_count(length: float, width: float, options: WrapOptions) -> int:
    """The fewest strips whose estimated aspect is at most ``max_aspect``."""
    strips = 2
    while (length / strips) / (strips * width) > options.max_aspect:
        strips += 1
    return strips


def _occupied(layout: Layout) -> list[tuple[float, float]]:
    """Merged x-extents of every shape and label."""
    spans = sorted((box.x, box.right) for node in layout.nodes for box in (node.box, node.label) if box is not None)
    spans += sorted((edge.label.x, edge.label.right) for edge in layout.edges if edge.label is not None)
    spans.sort()
    merged: list[tuple[float, float]] = []
    for low, high in spans:
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _cut_candidates(layout: Layout) -> list[tuple[float, int]]:
    """Places a cut may go, each with the number of edges passing it: the middle of the
    widest stretch of each gap between shapes that no vertical edge segment touches."""
    verticals = sorted({p[0] for edge in layout.edges for p, q in zip(edge.points, edge.points[1:])
                        if abs(p[0] - q[0]) < 1e-9 and abs(p[1] - q[1]) > 1e-9})
    occupied = _occupied(layout)
    candidates = []
    for (_, gap_low), (gap_high, _) in zip(occupied, occupied[1:]):
        inside = verticals[bisect.bisect_right(verticals, gap_low):bisect.bisect_left(verticals, gap_high)]
        stops = [gap_low, *inside, gap_high]
        low, high = max(zip(stops, stops[1:]), key=lambda pair: pair[1] - pair[0])
        if high - low < 2.0:
            continue
        cut = (low + high) / 2
        passing = sum(1 for edge in layout.edges for p, q in zip(edge.points, edge.points[1:])
                      if min(p[0], q[0]) < cut < max(p[0], q[0]))
        candidates.append((cut, passing))
    return candidates


def _choose_cuts(candidates: list[tuple[float, int]], length: float, strips: int) -> list[float]:
    """For each even division of the length, the candidate within a quarter strip of it
    with the fewest edges passing (then the nearest); the nearest one when none is."""
    reach = length / strips / 4
    cuts: list[float] = []
    for index in range(1, strips):
        ideal = length * index / strips
        near = [(passing, abs(cut - ideal), cut) for cut, passing in candidates
                if abs(cut - ideal) <= reach and (not cuts or cut > cuts[-1])]
        if not near:
            near = [(0, abs(cut - ideal), cut) for cut, _ in candidates if not cuts or cut > cuts[-1]]
        if near:
            cuts.append(min(near)[2])
    return cuts


def _kept_cuts(layout: Layout, candidates: list[tuple[float, int]], previous: Previous) -> list[float] | None:
    """A cut in the gap between the shapes before each previous cut and those after it
    (the fewest edges passing, then the middle of the gap); None when a cut has no such gap."""
    cuts: list[float] = []
    for old in previous.cuts:
        ends = [(node.box.right, node.box.x, previous.along[node.id] < old) for node in layout.nodes
                if node.id in previous.along]
        low = max((right for right, _, before in ends if before), default=-math.inf)
        high = min((left for _, left, before in ends if not before), default=math.inf)
        middle = (low + high) / 2 if math.isfinite(low + high) else 0.0
        near = [(passing, abs(cut - middle), cut) for cut, passing in candidates
                if low < cut < high and (not cuts or cut > cuts[-1])]
        if not near:
            return None
        cuts.append(min(near)[2])
    return cuts


def _strip_of(x: float, cuts: list[float]) -> int:
    return bisect.bisect_right(cuts, x)


#: A route's run within one strip: the strip, its points, and the cut that ends it with
#: the height the route passes it at (None for the route's last run).
Run = tuple[int, list[Point], tuple[int, float] | None]


def _runs(points: tuple[Point, ...], cuts: list[float]) -> list[Run]:
    """The route cut at every cut it passes (only horizontal segments pass one: the cuts
    avoid vertical segments)."""
    runs: list[Run] = []
    current = [points[0]]
    strip = _strip_of(points[0][0], cuts)
    for p, q in zip(points, points[1:]):
        forward = q[0] > p[0]
        passed = [index for index, cut in enumerate(cuts) if min(p[0], q[0]) < cut < max(p[0], q[0])]
        for index in (passed if forward else passed[::-1]):
            current.append((cuts[index], p[1]))
            runs.append((strip, current, (index, p[1])))
            strip = index + 1 if forward else index
            current = [(cuts[index], p[1])]
        current.append(q)
    runs.append((strip, current, None))
    return runs


def _fold(layout: Layout, cuts: list[float], options: WrapOptions) -> Layout:
    spacing = options.spacing
    strips = len(cuts) + 1
    routes = [_runs(edge.points, cuts) for edge in layout.edges]
    # the edges passing each cut, ranked by height: rank 1 is the highest at the cut
    crossings: list[list[tuple[float, int]]] = [[] for _ in cuts]
    for index, runs in enumerate(routes):
        for _, _, passing in runs:
            if passing is not None:
                crossings[passing[0]].append((passing[1], index))
    rank: dict[tuple[int, int, float], int] = {}
    for cut, at_cut in enumerate(crossings):
        for position, (y, edge_index) in enumerate(sorted(at_cut), start=1):
            rank[(edge_index, cut, y)] = position
    tracks = [len(at_cut) for at_cut in crossings]
    # each strip's extent across the flow, and its offsets
    low = [math.inf] * strips
    high = [-math.inf] * strips
    for node in layout.nodes:
        strip = _strip_of(node.box.cx, cuts)
        for box in (node.box, node.label):
            if box is not None:
                low[strip], high[strip] = min(low[strip], box.y), max(high[strip], box.bottom)
    for runs in routes:
        for strip, run, _ in runs:
            for point in run:
                low[strip], high[strip] = min(low[strip], point[1]), max(high[strip], point[1])
    first_x = min(node.box.x for node in layout.nodes)
    dx = [0.0] * strips
    dy = [0.0] * strips
    for strip in range(1, strips):
        left_room = (tracks[strip - 1] + 1) * spacing
        dx[strip] = first_x + left_room - cuts[strip - 1]
        gap = (tracks[strip - 1] + 1) * spacing
        if not math.isfinite(low[strip]):
            low[strip] = high[strip] = high[strip - 1]
        dy[strip] = high[strip - 1] + dy[strip - 1] + gap - low[strip]

    def moved(point: Point, strip: int) -> Point:
        return point[0] + dx[strip], point[1] + dy[strip]

    def connector(cut: int, y: float, edge_index: int) -> list[Point]:
        """From the end of strip ``cut`` to the start of strip ``cut + 1``, at height ``y``."""
        position, count = rank[(edge_index, cut, y)], tracks[cut]
        right = cuts[cut] + dx[cut] + (count - position + 1) * spacing
        below = high[cut] + dy[cut] + (count - position + 1) * spacing
        left = cuts[cut] + dx[cut + 1] - position * spacing
        return [(right, y + dy[cut]), (right, below), (left, below), (left, y + dy[cut + 1])]

    edges = []
    for index, (edge, runs) in enumerate(zip(layout.edges, routes)):
        points: list[Point] = []
        for (strip, run, passing), following in zip(runs, [*runs[1:], None]):
            points += [moved(point, strip) for point in run]
            if following is not None and passing is not None:
                cut, y = passing
                bridge = connector(cut, y, index)
                points += bridge if following[0] > strip else bridge[::-1]
        label = edge.label
        if label is not None:
            strip = _strip_of(label.cx, cuts)
            label = replace(label, x=label.x + dx[strip], y=label.y + dy[strip])
        edges.append(replace(edge, points=tuple(simplify_route(points)), label=label))
    nodes = []
    for node in layout.nodes:
        strip = _strip_of(node.box.cx, cuts)
        shift = (dx[strip], dy[strip])
        nodes.append(NodeBox(node.id, _shifted(node.box, shift),
                             None if node.label is None else _shifted(node.label, shift)))
    right_end = max([node.box.right for node in nodes] + [p[0] for edge in edges for p in edge.points])
    bottom = max([(node.label or node.box).bottom for node in nodes] + [node.box.bottom for node in nodes]
                 + [p[1] for edge in edges for p in edge.points])
    return Layout(right_end + options.margin, bottom + options.margin, tuple(nodes), tuple(edges))


def _shifted(box: Box, shift: tuple[float, float]) -> Box:
    return Box(box.x + shift[0], box.y + shift[1], box.w, box.h)


def _transposed(layout: Layout) -> Layout:
    def box(b: Box) -> Box:
        return Box(b.y, b.x, b.h, b.w)

    return Layout(layout.height, layout.width,
                  tuple(NodeBox(n.id, box(n.box), None if n.label is None else box(n.label)) for n in layout.nodes),
                  tuple(replace(e, points=tuple((y, x) for x, y in e.points),
                                label=None if e.label is None else box(e.label)) for e in layout.edges))

