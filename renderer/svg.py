"""Draws a positioned ``Layout`` with its ``Scene`` as one SVG document (docs/contract.md, "SVG contract").

Expects a layout whose every node, and every edge end, has a ``ShapeView`` in the scene.
Guarantees: positions come only from the layout (the legend strip under a matrix is the
one thing placed here); the document parses as XML whatever the user text holds; every
node has one overlay rect in a last ``<g class="overlays">``; a document with text
starts with a ``<style>`` embedding the subset of the measured font its text needs
(WOFF2 ``data:`` URL, docs/svg.md "Font"); connectors use absolute
``M``/``L``/``H``/``V`` only; the same input gives the same bytes. The XML is written by
``renderer.markup``, not by an SVG library; symbol geometry comes as plain data
from ``renderer.symbols``.
"""
from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence

from layouts.geometry import Box, Cell, EdgeRoute, LaneBand, Layout, NodeBox, Point
from renderer.markup import Element, clean_text, fmt
from renderer.scene import Scene, ShapeView
from renderer.symbols import (
    MUTED_TEXT_COLOR,
    TEXT_COLOR,
    Circle,
    Note,
    Part,
    Polygon,
    Rect,
    Stroke,
    Symbol,
    symbol_for,
)
from renderer.text import EMBEDDED_FAMILY, FONT_FAMILY, FontMetrics, font_subset_woff2, load_font

__all__ = ["ARROW_MARKER_ID", "write_svg"]

ARROW_MARKER_ID = "arrow"
EDGE_COLOR = "#4a5568"
EDGE_WIDTH = 1.2
# Baseline below the visual centre of a line, in em: about half the cap height of
# Source Sans Pro, so a centred line looks centred without dominant-baseline (which
# renderers support unevenly).
BASELINE_SHIFT = 0.35
NOTE_SCALE = 0.75
LEGEND_PADDING = 8.0
LANE_COLORS = ("#ffffff", "#f8f9fb")
LEGEND_SAMPLE_WIDTH = 40.0


class _Text:
    """Font size and line height of one document, with the arithmetic that turns
    label lines into baselines."""

    def __init__(self, font: FontMetrics, size: float) -> None:
        self.font = font
        self.size = size
        self.line_height = font.line_height(size)

    def baselines(self, top_centre: float, count: int) -> list[float]:
        """Baselines of ``count`` lines whose block is centred on ``top_centre``."""
        first = top_centre - (count - 1) * self.line_height / 2
        return [first + i * self.line_height + BASELINE_SHIFT * self.size for i in range(count)]


def write_svg(layout: Layout, scene: Scene, font: FontMetrics | None = None) -> str:
    """The SVG document of ``layout`` drawn as ``scene`` describes; ``font`` (default:
    the shipped Source Sans Pro) gives the line height and measures the legend."""
    views = _checked_views(layout, scene)
    text = _Text(font or load_font(), scene.font_size)
    legend = _legend_lines(scene)
    width, height = _canvas(layout, legend, text)
    legend_row = _symbol_legend(layout, scene, text, height)
    if legend_row.children:
        width, height = max(width, _symbol_legend_right(layout, scene, text)), height + _symbol_legend_height(text)
    # baseProfile, version and the xlink and ev namespaces are unused, and kept: they
    # were in every document rendered so far, and the bytes must not change.
    svg = Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg",
        "xmlns:xlink": "http://www.w3.org/1999/xlink",
        "xmlns:ev": "http://www.w3.org/2001/xml-events",
        "baseProfile": "full",
        "version": "1.1",
        "width": fmt(width),
        "height": fmt(height),
        "viewBox": f"0 0 {fmt(width)} {fmt(height)}",
        "data-diagram-id": clean_text(scene.diagram_id),
        "data-layout": clean_text(scene.layout_key),
        "font-family": FONT_FAMILY,
        "font-size": fmt(scene.font_size),
    })
    defs = Element("defs", {})
    defs.add(_arrow_marker())
    svg.add(defs)
    containers = [n for n in layout.nodes if views[n.id].role == "container"]
    others = [n for n in layout.nodes if views[n.id].role != "container"]
    for group in (
        _lanes(layout.lanes, scene, text),
        _cells(layout.cells, scene, text),
        _nodes("containers", containers, views, text),
        _connectors(layout.edges, views),
        _edge_labels(layout.edges, scene, text),
        _nodes("nodes", others, views, text),
        _legend(layout, legend, text),
        legend_row,
    ):
        if group.children:
            svg.add(group)
    svg.add(_overlays(layout.nodes, views, scene))
    style = _font_style(text.font, "".join(svg.texts()))
    if style is not None:
        svg.children.insert(0, style)
    out: list[str] = []
    svg.write(out)
    return "".join(out)


