"""Shape sizes and label lines shared by every builder.

Sizes follow BPMN habits: tasks and sub-processes 120×60, wider and taller when their
label needs it; events 36×36 and gateways 50×50 with their label outside the symbol
(``Kind.symbol_size``, ``renderer/kinds.py``).

A label decides its box, in this order (docs/element_layouts.md, "Labels"): the
narrowest of ``BOX_WIDTHS`` (``OUTSIDE_LABEL_WIDTHS`` for a label beside its symbol)
where it fits in three lines without breaking a word; else the narrowest where it
fits whole with words hyphenated (``renderer.text``), in at most ``BOX_MAX_LINES``
lines; else the widest, the last line ellipsized. Lines are wrapped to the label area
of the symbol that will be drawn (``renderer.symbols``: a process interface loses its
arrow tip, a sub-process its [+] marker), so no line leaves its shape.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.geometry import Box
from renderer.culture import ENGLISH, Cultures
from renderer.kinds import KINDS
from renderer.model import Element
from renderer.scene import ShapeView
from renderer.symbols import LABEL_PADDING, symbol_for
from renderer.text import FontMetrics

FONT_SIZE = 12.0
BOX_PADDING = 8.0
#: Widths a box may take, narrowest first; 240 is the widest a label makes a box.
BOX_WIDTHS = (120.0, 160.0, 200.0, 240.0)
BOX_MIN_HEIGHT = 60.0
BOX_MAX_LINES = 4
UNBROKEN_LINES = 3
#: Widths a label beside an event or gateway may take, narrowest first.
OUTSIDE_LABEL_WIDTHS = (110.0, 140.0, 170.0)
OUTSIDE_LABEL_LINES = 3


@dataclass(frozen=True, slots=True)
class Measured:
    width: float
    height: float
    lines: tuple[str, ...]
    label_width: float = 0.0
    label_height: float = 0.0


def measure_shape(element_type: str, text: str, font: FontMetrics, culture: int = ENGLISH) -> Measured:
    """Symbol size and label lines for one shape; ``culture`` picks the hyphenation."""
    line_height = font.line_height(FONT_SIZE)
    kind = KINDS.get(element_type)
    size = kind.symbol_size if kind is not None else None
    if size is not None:
        if not text:
            return Measured(size, size, ())
        _, lines = fit_lines(text, font, OUTSIDE_LABEL_WIDTHS, OUTSIDE_LABEL_LINES, culture)
        used = max(font.text_width(line, FONT_SIZE) for line in lines)
        return Measured(size, size, lines, round(used + 2, 2), round(len(lines) * line_height, 2))
    return measure_box(text, font, culture=culture, element_type=element_type)


def measure_box(text: str, font: FontMetrics, min_height: float = BOX_MIN_HEIGHT, culture: int = ENGLISH,
                element_type: str = "task") -> Measured:
    """The box of a shape of ``element_type`` whose label is ``text`` (see the module
    docstring for the width), as tall as its lines need, at least ``min_height``."""
    line_height = font.line_height(FONT_SIZE)
    rooms, overheads = _label_rooms(element_type, min_height, line_height)
    chosen, lines = fit_lines(text, font, rooms, BOX_MAX_LINES, culture)
    air = 2 * (BOX_PADDING - LABEL_PADDING)
    height = max(min_height, len(lines) * line_height + overheads[chosen] + air)
    return Measured(BOX_WIDTHS[chosen], round(height, 2), lines)


@functools.lru_cache(maxsize=64)
def _label_rooms(element_type: str, min_height: float, line_height: float
                 ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per width of ``BOX_WIDTHS``, the room for label lines in a box of ``element_type``
    and what its symbol keeps from the label's height; the same for every shape of one
    type, so worked out once."""
    view = ShapeView("", "", element_type)

    def label_area(width: float, height: float) -> Box:
        return symbol_for(view, Box(0.0, 0.0, width, height), line_height, FONT_SIZE).label_area

    air = 2 * (BOX_PADDING - LABEL_PADDING)  # kept between the label area and the lines
    # the narrower of a box's label areas at its least and at twice that height (a taller
    # process interface has a longer arrow tip)
    rooms = tuple(min(label_area(width, min_height).w, label_area(width, 2 * min_height).w) - air
                  for width in BOX_WIDTHS)
    overheads = tuple(min_height - label_area(width, min_height).h for width in BOX_WIDTHS)
    return rooms, overheads


def fit_lines(text: str, font: FontMetrics, widths: Sequence[float], max_lines: int,
              culture: int) -> tuple[int, tuple[str, ...]]:
    """The first of ``widths`` where ``text`` fits in ``UNBROKEN_LINES`` lines without
    a broken word, else the first where it fits whole in ``max_lines``, else the last
    with an ellipsis; that width's index and the lines."""
    unbroken = " ".join(text.split())
    whole: tuple[int, tuple[str, ...]] | None = None
    for index, width in enumerate(widths):
        lines = font.wrap_whole(text, width, FONT_SIZE, max_lines, culture)
        if lines is None:
            continue
        if len(lines) <= UNBROKEN_LINES and " ".join(lines) == unbroken:
            return index, tuple(lines)
        whole = whole or (index, tuple(lines))
    if whole is not None:
        return whole
    return len(widths) - 1, tuple(font.wrap(text, widths[-1], FONT_SIZE, max_lines, culture))


def shape_label(element: Element, cultures: Cultures) -> str:
    return element.text("name", cultures)


def label_culture(element: Element, cultures: Cultures) -> int:
    """The culture ``shape_label``'s text is written in: its lines are hyphenated by
    that culture's dictionary, a German name as German in an English drawing too."""
    return element.text_culture("name", cultures)
