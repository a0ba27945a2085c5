"""The compare drawing: the newer version laid out from the older one's drawing, its
changes marked (issue 22, item 3; docs/svg.md, "Change marks").

A step after layout, as the SVG writer is: both versions are laid out (the newer one
with the older drawing as its sketch, ``layouts/sketch.py``, so unchanged shapes keep
their places), ``renderer.compare.compare_diagrams`` says what changed, and the marks
are added to the newer drawing's document (``renderer.svg.draw_svg``) before its
overlays. A normal render never comes here: its bytes do not change.

Each kind of change has a colour, and never the colour alone: added shapes get a solid
thick outline and a "+" badge, changed ones a dashed outline and "Δ", moved ones a
dotted outline and "→", removed ones are ghosts (their old symbol faded, hatched, a
dashed outline and "×") where they stood, shifted as far as their old neighbours moved.
Added flows are drawn over a wide solid band, removed flows as dashed ghost lines.
Every mark, ghost and overlay of a marked shape carries ``data-change``; a legend row
under the drawing names the four kinds with their counts, in the drawing's culture.
"""
from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from layouts.base import LayoutOptions
from layouts.geometry import VERTICAL, Box, Layout, NodeBox, Point
from layouts.sketch import Sketch
from renderer.api import lay_out
from renderer.compare import ADDED, CHANGED, MOVED, REMOVED, DiagramChanges, compare_diagrams
from renderer.contract import culture_id
from renderer.culture import DEFAULT_CULTURE, ENGLISH, GERMAN, Cultures
from renderer.draw import TextStyle, centred_text, group_element, part_element, rect_element, text_block
from renderer.markup import Element, clean_text, fmt
from renderer.model import parse_diagram
from renderer.scene import Scene, ShapeView
from renderer.sketch_svg import sketch_direction
from renderer.svg import Drawing, draw_svg, finished_document, overlays, path_data
from renderer.symbols import symbol_for
from renderer.text import FontMetrics, load_font

__all__ = ["Comparison", "render_comparison"]


@dataclass(frozen=True, slots=True)
class MarkStyle:
    """How one kind of change is drawn: colour, the outline's dash pattern (empty: solid)
    and width, and the badge's character."""

    color: str
    dashes: str
    width: float
    badge: str


MARK_STYLES: dict[str, MarkStyle] = {
    ADDED: MarkStyle("#1a7f37", "", 3.0, "+"),
    CHANGED: MarkStyle("#b45309", "7 4", 2.5, "\u0394"),
    REMOVED: MarkStyle("#c53030", "4 3", 1.5, "\u00d7"),
    MOVED: MarkStyle("#2b6cb0", "1.5 3", 2.5, "\u2192"),
}
#: The legend's order and words per culture (English for any other culture).
LEGEND_WORDS: dict[int, dict[str, str]] = {
    ENGLISH: {ADDED: "added", CHANGED: "changed", REMOVED: "removed", MOVED: "moved"},
    GERMAN: {ADDED: "hinzugefügt", CHANGED: "geändert", REMOVED: "entfernt", MOVED: "verschoben"},
}
HATCH_ID = "change-removed-hatch"
#: How far an outline stands off its shape's box, and the badge's radius.
OUTLINE_GAP = 4.0
BADGE_RADIUS = 8.0
GHOST_OPACITY = "0.45"
LEGEND_PADDING = 10.0
LEGEND_SAMPLE = (30.0, 18.0)
#: How many places across the flow a ghost tries before it covers a shape.
ASIDE_STEPS = 6


@dataclass(frozen=True, slots=True)
class Comparison:
    svg: str
    changes: DiagramChanges


@dataclass(frozen=True, slots=True)
class Ghost:
    """A removed shape's node of the older drawing, moved to where it is drawn now."""

    node: NodeBox
    view: ShapeView
    box: Box
    label: Box | None