# --------------------------------------------------------------------------- font
def _font_style(font: FontMetrics, drawn: str) -> Element | None:
    """``<style>`` with an ``@font-face`` that embeds the measured face, cut down to the
    characters ``drawn`` (sorted, each once, so the bytes depend only on the set), as a
    WOFF2 ``data:`` URL: a viewer draws the text with the widths it was measured with,
    whatever fonts it has. None for a document without text."""
    characters = "".join(sorted(set(drawn)))  # the space too: its advance is measured
    if not characters.strip():
        return None
    data = base64.b64encode(font_subset_woff2(font.path, characters)).decode("ascii")
    return Element("style", {}, f"@font-face{{font-family:'{EMBEDDED_FAMILY}';"
                                f"src:url(data:font/woff2;base64,{data}) format('woff2')}}")


# --------------------------------------------------------------------------- checks
def _checked_views(layout: Layout, scene: Scene) -> dict[str, ShapeView]:
    """The scene's views by node id, after refusing what would make a non-conforming
    document: a node or edge end without a view, a duplicate ``data-shape-id``, an
    empty id (``Element`` leaves empty attributes out, and the contract requires
    them)."""
    views = scene.shapes
    for node in layout.nodes:
        if node.id not in views:
            raise ValueError(f"layout node {node.id!r} has no ShapeView in the scene")
    for route in layout.edges:
        for end in (route.source, route.target):
            if end not in views:
                raise ValueError(f"edge end {end!r} has no ShapeView in the scene")
    shape_ids = [views[node.id].shape_id for node in layout.nodes]
    if len(set(shape_ids)) != len(shape_ids):
        raise ValueError("two drawn nodes share one shape id")
    _require_ids(("diagram id", scene.diagram_id), ("layout key", scene.layout_key))
    for node in layout.nodes:
        view = views[node.id]
        _require_ids(("shape id", view.shape_id), ("guid", view.guid), ("type", view.type))
        if view.lane_id is not None:
            _require_ids(("lane id", view.lane_id))
    for lane in layout.lanes:
        _require_ids(("lane id", lane.id))
    for cell in layout.cells:
        _require_ids(("row id", cell.row_id), ("column id", cell.column_id))
    return views


def _require_ids(*named: tuple[str, str]) -> None:
    for name, value in named:
        if not clean_text(value):
            raise ValueError(f"empty {name}")


# --------------------------------------------------------------------------- canvas
def _legend_lines(scene: Scene) -> list[str]:
    return [clean_text(f"{mark} \u2013 {meaning}") for mark, meaning in scene.legend]


def _legend_origin(layout: Layout) -> Point:
    """Top-left of the legend strip: under the layout, aligned with its left edge."""
    lefts = [n.box.x for n in layout.nodes] + [c.box.x for c in layout.cells]
    return (min(lefts, default=0.0), layout.height)


def _canvas(layout: Layout, legend: Sequence[str], text: _Text) -> tuple[float, float]:
    """The layout's extent, grown by the legend strip when there is a legend."""
    if not legend:
        return layout.width, layout.height
    x, y = _legend_origin(layout)
    widest = max(text.font.text_width(line, text.size) for line in legend)
    height = y + 2 * LEGEND_PADDING + len(legend) * text.line_height
    return max(layout.width, x + widest + LEGEND_PADDING), height


# --------------------------------------------------------------------------- helpers
def _group(cls: str) -> Element:
    return Element("g", {"class": cls})


