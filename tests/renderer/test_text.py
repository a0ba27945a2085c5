"""Text metrics: real glyph advances, wrapping, hyphenated breaks, ellipsis."""
from __future__ import annotations

import pytest

from renderer.text import ELLIPSIS, FONT_FAMILY, load_font

SIZE = 12.0


def test_widths_come_from_the_font() -> None:
    font = load_font()
    assert font.text_width("iiii", SIZE) < font.text_width("WWWW", SIZE)
    assert font.text_width("Check order", SIZE) == pytest.approx(
        font.text_width("Check", SIZE) + font.text_width(" order", SIZE))
    assert 14 < font.line_height(SIZE) < 18
    assert FONT_FAMILY.startswith("'Source Sans Pro'")


def test_wrap_keeps_every_line_within_the_width() -> None:
    font = load_font()
    lines = font.wrap("Check the customer order details and verify availability", 104, SIZE, 5)
    assert len(lines) > 1
    assert all(font.text_width(line, SIZE) <= 104 for line in lines)
    assert " ".join(lines) == "Check the customer order details and verify availability"


def test_long_words_break_with_a_hyphen() -> None:
    font = load_font()
    lines = font.wrap("Geschäftsführungsentscheidung", 80, SIZE, 4)
    assert len(lines) > 1
    assert all(line.endswith("-") for line in lines[:-1])
    assert "".join(line.rstrip("-") for line in lines) == "Geschäftsführungsentscheidung"
    assert all(font.text_width(line, SIZE) <= 80 for line in lines)


def test_too_much_text_ends_in_an_ellipsis() -> None:
    font = load_font()
    lines = font.wrap("word " * 500, 100, SIZE, 3)
    assert len(lines) == 3 and lines[-1].endswith(ELLIPSIS)
    assert font.text_width(lines[-1], SIZE) <= 100
    assert font.ellipsize("short", 100, SIZE) == "short"