def render_comparison(old_fixture: Any, new_fixture: Any, layout_key: str,
                      culture: int | str = DEFAULT_CULTURE, options: LayoutOptions | None = None,
                      font: FontMetrics | None = None, *,
                      default_culture: int | str = DEFAULT_CULTURE,
                      written_since: frozenset[str] = frozenset()) -> Comparison:
    """The compare drawing of two diagram fixtures and what changed between them
    (``written_since`` as ``compare_diagrams`` takes it);
    ``RenderInputError`` (one line) for what either version cannot be drawn for."""
    cultures = Cultures(culture_id(culture, "culture"), culture_id(default_culture, "default culture"))
    old, new = parse_diagram(old_fixture), parse_diagram(new_fixture)
    font = font or load_font()
    options = options or LayoutOptions()
    _, old_scene, old_layout = lay_out(old, layout_key, cultures, options, font)
    direction = sketch_direction(layout_key)
    sketch = Sketch.of(old_layout, direction)
    _, scene, layout = lay_out(new, layout_key, cultures, replace(options, sketch=sketch), font)
    changes = compare_diagrams(old, new, written_since)
    drawing = draw_svg(layout, scene, font)
    marks = _node_marks(layout, scene, changes)
    ghosts = _ghosts(old_layout, old_scene, layout, frozenset(s.shape_id for s in changes.removed_shapes),
                     direction == VERTICAL)
    _add_marks(drawing, layout, scene, changes, marks, ghosts)
    _add_legend(drawing, [*marks.values(), *(REMOVED for _ in ghosts)], cultures.requested)
    drawing.root.add(_overlays(layout, scene, marks, ghosts))
    return Comparison(finished_document(drawing.root, drawing.text.font), changes)


def _node_marks(layout: Layout, scene: Scene, changes: DiagramChanges) -> dict[str, str]:
    """Node id → its change: by its shape, else changed when its element changed (a
    satellite or a container showing a changed element)."""
    by_shape = changes.shape_marks()
    changed_elements = changes.changed_element_ids()
    marks = {}
    for node in layout.nodes:
        view = scene.shapes[node.id]
        mark = by_shape.get(view.shape_id) or (CHANGED if view.guid in changed_elements else None)
        if mark is not None:
            marks[node.id] = mark
    return marks


def _ghosts(old_layout: Layout, old_scene: Scene, layout: Layout, removed: frozenset[str],
            vertical: bool) -> list[Ghost]:
    """The removed shapes' nodes where they stood, shifted by the median move of their
    old neighbours that are still drawn (else of every shape still drawn): a ghost stays
    beside the shapes it stood beside, whatever moved. Where the closed gap leaves no room,
    it steps aside across the flow (``_aside``) rather than cover a shape of the drawing.
    Near-linear: neighbours come from an index of the old edges, overlaps from a grid."""
    now = {node.id: node.box for node in layout.nodes}
    taken = BoxGrid()
    for node in layout.nodes:
        taken.extend(box for box in (node.box, node.label) if box is not None)
    moves = {node.id: (now[node.id].cx - node.box.cx, now[node.id].cy - node.box.cy)
             for node in old_layout.nodes if node.id in now}
    everyone = _median(list(moves.values()))
    neighbours: dict[str, list[str]] = {}
    for edge in old_layout.edges:
        neighbours.setdefault(edge.source, []).append(edge.target)
        neighbours.setdefault(edge.target, []).append(edge.source)
    ghosts = []
    for node in old_layout.nodes:
        view = old_scene.shapes[node.id]
        if view.shape_id not in removed:
            continue
        kept = [moves[n] for n in neighbours.get(node.id, ()) if n in moves]
        dx, dy = _aside(node, *(_median(kept) if kept else everyone), taken, vertical)
        ghost = Ghost(node, view, _shifted(node.box, dx, dy),
                      None if node.label is None else _shifted(node.label, dx, dy))
        taken.extend(box for box in (ghost.box, ghost.label) if box is not None)
        ghosts.append(ghost)
    return ghosts