def _text(lines: Sequence[str], x: float, baselines: Sequence[float], anchor: str = "middle",
          attrs: dict[str, str] | None = None) -> Element:
    """One ``<text>`` for a block of lines: the line itself when there is one, a
    ``<tspan>`` per line otherwise; ``attrs`` add to (or override) anchor and fill."""
    element = Element("text", {"text-anchor": anchor, "fill": TEXT_COLOR, **(attrs or {})})
    if len(lines) == 1:
        element.text = clean_text(lines[0])
        element.attrs["x"] = fmt(x)
        element.attrs["y"] = fmt(baselines[0])
        return element
    for line, y in zip(lines, baselines):
        element.add(Element("tspan", {"x": fmt(x), "y": fmt(y)}, clean_text(line)))
    return element


def _centred_text(lines: Sequence[str], box: Box, text: _Text,
                  attrs: dict[str, str] | None = None) -> Element:
    return _text(lines, box.cx, text.baselines(box.cy, len(lines)), attrs=attrs)


def _rect(box: Box, attrs: dict[str, str]) -> Element:
    return Element("rect", {"x": fmt(box.x), "y": fmt(box.y), "width": fmt(box.w),
                             "height": fmt(box.h), **attrs})


def _points(points: Iterable[Point]) -> list[tuple[str, str]]:
    return [(fmt(x), fmt(y)) for x, y in points]


def _point_list(points: Iterable[Point]) -> str:
    """The ``points`` attribute of a polyline or polygon: ``x,y`` pairs, space-separated."""
    return " ".join(f"{x},{y}" for x, y in _points(points))


def _arrow_marker() -> Element:
    """Filled triangle whose tip sits on the last route point, turned along the last
    segment; sized in user units so it does not grow with the stroke width."""
    marker = Element("marker", {"id": ARROW_MARKER_ID, "viewBox": "0 0 10 7",
                                 "refX": "10", "refY": "3.5", "markerWidth": "10",
                                 "markerHeight": "7", "markerUnits": "userSpaceOnUse",
                                 "orient": "auto"})
    marker.add(Element("polygon", {"points": "0,0 10,3.5 0,7", "fill": EDGE_COLOR}))
    return marker


# --------------------------------------------------------------------------- lanes
def _lanes(lanes: Sequence[LaneBand], scene: Scene, text: _Text) -> Element:
    group = _group("lanes")
    for index, lane in enumerate(lanes):
        view = scene.lanes.get(lane.id)
        g = Element("g", {"class": "lane", "data-lane-id": clean_text(lane.id)})
        fill = LANE_COLORS[index % len(LANE_COLORS)]
        g.add(_rect(lane.box, {"class": "lane-body", "fill": fill, "stroke": "#b8c2cf",
                               "stroke-width": "1"}))
        g.add(_rect(lane.header, {"class": "lane-header", "fill": "#eef1f5",
                                  "stroke": "#b8c2cf", "stroke-width": "1"}))
        if view is not None and view.lines:
            g.add(_lane_name(view.lines, lane.header, text))
        group.add(g)
    return group


def _lane_name(lines: Sequence[str], header: Box, text: _Text) -> Element:
    """The lane name centred in its header; in a strip taller than wide (horizontal
    lanes) it is turned -90° so it reads bottom to top, as swimlane headers do."""
    if header.w >= header.h:
        return _centred_text(lines, header, text)
    turn = f"rotate(-90 {fmt(header.cx)} {fmt(header.cy)})"
    return _text(lines, header.cx, text.baselines(header.cy, len(lines)),
                 attrs={"transform": turn})


# --------------------------------------------------------------------------- cells
def _cells(cells: Sequence[Cell], scene: Scene, text: _Text) -> Element:
    group = _group("cells")
    for cell in cells:
        group.add(_rect(cell.box, {"class": "matrix-cell", "fill": "#ffffff",
                                   "stroke": "#d5dbe3", "stroke-width": "1",
                                   "data-row-id": clean_text(cell.row_id),
                                   "data-column-id": clean_text(cell.column_id)}))
        mark = scene.cell_marks.get((cell.row_id, cell.column_id))
        if mark:
            group.add(_centred_text([mark], cell.box, text))
    return group


