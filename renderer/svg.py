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
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from layouts.geometry import Box, Cell, EdgeRoute, LaneBand, Layout, NodeBox, Point
from renderer.draw import (
    BASELINE_SHIFT,
    TextStyle,
    centred_text,
    group_element,
    part_element,
    point_pairs,
    rect_element,
    text_block,
)
from renderer.legends import (
    canvas_size,
    legend_lines,
    matrix_legend,
    symbol_legend,
    symbol_legend_height,
    symbol_legend_right,
)
from renderer.markup import Element, clean_text, fmt
from renderer.scene import Scene, ShapeView
from renderer.symbols import (
    MUTED_TEXT_COLOR,
    Note,
    Symbol,
    symbol_for,
)
from renderer.text import EMBEDDED_FAMILY, FONT_FAMILY, FontMetrics, font_subset_woff2, load_font

__all__ = ["ARROW_MARKER_ID", "Drawing", "draw_svg", "finished_document", "overlays", "path_data", "svg_root",
           "write_svg"]

ARROW_MARKER_ID = "arrow"
EDGE_COLOR = "#4a5568"
EDGE_WIDTH = 1.2
#: The dash pattern of an undirected association (BPMN draws associations dotted).
ASSOCIATION_DASHES = "3 3"
NOTE_SCALE = 0.75
LANE_COLORS = ("#ffffff", "#f8f9fb")
#: Font subsets kept for documents drawn again (a few kilobytes each).
FONT_FACES_KEPT = 64


def write_svg(layout: Layout, scene: Scene, font: FontMetrics | None = None) -> str:
    """The SVG document of ``layout`` drawn as ``scene`` describes; ``font`` (default:
    the shipped Source Sans Pro) gives the line height and measures the legend."""
    drawing = draw_svg(layout, scene, font)
    drawing.root.add(overlays(layout.nodes, drawing.views, scene))
    return finished_document(drawing.root, drawing.text.font)


@dataclass(frozen=True, slots=True)
class Drawing:
    """A drawing before its overlays and font: the root (its size set), the scene's
    views by node id and the text style, for a caller that adds to it (the compare
    drawing's change marks, renderer/compare_svg.py)."""

    root: Element
    views: dict[str, ShapeView]
    text: TextStyle
    width: float
    height: float


def draw_svg(layout: Layout, scene: Scene, font: FontMetrics | None = None) -> Drawing:
    """Everything of ``write_svg``'s document but the overlays and the font."""
    views = _checked_views(layout, scene)
    text = TextStyle(font or load_font(), scene.font_size)
    legend = legend_lines(scene)
    width, height = canvas_size(layout, legend, text)
    legend_row = symbol_legend(layout, scene, text, height)
    if legend_row.children:
        width, height = max(width, symbol_legend_right(layout, scene, text)), height + symbol_legend_height(text)
    svg = svg_root(width, height, scene.diagram_id, scene.layout_key, scene.font_size)
    defs = Element("defs", {})
    defs.add(_arrow_marker())
    svg.add(defs)
    containers = [n for n in layout.nodes if views[n.id].role == "container"]
    others = [n for n in layout.nodes if views[n.id].role != "container"]
    for group in (
        _lanes(layout.lanes, scene, text),
        _cells(layout.cells, scene, text),
        _nodes("containers", containers, views, text),
        _connectors(layout.edges, views, scene.associations),
        _edge_labels(layout.edges, scene, text),
        _nodes("nodes", others, views, text),
        matrix_legend(layout, legend, text),
        legend_row,
    ):
        if group.children:
            svg.add(group)
    return Drawing(svg, views, text, width, height)


def svg_root(width: float, height: float, diagram_id: str, layout_key: str, font_size: float) -> Element:
    """The root ``<svg>`` of a drawing of the SVG contract (docs/contract.md)."""
    # baseProfile, version and the xlink and ev namespaces are unused, and kept: they
    # were in every document rendered so far, and the bytes must not change.
    return Element("svg", {
        "xmlns": "http://www.w3.org/2000/svg",
        "xmlns:xlink": "http://www.w3.org/1999/xlink",
        "xmlns:ev": "http://www.w3.org/2001/xml-events",
        "baseProfile": "full",
        "version": "1.1",
        "width": fmt(width),
        "height": fmt(height),
        "viewBox": f"0 0 {fmt(width)} {fmt(height)}",
        "data-diagram-id": clean_text(diagram_id),
        "data-layout": clean_text(layout_key),
        "font-family": FONT_FAMILY,
        "font-size": fmt(font_size),
    })