class BoxGrid:
    """Boxes filed by the cells of a square grid they touch: whether a box overlaps any
    of them asks only the boxes of its own cells."""

    CELL = 200.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[Box]] = {}

    def _cells(self, box: Box) -> Iterator[tuple[int, int]]:
        for column in range(int(box.x // self.CELL), int(box.right // self.CELL) + 1):
            for row in range(int(box.y // self.CELL), int(box.bottom // self.CELL) + 1):
                yield column, row

    def extend(self, boxes: Iterable[Box]) -> None:
        for box in boxes:
            for cell in self._cells(box):
                self.cells.setdefault(cell, []).append(box)

    def overlaps(self, box: Box) -> bool:
        return any(_overlap(box, other) for cell in self._cells(box) for other in self.cells.get(cell, ()))


def _aside(node: NodeBox, dx: float, dy: float, taken: BoxGrid, vertical: bool) -> Point:
    """The move (dx, dy), stepped across the flow by half the node's breadth at a time,
    alternately to either side, to the first place free of ``taken``; where none of
    ``ASIDE_STEPS`` is free, the move itself."""
    breadth = (node.box.w if vertical else node.box.h) / 2 + OUTLINE_GAP + BADGE_RADIUS
    for step in range(ASIDE_STEPS + 1):
        across = breadth * ((step + 1) // 2) * (1 if step % 2 else -1)
        move = (dx + across, dy) if vertical else (dx, dy + across)
        boxes = [_shifted(box, *move) for box in (node.box, node.label) if box is not None]
        if not any(taken.overlaps(box) for box in boxes):
            return move
    return dx, dy


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def _median(moves: Sequence[Point]) -> Point:
    if not moves:
        return (0.0, 0.0)
    return (statistics.median(m[0] for m in moves), statistics.median(m[1] for m in moves))


def _shifted(box: Box, dx: float, dy: float) -> Box:
    """``box`` moved, kept inside the canvas (whose origin is 0, 0)."""
    return Box(max(0.0, box.x + dx), max(0.0, box.y + dy), box.w, box.h)


def _add_marks(drawing: Drawing, layout: Layout, scene: Scene, changes: DiagramChanges,
               marks: Mapping[str, str], ghosts: Sequence[Ghost]) -> None:
    """Ghosts and removed flows under the newer drawing's connectors, added flows' bands
    under them too, outlines and badges above the shapes."""
    root, text = drawing.root, drawing.text
    _defs(root).add(_hatch())
    underlay = group_element("change-underlay")
    for ghost in ghosts:
        underlay.add(_ghost(ghost, text))
    # A removed flow's old route ran between shapes that may have moved apart: its ghost
    # is the straight line between where its ends are drawn now (a ghost, or the shape).
    drawn_at = {scene.shapes[node.id].shape_id: node.box for node in layout.nodes}
    drawn_at.update({ghost.view.shape_id: ghost.box for ghost in ghosts})
    for flow in changes.removed_flows:
        source, target = drawn_at.get(flow.source), drawn_at.get(flow.target)
        if source is not None and target is not None:
            underlay.add(_flow_mark(REMOVED, _between(source, target), (flow.source, flow.target)))
    added_flows = {(f.source, f.target) for f in changes.added_flows}
    for edge in layout.edges:
        ends = (scene.shapes[edge.source].shape_id, scene.shapes[edge.target].shape_id)
        if ends in added_flows:
            underlay.add(_flow_mark(ADDED, edge.points, ends))
    if underlay.children:
        root.children.insert(_first_drawn_index(root), underlay)
    outlines = group_element("change-marks")
    for node in layout.nodes:
        if node.id in marks:
            outlines.add(_outline(marks[node.id], node.box, scene.shapes[node.id], text))
    if outlines.children:
        root.add(outlines)
    _grow(drawing, [ghost.box for ghost in ghosts] + [g.label for g in ghosts if g.label is not None])


def _between(source: Box, target: Box) -> list[Point]:
    """The straight line between two boxes' centres, cut at their borders."""
    return [_border(source, (target.cx, target.cy)), _border(target, (source.cx, source.cy))]


def _border(box: Box, towards: Point) -> Point:
    """Where the line from ``box``'s centre towards ``towards`` leaves the box."""
    dx, dy = towards[0] - box.cx, towards[1] - box.cy
    scale = min(box.w / 2 / abs(dx) if dx else math.inf, box.h / 2 / abs(dy) if dy else math.inf)
    if not math.isfinite(scale):
        return (box.cx, box.cy)
    scale = min(scale, 1.0)
    return (box.cx + dx * scale, box.cy + dy * scale)


def _defs(root: Element) -> Element:
    return next(child for child in root.children if child.tag == "defs")


def _first_drawn_index(root: Element) -> int:
    """Where the underlay goes: over lanes, cells and containers (filled backgrounds
    that would hide it), under the connectors and shapes."""
    for index, child in enumerate(root.children):
        if child.attrs.get("class") in ("edges", "edge-labels", "nodes"):
            return index
    return len(root.children)


def _hatch() -> Element:
    """The diagonal hatching of a ghost: the pattern says "removed" where the colour cannot."""
    pattern = Element("pattern", {"id": HATCH_ID, "patternUnits": "userSpaceOnUse", "width": "6",
                                  "height": "6", "patternTransform": "rotate(45)"})
    pattern.add(Element("line", {"x1": "0", "y1": "0", "x2": "0", "y2": "6",
                                 "stroke": MARK_STYLES[REMOVED].color, "stroke-width": "1.5"}))
    return pattern


def _ghost(ghost: Ghost, text: TextStyle) -> Element:
    style = MARK_STYLES[REMOVED]
    group = Element("g", {"class": "change-ghost", "data-change": REMOVED,
                          "data-shape-id": clean_text(ghost.view.shape_id)})
    faded = Element("g", {"opacity": GHOST_OPACITY})
    symbol = symbol_for(ghost.view, ghost.box, text.line_height, text.size)
    for part in symbol.parts:
        faded.add(part_element(part))
    if ghost.view.lines:
        faded.add(centred_text(ghost.view.lines, ghost.label or symbol.label_area, text,
                               {"text-decoration": "line-through"}))
    group.add(faded)
    group.add(rect_element(ghost.box, {"fill": f"url(#{HATCH_ID})", "fill-opacity": "0.35"}))
    group.add(_outline_rect(style, ghost.box))
    group.add(_badge(style, ghost.box, text))
    return group


def _flow_mark(change: str, points: Sequence[Point], ends: tuple[str, str]) -> Element:
    """An added flow's wide band under its connector, or a removed flow's dashed ghost."""
    style = MARK_STYLES[change]
    attrs = {"class": "change-flow", "data-change": change, "d": path_data(points), "fill": "none",
             "stroke": style.color, "stroke-linejoin": "round",
             "data-source-shape-id": clean_text(ends[0]), "data-target-shape-id": clean_text(ends[1])}
    if change == ADDED:
        attrs.update({"stroke-width": "6", "stroke-opacity": "0.35"})
    else:
        attrs.update({"stroke-width": fmt(style.width), "stroke-dasharray": style.dashes})
    return Element("path", attrs)


def _outline(change: str, box: Box, view: ShapeView, text: TextStyle) -> Element:
    style = MARK_STYLES[change]
    group = Element("g", {"class": "change-mark", "data-change": change,
                          "data-shape-id": clean_text(view.shape_id)})
    group.add(_outline_rect(style, box))
    group.add(_badge(style, box, text))
    return group


def _outline_rect(style: MarkStyle, box: Box) -> Element:
    around = Box(box.x - OUTLINE_GAP, box.y - OUTLINE_GAP, box.w + 2 * OUTLINE_GAP, box.h + 2 * OUTLINE_GAP)
    return rect_element(around, {"fill": "none", "stroke": style.color, "stroke-width": fmt(style.width),
                                 "stroke-dasharray": style.dashes, "rx": "4"})


def _badge(style: MarkStyle, box: Box, text: TextStyle) -> Element:
    """A filled circle with the change's character on the outline's top-right corner."""
    x, y = box.right + OUTLINE_GAP, box.y - OUTLINE_GAP
    badge = group_element("change-badge")
    badge.add(Element("circle", {"cx": fmt(x), "cy": fmt(y), "r": fmt(BADGE_RADIUS), "fill": style.color,
                                 "stroke": "#ffffff", "stroke-width": "1.5"}))
    badge.add(text_block([style.badge], x, text.baselines(y, 1),
                         attrs={"fill": "#ffffff", "font-weight": "bold"}))
    return badge


def _grow(drawing: Drawing, boxes: Sequence[Box]) -> None:
    """Make room for the ghosts and the badges on the drawing's edges."""
    width = max([drawing.width, *(b.right + OUTLINE_GAP + BADGE_RADIUS for b in boxes)])
    height = max([drawing.height, *(b.bottom + OUTLINE_GAP for b in boxes)])
    _resize(drawing.root, width, height)


def _resize(root: Element, width: float, height: float) -> None:
    root.attrs.update({"width": fmt(width), "height": fmt(height), "viewBox": f"0 0 {fmt(width)} {fmt(height)}"})


def _add_legend(drawing: Drawing, drawn: Sequence[str], culture: int) -> None:
    """One row under everything: each kind's sample, its word and how many shapes of the
    drawing are ``drawn`` so (flows are not counted: one inserted task adds two)."""
    words = LEGEND_WORDS.get(culture, LEGEND_WORDS[ENGLISH])
    counts = Counter(drawn)
    root, text = drawing.root, drawing.text
    top = float(root.attrs["height"]) + LEGEND_PADDING
    x = LEGEND_PADDING + OUTLINE_GAP
    legend = group_element("change-legend")
    sample_w, sample_h = LEGEND_SAMPLE
    for change, word in words.items():
        style = MARK_STYLES[change]
        entry = Element("g", {"class": "change-legend-entry", "data-change": change})
        sample = Box(x, top + BADGE_RADIUS, sample_w, sample_h)
        if change == REMOVED:
            entry.add(rect_element(sample, {"fill": f"url(#{HATCH_ID})", "fill-opacity": "0.35"}))
        entry.add(_outline_rect(style, sample))
        entry.add(_badge(style, sample, text))
        label = f"{word} ({counts[change]})"
        label_x = sample.right + OUTLINE_GAP + BADGE_RADIUS + 6
        entry.add(text_block([label], label_x, text.baselines(sample.cy, 1), anchor="start"))
        legend.add(entry)
        x = label_x + text.font.text_width(label, text.size) + 2 * LEGEND_PADDING + OUTLINE_GAP
    root.add(legend)
    width = max(float(root.attrs["width"]), x)
    _resize(root, width, top + BADGE_RADIUS + sample_h + OUTLINE_GAP + LEGEND_PADDING)


def _overlays(layout: Layout, scene: Scene, marks: Mapping[str, str], ghosts: Sequence[Ghost]) -> Element:
    """The drawing's overlays with ``data-change`` on marked shapes, and one per ghost
    (class ``overlay ghost``, naming the removed shape and its element)."""
    group = overlays(layout.nodes, scene.shapes, scene, marks)
    for ghost in ghosts:
        group.add(rect_element(ghost.box, {
            "class": "overlay ghost", "fill": "transparent", "data-change": REMOVED,
            "data-guid": clean_text(ghost.view.guid), "data-type": clean_text(ghost.view.type),
            "data-shape-id": clean_text(ghost.view.shape_id), "data-diagram-id": clean_text(scene.diagram_id)}))
    return group
