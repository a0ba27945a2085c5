"""Shape sizes and label lines shared by every builder.

Sizes follow BPMN habits: tasks and sub-processes 120×60, wider and taller when their
label needs it; events 36×36 and gateways 50×50 with their label outside the symbol.
"""
from __future__ import annotations

from dataclasses import dataclass

from renderer.culture import Cultures
from renderer.model import Element
from renderer.text import FontMetrics

FONT_SIZE = 12.0
BOX_PADDING = 8.0
BOX_WIDTHS = (120.0, 160.0, 200.0)
BOX_MIN_HEIGHT = 60.0
BOX_MAX_LINES = 4
OUTSIDE_LABEL_WIDTH = 110.0
OUTSIDE_LABEL_LINES = 3
SYMBOL_SIZES = {
    "evStart": 36.0, "evIntermediate": 36.0, "evEnd": 36.0,
    "ruleXor": 50.0, "ruleAnd": 50.0, "condition": 50.0,
}


@dataclass(frozen=True, slots=True)
class Measured:
    width: float
    height: float
    lines: tuple[str, ...]
    label_width: float = 0.0
    label_height: float = 0.0


def measure_shape(element_type: str, text: str, font: FontMetrics) -> Measured:
    """Symbol size and label lines for one shape."""
    line_height = font.line_height(FONT_SIZE)
    if element_type in SYMBOL_SIZES:
        size = SYMBOL_SIZES[element_type]
        if not text:
            return Measured(size, size, ())
        lines = tuple(font.wrap(text, OUTSIDE_LABEL_WIDTH, FONT_SIZE, OUTSIDE_LABEL_LINES))
        width = max(font.text_width(line, FONT_SIZE) for line in lines)
        return Measured(size, size, lines, round(width + 2, 2), round(len(lines) * line_height, 2))
    return measure_box(text, font)


def measure_box(text: str, font: FontMetrics, min_height: float = BOX_MIN_HEIGHT) -> Measured:
    """The narrowest standard width whose wrapped label fits in three lines (else the
    widest, up to four lines with an ellipsis)."""
    line_height = font.line_height(FONT_SIZE)
    lines: list[str] = []
    width = BOX_WIDTHS[0]
    for width in BOX_WIDTHS:
        lines = font.wrap(text, width - 2 * BOX_PADDING, FONT_SIZE, BOX_MAX_LINES)
        if len(lines) <= 3:
            break
    height = max(min_height, len(lines) * line_height + 2 * BOX_PADDING)
    return Measured(width, round(height, 2), tuple(lines))


def shape_label(element: Element, cultures: Cultures) -> str:
    return element.text("name", cultures)