def finished_document(svg: Element, font: FontMetrics) -> str:
    """The text of the document ``svg``, the font subset its text needs embedded first."""
    style = _font_style(font, "".join(svg.texts()))
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
    return Element("style", {}, _font_face(font.path, characters))


@functools.lru_cache(maxsize=FONT_FACES_KEPT)
def _font_face(path: Path, characters: str) -> str:
    """The ``@font-face`` rule of the face at ``path`` cut down to ``characters``. Kept:
    cutting a face is a fifth of drawing a small diagram, and a diagram drawn again (in
    another layout, after an edit that keeps its characters) needs the same rule."""
    data = base64.b64encode(font_subset_woff2(path, characters)).decode("ascii")
    return f"@font-face{{font-family:'{EMBEDDED_FAMILY}';src:url(data:font/woff2;base64,{data}) format('woff2')}}"


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
def _lanes(lanes: Sequence[LaneBand], scene: Scene, text: TextStyle) -> Element:
    group = group_element("lanes")
    for index, lane in enumerate(lanes):
        view = scene.lanes.get(lane.id)
        g = Element("g", {"class": "lane", "data-lane-id": clean_text(lane.id)})
        fill = LANE_COLORS[index % len(LANE_COLORS)]
        g.add(rect_element(lane.box, {"class": "lane-body", "fill": fill, "stroke": "#b8c2cf",
                               "stroke-width": "1"}))
        g.add(rect_element(lane.header, {"class": "lane-header", "fill": "#eef1f5",
                                  "stroke": "#b8c2cf", "stroke-width": "1"}))
        if view is not None and view.lines:
            g.add(_lane_name(view.lines, lane.header, text))
        group.add(g)
    return group


def _lane_name(lines: Sequence[str], header: Box, text: TextStyle) -> Element:
    """The lane name centred in its header; in a strip taller than wide (horizontal
    lanes) it is turned -90° so it reads bottom to top, as swimlane headers do."""
    if header.w >= header.h:
        return centred_text(lines, header, text)
    turn = f"rotate(-90 {fmt(header.cx)} {fmt(header.cy)})"
    return text_block(lines, header.cx, text.baselines(header.cy, len(lines)),
                 attrs={"transform": turn})


# --------------------------------------------------------------------------- cells
def _cells(cells: Sequence[Cell], scene: Scene, text: TextStyle) -> Element:
    group = group_element("cells")
    for cell in cells:
        group.add(rect_element(cell.box, {"class": "matrix-cell", "fill": "#ffffff",
                                   "stroke": "#d5dbe3", "stroke-width": "1",
                                   "data-row-id": clean_text(cell.row_id),
                                   "data-column-id": clean_text(cell.column_id)}))
        mark = scene.cell_marks.get((cell.row_id, cell.column_id))
        if mark:
            group.add(centred_text([mark], cell.box, text))
    return group


# --------------------------------------------------------------------------- edges
def path_data(points: Sequence[Point]) -> str:
    """Absolute ``M`` then ``H``/``V`` for axis-parallel steps and ``L`` otherwise;
    points that coincide after rounding are dropped so the arrow keeps the direction
    of the last real segment."""
    rounded: list[tuple[str, str]] = []
    for point in point_pairs(points):
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


def _connectors(routes: Sequence[EdgeRoute], views: dict[str, ShapeView], associations: frozenset[str]) -> Element:
    """One ``path.connector`` per route; its ends are named by the shape ids of the
    nodes it joins, the same ids the overlays carry. A route whose key is one of
    ``associations`` is an undirected association: dotted, no arrowhead, class
    ``connector association``."""
    group = group_element("edges")
    for route in routes:
        association = bool(route.key) and route.key in associations
        ending = {"stroke-dasharray": ASSOCIATION_DASHES} if association else \
            {"marker-end": f"url(#{ARROW_MARKER_ID})"}
        group.add(Element("path", {
            "d": path_data(route.points), "class": "connector association" if association else "connector",
            "fill": "none", "stroke": EDGE_COLOR, "stroke-width": fmt(EDGE_WIDTH), "stroke-linejoin": "round",
            **ending,
            "data-source-shape-id": clean_text(views[route.source].shape_id),
            "data-target-shape-id": clean_text(views[route.target].shape_id),
        }))
    return group


