"""The legends under a drawing: a matrix's "mark – meaning" lines, and a row of small
symbols with their meanings (``detailed``'s satellites). The canvas grows to hold them."""
from __future__ import annotations

from collections.abc import Sequence

from layouts.geometry import Box, Layout, Point
from renderer.draw import TextStyle, group_element, part_element, text_block
from renderer.markup import Element, clean_text
from renderer.scene import Scene, ShapeView
from renderer.symbols import Symbol, symbol_for

LEGEND_PADDING = 8.0
LEGEND_SAMPLE_WIDTH = 40.0


def legend_lines(scene: Scene) -> list[str]:
    """One line per legend entry: "mark – meaning", or the meaning alone for an entry
    without a mark (a note such as why a matrix has no columns)."""
    return [clean_text(f"{mark} \u2013 {meaning}" if mark else meaning) for mark, meaning in scene.legend]


def legend_origin(layout: Layout) -> Point:
    """Top-left of the legend strip: under the layout, aligned with its left edge."""
    lefts = [n.box.x for n in layout.nodes] + [c.box.x for c in layout.cells]
    return (min(lefts, default=0.0), layout.height)


def canvas_size(layout: Layout, legend: Sequence[str], text: TextStyle) -> tuple[float, float]:
    """The layout's extent, grown by the legend strip when there is a legend."""
    if not legend:
        return layout.width, layout.height
    x, y = legend_origin(layout)
    widest = max(text.font.text_width(line, text.size) for line in legend)
    height = y + 2 * LEGEND_PADDING + len(legend) * text.line_height
    return max(layout.width, x + widest + LEGEND_PADDING), height


def matrix_legend(layout: Layout, lines: Sequence[str], text: TextStyle) -> Element:
    """The matrix legend, one "mark – meaning" per line, in the strip under the layout."""
    group = group_element("legend")
    if lines:
        x, y = legend_origin(layout)
        top = y + LEGEND_PADDING + len(lines) * text.line_height / 2
        group.add(text_block(lines, x, text.baselines(top, len(lines)), anchor="start"))
    return group


def symbol_legend_height(text: TextStyle) -> float:
    return text.line_height + 4 + 2 * LEGEND_PADDING


def _symbol_legend_entries(layout: Layout, scene: Scene, text: TextStyle,
                           top: float) -> list[tuple[Symbol, str, float]]:
    """Per entry of ``scene.symbol_legend``: its symbol drawn small in a row from
    ``top`` under the layout, its meaning, and the x where the meaning starts."""
    entries = []
    x = legend_origin(layout)[0]
    for role, meaning in scene.symbol_legend:
        sample = Box(x, top + LEGEND_PADDING, LEGEND_SAMPLE_WIDTH, text.line_height + 4)
        symbol = symbol_for(ShapeView("", "", "", role=role), sample, text.line_height, text.size)
        entries.append((symbol, meaning, sample.right + LEGEND_PADDING / 2))
        x = sample.right + LEGEND_PADDING / 2 + text.font.text_width(meaning, text.size) + 2 * LEGEND_PADDING
    return entries


def symbol_legend_right(layout: Layout, scene: Scene, text: TextStyle) -> float:
    """Where the row of symbols ends, its last meaning and a padding included."""
    _, meaning, x = _symbol_legend_entries(layout, scene, text, 0.0)[-1]
    return x + text.font.text_width(meaning, text.size) + LEGEND_PADDING


def symbol_legend(layout: Layout, scene: Scene, text: TextStyle, top: float) -> Element:
    """``scene.symbol_legend`` as one row under everything else: each symbol small,
    its meaning beside it (``detailed``'s satellites)."""
    group = group_element("symbol-legend")
    for symbol, meaning, x in _symbol_legend_entries(layout, scene, text, top):
        entry = group_element(f"legend-entry symbol-{symbol.kind}")
        for part in symbol.parts:
            entry.add(part_element(part))
        entry.add(text_block([meaning], x, text.baselines(top + LEGEND_PADDING + (text.line_height + 4) / 2, 1),
                        anchor="start"))
        group.add(entry)
    return group
