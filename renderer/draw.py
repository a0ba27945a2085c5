"""The SVG elements every part of a drawing is made of: text blocks on baselines, groups,
rectangles, point lists and the parts of a symbol (``renderer.symbols`` gives them as
plain data). Positions come in; elements of ``renderer.markup`` come out."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from layouts.geometry import Box, Point
from renderer.markup import Element, clean_text, fmt
from renderer.symbols import TEXT_COLOR, Circle, Part, Polygon, Rect, Stroke
from renderer.text import FontMetrics

# Baseline below the visual centre of a line, in em: about half the cap height of
# Source Sans Pro, so a centred line looks centred without dominant-baseline (which
# renderers support unevenly).
BASELINE_SHIFT = 0.35


class TextStyle:
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


def group_element(cls: str) -> Element:
    return Element("g", {"class": cls})


def text_block(lines: Sequence[str], x: float, baselines: Sequence[float], anchor: str = "middle",
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


def centred_text(lines: Sequence[str], box: Box, text: TextStyle,
                  attrs: dict[str, str] | None = None) -> Element:
    return text_block(lines, box.cx, text.baselines(box.cy, len(lines)), attrs=attrs)


def rect_element(box: Box, attrs: dict[str, str]) -> Element:
    return Element("rect", {"x": fmt(box.x), "y": fmt(box.y), "width": fmt(box.w),
                             "height": fmt(box.h), **attrs})


def point_pairs(points: Iterable[Point]) -> list[tuple[str, str]]:
    return [(fmt(x), fmt(y)) for x, y in points]


def point_list(points: Iterable[Point]) -> str:
    """The ``points`` attribute of a polyline or polygon: ``x,y`` pairs, space-separated."""
    return " ".join(f"{x},{y}" for x, y in point_pairs(points))


def part_element(part: Part) -> Element:
    """The element of one symbol part."""
    if isinstance(part, Stroke):
        return Element("polyline", {"points": point_list(part.points), "fill": "none",
                                     "stroke": part.color, "stroke-width": fmt(part.width),
                                     "stroke-linecap": "round"})
    style = {"fill": part.style.fill, "stroke": part.style.stroke,
             "stroke-width": fmt(part.style.stroke_width)}
    if isinstance(part, Rect):
        rx = {"rx": fmt(part.rx)} if part.rx > 0 else {}
        return rect_element(part.box, {**rx, **style})
    if isinstance(part, Circle):
        return Element("circle", {"cx": fmt(part.cx), "cy": fmt(part.cy), "r": fmt(part.r),
                                   **style})
    if isinstance(part, Polygon):
        return Element("polygon", {"points": point_list(part.points),
                                    "stroke-linejoin": "round", **style})
    raise TypeError(f"unknown symbol part {part!r}")