def _edge_labels(routes: Sequence[EdgeRoute], scene: Scene, text: TextStyle) -> Element:
    """Labels after all connectors, on a white ground, so no line runs through text."""
    group = group_element("edge-labels")
    for route in routes:
        lines = scene.edge_labels.get(route.key) if route.key else None
        if route.label is None or not lines:
            continue
        g = group_element("edge-label")
        g.add(rect_element(route.label, {"fill": "#ffffff", "fill-opacity": "0.9"}))
        g.add(centred_text(lines, route.label, text, {"fill": MUTED_TEXT_COLOR}))
        group.add(g)
    return group


# --------------------------------------------------------------------------- nodes
def _note(note: Note, text: TextStyle) -> Element:
    """The small italic caption, ellipsized to its box (it is user data of any length)."""
    size = text.size * NOTE_SCALE
    line = text.font.ellipsize(clean_text(note.text), note.box.w, size)
    baseline = note.box.cy + BASELINE_SHIFT * size
    return text_block([line], note.box.cx, [baseline],
                 attrs={"fill": MUTED_TEXT_COLOR, "font-size": fmt(size),
                        "font-style": "italic"})


def _label(node: NodeBox, view: ShapeView, symbol: Symbol, text: TextStyle) -> Element:
    """Label lines in the node's outside label box when it has one, else inside the
    symbol: centred, from the top-left for containers, or from the left (centred up and
    down) for matrix rows."""
    if node.label is not None:
        return centred_text(view.lines, node.label, text)
    area = symbol.label_area
    if symbol.align == "left":
        return text_block(view.lines, area.x, text.baselines(area.cy, len(view.lines)), anchor="start")
    if symbol.align == "start":
        top = area.y + len(view.lines) * text.line_height / 2
        baselines = text.baselines(top, len(view.lines))
        return text_block(view.lines, area.x, baselines, anchor="start")
    return centred_text(view.lines, area, text)


def _nodes(name: str, nodes: Sequence[NodeBox], views: dict[str, ShapeView],
           text: TextStyle) -> Element:
    """Symbols and labels of ``nodes`` in a group of class ``name``. Containers get
    their own group under the edges: they are filled backgrounds, like lanes, and
    would hide the edges between their children."""
    group = group_element(name)
    for node in nodes:
        view = views[node.id]
        symbol = symbol_for(view, node.box, text.line_height, text.size)
        g = group_element(f"node symbol-{symbol.kind}")
        for part in symbol.parts:
            g.add(part_element(part))
        if symbol.note is not None and symbol.note.text:
            g.add(_note(symbol.note, text))
        if view.lines:
            g.add(_label(node, view, symbol, text))
        group.add(g)
    return group


# --------------------------------------------------------------------------- overlays
def overlays(nodes: Sequence[NodeBox], views: dict[str, ShapeView], scene: Scene,
             changes: Mapping[str, str] | None = None) -> Element:
    """The click targets of the SVG contract (docs/contract.md): one transparent rect per
    node, exactly its box, in root user space, drawn last so they sit on top of everything.
    ``changes`` (node id → added, changed or moved) gives a compare drawing's rects their
    ``data-change``."""
    group = group_element("overlays")
    diagram_id = clean_text(scene.diagram_id)
    for node in nodes:
        view = views[node.id]
        attrs = {"class": "overlay", "fill": "transparent", "data-guid": clean_text(view.guid),
                 "data-type": clean_text(view.type), "data-shape-id": clean_text(view.shape_id),
                 "data-diagram-id": diagram_id}
        if view.lane_id is not None:
            attrs["data-lane-id"] = clean_text(view.lane_id)
        if changes and node.id in changes:
            attrs["data-change"] = changes[node.id]
        group.add(rect_element(node.box, attrs))
    return group