# --------------------------------------------------------------------------- edges
def _path_data(points: Sequence[Point]) -> str:
    """Absolute ``M`` then ``H``/``V`` for axis-parallel steps and ``L`` otherwise;
    points that coincide after rounding are dropped so the arrow keeps the direction
    of the last real segment."""
    rounded: list[tuple[str, str]] = []
    for point in _points(points):
        if not rounded or rounded[-1] != point:
            rounded.append(point)
    if not rounded:
        return ""
    commands = [f"M {rounded[0][0]} {rounded[0][1]}"]
    for (px, py), (x, y) in zip(rounded, rounded[1:]):
        if py == y:
            commands.append(f"H {x}")
        elif px == x:
            commands.append(f"V {y}")
        else:
            commands.append(f"L {x} {y}")
    return " ".join(commands)


def _connectors(routes: Sequence[EdgeRoute], views: dict[str, ShapeView]) -> Element:
    """One ``path.connector`` per route; its ends are named by the shape ids of the
    nodes it joins, the same ids the overlays carry."""
    group = _group("edges")
    for route in routes:
        group.add(Element("path", {
            "d": _path_data(route.points), "class": "connector", "fill": "none",
            "stroke": EDGE_COLOR, "stroke-width": fmt(EDGE_WIDTH),
            "stroke-linejoin": "round", "marker-end": f"url(#{ARROW_MARKER_ID})",
            "data-source-shape-id": clean_text(views[route.source].shape_id),
            "data-target-shape-id": clean_text(views[route.target].shape_id),
        }))
    return group


def _edge_labels(routes: Sequence[EdgeRoute], scene: Scene, text: _Text) -> Element:
    """Labels after all connectors, on a white ground, so no line runs through text."""
    group = _group("edge-labels")
    for route in routes:
        lines = scene.edge_labels.get(route.key) if route.key else None
        if route.label is None or not lines:
            continue
        g = _group("edge-label")
        g.add(_rect(route.label, {"fill": "#ffffff", "fill-opacity": "0.9"}))
        g.add(_centred_text(lines, route.label, text, {"fill": MUTED_TEXT_COLOR}))
        group.add(g)
    return group


# --------------------------------------------------------------------------- nodes
def _part(part: Part) -> Element:
    """The element of one symbol part."""
    if isinstance(part, Stroke):
        return Element("polyline", {"points": _point_list(part.points), "fill": "none",
                                     "stroke": part.color, "stroke-width": fmt(part.width),
                                     "stroke-linecap": "round"})
    style = {"fill": part.style.fill, "stroke": part.style.stroke,
             "stroke-width": fmt(part.style.stroke_width)}
    if isinstance(part, Rect):
        rx = {"rx": fmt(part.rx)} if part.rx > 0 else {}
        return _rect(part.box, {**rx, **style})
    if isinstance(part, Circle):
        return Element("circle", {"cx": fmt(part.cx), "cy": fmt(part.cy), "r": fmt(part.r),
                                   **style})
    if isinstance(part, Polygon):
        return Element("polygon", {"points": _point_list(part.points),
                                    "stroke-linejoin": "round", **style})
    raise TypeError(f"unknown symbol part {part!r}")


def _note(note: Note, text: _Text) -> Element:
    """The small italic caption, ellipsized to its box (it is user data of any length)."""
    size = text.size * NOTE_SCALE
    line = text.font.ellipsize(clean_text(note.text), note.box.w, size)
    baseline = note.box.cy + BASELINE_SHIFT * size
    return _text([line], note.box.cx, [baseline],
                 attrs={"fill": MUTED_TEXT_COLOR, "font-size": fmt(size),
                        "font-style": "italic"})


def _label(node: NodeBox, view: ShapeView, symbol: Symbol, text: _Text) -> Element:
    """Label lines in the node's outside label box when it has one, else inside the
    symbol: centred, or from the top-left for containers."""
    if node.label is not None:
        return _centred_text(view.lines, node.label, text)
    area = symbol.label_area
    if symbol.align == "start":
        top = area.y + len(view.lines) * text.line_height / 2
        baselines = text.baselines(top, len(view.lines))
        return _text(view.lines, area.x, baselines, anchor="start")
    return _centred_text(view.lines, area, text)


