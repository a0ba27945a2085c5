"""Text metrics from a real font: glyph advances read with fontTools, word wrapping to a
width, ellipsis when text does not fit.

The font file comes from the ``font-source-sans-pro`` package (SIL Open Font License), so
every install measures with the same glyphs the SVG names first in ``font-family``.
"""
from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from fontTools.ttLib import TTFont

FONT_FAMILY = "'Source Sans Pro', 'Source Sans 3', 'Segoe UI', Arial, Helvetica, sans-serif"
ELLIPSIS = "\u2026"
HYPHEN = "-"


def default_font_path() -> Path:
    """The regular face shipped by ``font-source-sans-pro``."""
    files = resources.files("font_source_sans_pro") / "files" / "SourceSansPro-Regular.ttf"
    return Path(str(files))


class FontMetrics:
    """Advance widths of one font face; widths in user units for a given font size."""

    def __init__(self, path: Path) -> None:
        font = TTFont(str(path), lazy=True)
        self._units_per_em = float(font["head"].unitsPerEm)
        hhea = font["hhea"]
        self._line_gap: float = (hhea.ascent - hhea.descent + hhea.lineGap) / self._units_per_em
        metrics = font["hmtx"].metrics
        cmap = font.getBestCmap()
        self._advance: dict[int, float] = {
            code: metrics[glyph][0] / self._units_per_em for code, glyph in cmap.items()
        }
        self._fallback = self._advance.get(ord("n"), 0.5)
        font.close()

    def text_width(self, text: str, size: float) -> float:
        advance = self._advance
        fallback = self._fallback
        return sum(advance.get(ord(ch), fallback) for ch in text) * size

    def line_height(self, size: float) -> float:
        return self._line_gap * size

    def ellipsize(self, text: str, max_width: float, size: float) -> str:
        """``text`` cut at the end with an ellipsis so that it fits ``max_width``."""
        if self.text_width(text, size) <= max_width:
            return text
        budget = max_width - self.text_width(ELLIPSIS, size)
        width = 0.0
        for cut, ch in enumerate(text):
            width += self._advance.get(ord(ch), self._fallback) * size
            if width > budget:
                return text[:cut].rstrip() + ELLIPSIS
        return text + ELLIPSIS

    def wrap(self, text: str, max_width: float, size: float, max_lines: int) -> list[str]:
        """Greedy word wrap to ``max_width``; words longer than a line are broken; the
        last line is ellipsized when the text needs more than ``max_lines`` lines."""
        lines: list[str] = []
        current = ""
        for word in text.split():
            for piece in self._split_long_word(word, max_width, size):
                candidate = f"{current} {piece}" if current else piece
                if current and self.text_width(candidate, size) > max_width:
                    lines.append(current)
                    current = piece
                else:
                    current = candidate
        if current:
            lines.append(current)
        if len(lines) > max_lines:
            kept = lines[: max_lines - 1]
            rest = " ".join(lines[max_lines - 1:])
            kept.append(self.ellipsize(rest + ELLIPSIS, max_width, size))
            lines = kept
        return lines

    def _split_long_word(self, word: str, max_width: float, size: float) -> list[str]:
        """``word`` in pieces that fit ``max_width``, each but the last ending in a
        hyphen, so a broken word still reads as one."""
        if self.text_width(word, size) <= max_width:
            return [word]
        budget = max_width - self.text_width(HYPHEN, size)
        pieces: list[str] = []
        start, width = 0, 0.0
        for index, ch in enumerate(word):
            advance = self._advance.get(ord(ch), self._fallback) * size
            if width + advance > budget and index > start:
                pieces.append(word[start:index] + HYPHEN)
                start, width = index, 0.0
            width += advance
        pieces.append(word[start:])
        return pieces


@functools.lru_cache(maxsize=4)
def load_font(path: Path | None = None) -> FontMetrics:
    """A cached ``FontMetrics`` for ``path`` (default: the shipped regular face)."""
    return FontMetrics(path or default_font_path())