def _nodes(name: str, nodes: Sequence[NodeBox], views: dict[str, ShapeView],
           text: _Text) -> Element:
    """Symbols and labels of ``nodes`` in a group of class ``name``. Containers get
    their own group under the edges: they are filled backgrounds, like lanes, and
    would hide the edges between their children."""
    group = _group(name)
    for node in nodes:
        view = views[node.id]
        symbol = symbol_for(view, node.box, text.line_height, text.size)
        g = _group(f"node symbol-{symbol.kind}")
        for part in symbol.parts:
            g.add(_part(part))
        if symbol.note is not None and symbol.note.text:
            g.add(_note(symbol.note, text))
        if view.lines:
            g.add(_label(node, view, symbol, text))
        group.add(g)
    return group


# --------------------------------------------------------------------------- legend
def _legend(layout: Layout, lines: Sequence[str], text: _Text) -> Element:
    """The matrix legend, one "mark – meaning" per line, in the strip under the layout."""
    group = _group("legend")
    if lines:
        x, y = _legend_origin(layout)
        top = y + LEGEND_PADDING + len(lines) * text.line_height / 2
        group.add(_text(lines, x, text.baselines(top, len(lines)), anchor="start"))
    return group


def _symbol_legend_height(text: _Text) -> float:
    return text.line_height + 4 + 2 * LEGEND_PADDING


def _symbol_legend_entries(layout: Layout, scene: Scene, text: _Text,
                           top: float) -> list[tuple[Symbol, str, float]]:
    """Per entry of ``scene.symbol_legend``: its symbol drawn small in a row from
    ``top`` under the layout, its meaning, and the x where the meaning starts."""
    entries = []
    x = _legend_origin(layout)[0]
    for role, meaning in scene.symbol_legend:
        sample = Box(x, top + LEGEND_PADDING, LEGEND_SAMPLE_WIDTH, text.line_height + 4)
        symbol = symbol_for(ShapeView("", "", "", role=role), sample, text.line_height, text.size)
        entries.append((symbol, meaning, sample.right + LEGEND_PADDING / 2))
        x = sample.right + LEGEND_PADDING / 2 + text.font.text_width(meaning, text.size) + 2 * LEGEND_PADDING
    return entries


def _symbol_legend_right(layout: Layout, scene: Scene, text: _Text) -> float:
    """Where the row of symbols ends, its last meaning and a padding included."""
    _, meaning, x = _symbol_legend_entries(layout, scene, text, 0.0)[-1]
    return x + text.font.text_width(meaning, text.size) + LEGEND_PADDING


def _symbol_legend(layout: Layout, scene: Scene, text: _Text, top: float) -> Element:
    """``scene.symbol_legend`` as one row under everything else: each symbol small,
    its meaning beside it (``detailed``'s satellites)."""
    group = _group("symbol-legend")
    for symbol, meaning, x in _symbol_legend_entries(layout, scene, text, top):
        entry = _group(f"legend-entry symbol-{symbol.kind}")
        for part in symbol.parts:
            entry.add(_part(part))
        entry.add(_text([meaning], x, text.baselines(top + LEGEND_PADDING + (text.line_height + 4) / 2, 1),
                        anchor="start"))
        group.add(entry)
    return group


# --------------------------------------------------------------------------- overlays
def _overlays(nodes: Sequence[NodeBox], views: dict[str, ShapeView], scene: Scene) -> Element:
    """The click targets of the SVG contract (docs/contract.md): one transparent rect per
    node, exactly its box, in root user space, drawn last so they sit on top of everything."""
    group = _group("overlays")
    diagram_id = clean_text(scene.diagram_id)
    for node in nodes:
        view = views[node.id]
        attrs = {"class": "overlay", "fill": "transparent", "data-guid": clean_text(view.guid),
                 "data-type": clean_text(view.type), "data-shape-id": clean_text(view.shape_id),
                 "data-diagram-id": diagram_id}
        if view.lane_id is not None:
            attrs["data-lane-id"] = clean_text(view.lane_id)
        group.add(_rect(node.box, attrs))
    return group
