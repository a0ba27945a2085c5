"""Text metrics from a real font: glyph advances read with fontTools, word wrapping to a
width with hyphenation (pyphen's German and English dictionaries), ellipsis only when
text does not fit.

The font file comes from the ``font-source-sans-pro`` package (SIL Open Font License), so
every install measures with the same glyphs the SVG names first in ``font-family``.
"""
from __future__ import annotations

import functools
import io
from importlib import resources
from pathlib import Path

import pyphen
from fontTools import subset
from fontTools.ttLib import TTFont

from renderer.culture import ENGLISH, GERMAN

#: The family the text is measured with; every SVG embeds a subset of it under this name.
EMBEDDED_FAMILY = "Source Sans Pro"
FONT_FAMILY = f"'{EMBEDDED_FAMILY}', 'Source Sans 3', 'Segoe UI', Arial, Helvetica, sans-serif"
ELLIPSIS = "\u2026"
HYPHEN = "-"
#: No break leaves fewer letters than this on either side ("Gesprä-ch" is no break).
MIN_FRAGMENT = 3
#: Characters after which a word may break without adding a hyphen.
BREAK_AFTER = "-/"
#: The hyphenation dictionary of each culture; any other culture hyphenates as English.
DICTIONARIES = {GERMAN: "de_DE", ENGLISH: "en_US"}
#: Vowels (and umlauts) of German: an s after one of these is rarely a linking s.
GERMAN_VOWELS = frozenset("aeiouyäöü")


def default_font_path() -> Path:
    """The regular face shipped by ``font-source-sans-pro``."""
    files = resources.files("font_source_sans_pro") / "files" / "SourceSansPro-Regular.ttf"
    return Path(str(files))


class FontMetrics:
    """Advance widths of one font face; widths in user units for a given font size."""

    def __init__(self, path: Path) -> None:
        self.path = path
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

    def wrap(self, text: str, max_width: float, size: float, max_lines: int,
             culture: int = ENGLISH) -> list[str]:
        """Word wrap to ``max_width``; only a word longer than a line breaks, at a
        hyphenation point of ``culture``'s dictionary (``hyphenation_points``); the last line is
        ellipsized when the text needs more than ``max_lines`` lines, and a fragment
        that fits no line even so is cut with an ellipsis. Every line fits. A word
        breaks at a compound boundary (``compound_points``) where one fits the line,
        unless only the dictionary's last fitting point shows the whole text."""
        lines, whole = self._wrap(text, max_width, size, max_lines, culture, compounds=True)
        return lines if whole else self._wrap(text, max_width, size, max_lines, culture, compounds=False)[0]

    def wrap_whole(self, text: str, max_width: float, size: float, max_lines: int,
                   culture: int = ENGLISH) -> list[str] | None:
        """``wrap``'s lines when they show all of ``text`` (no ellipsis), else None: what
        a box that may grow asks before it settles for an ellipsis."""
        for compounds in (True, False):
            lines, whole = self._wrap(text, max_width, size, max_lines, culture, compounds)
            if whole:
                return lines
        return None

    def _wrap(self, text: str, max_width: float, size: float, max_lines: int,
              culture: int, compounds: bool) -> tuple[list[str], bool]:
        lines: list[str] = []
        current = ""
        whole = True
        for word in text.split():
            start = 0  # where the part of ``word`` not yet on a line begins
            while start < len(word):
                rest = word[start:]
                candidate = f"{current} {rest}" if current else rest
                if self.text_width(candidate, size) <= max_width:
                    current, start = candidate, len(word)
                    continue
                if current and self.text_width(rest, size) <= max_width:
                    lines.append(current)  # a word that fits a line of its own is not broken
                    current = ""
                    continue
                room = max_width - self.text_width(f"{current} ", size) if current else max_width
                point = self._break_point(word, start, room, size, culture, compounds)
                if point is not None:
                    head = word[start:point[0]] + (HYPHEN if point[1] else "")
                    lines.append(f"{current} {head}" if current else head)
                    current, start = "", point[0]
                elif current:
                    lines.append(current)
                    current = ""
                else:  # not even the shortest fragment fits a line of its own
                    lines.append(self.ellipsize(rest, max_width, size))
                    whole, start = False, len(word)
        if current:
            lines.append(current)
        if len(lines) > max_lines:
            kept = lines[: max_lines - 1]
            rest_text = " ".join(lines[max_lines - 1:])
            kept.append(self.ellipsize(rest_text + ELLIPSIS, max_width, size))
            return kept, False
        return lines, whole

    def _break_point(self, word: str, start: int, room: float, size: float,
                     culture: int, compounds: bool) -> tuple[int, bool] | None:
        """The last hyphenation point of ``word`` after ``start`` whose head from
        ``start`` (with its hyphen) fits ``room`` and keeps ``MIN_FRAGMENT`` letters,
        as (index, hyphen added), the last such compound boundary first when
        ``compounds``; None when there is none."""
        tiers = (compound_points(word, culture), hyphenation_points(word, culture)) if compounds else \
            (hyphenation_points(word, culture),)
        for points in tiers:
            for point, added in reversed(points):
                head = word[start:point]
                if point > start and _letters(head) >= MIN_FRAGMENT and \
                        self.text_width(head + (HYPHEN if added else ""), size) <= room:
                    return point, added
        return None


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


_UNUSED_TABLES = ("GSUB", "GPOS", "GDEF", "kern", "DSIG")


@functools.lru_cache(maxsize=64)
def font_subset_woff2(path: Path, characters: str) -> bytes:
    """The face at ``path`` cut down to the glyphs of ``characters`` (plus .notdef), as
    WOFF2 bytes that depend only on the face and the characters: no timestamp (the
    original ``head.modified`` is kept), no hinting, no glyph names, names only for
    finding the face and its licence, no layout features
    (kerning and ligatures would make a viewer's text wider or narrower than the summed
    advances ``FontMetrics`` measures)."""
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []
    options.hinting = False
    options.glyph_names = False
    # the family and face names (resvg finds no font without the full and PostScript
    # names), the copyright and the OFL licence the subset must carry
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    font = TTFont(str(path), recalcTimestamp=False, lazy=True)
    for tag in _UNUSED_TABLES:  # deleted before subsetting: reading GPOS alone takes 0.5 s
        if tag in font:
            del font[tag]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted({ord(ch) for ch in characters}))
    subsetter.subset(font)
    buffer = io.BytesIO()
    subset.save_font(font, buffer, options)
    font.close()
    return buffer.getvalue()


@functools.lru_cache(maxsize=2)
def _dictionary(language: str) -> pyphen.Pyphen:
    return pyphen.Pyphen(lang=language, left=MIN_FRAGMENT, right=MIN_FRAGMENT)


@functools.lru_cache(maxsize=4096)
def hyphenation_points(word: str, culture: int) -> tuple[tuple[int, bool], ...]:
    """Where ``word`` may break, ascending, as (index, whether a hyphen is added): after
    its own hyphens and slashes, and at the dictionary's points inside its letter runs;
    never where a side would keep fewer than ``MIN_FRAGMENT`` letters."""
    dictionary = _dictionary(DICTIONARIES.get(culture, DICTIONARIES[ENGLISH]))
    points: dict[int, bool] = {}
    start = 0
    for index in range(len(word) + 1):
        if index < len(word) and word[index].isalpha():
            continue
        if index - start >= 2 * MIN_FRAGMENT:
            for position in dictionary.positions(word[start:index]):
                points[start + position] = True
        if index < len(word) and word[index] in BREAK_AFTER:
            points[index + 1] = False
        start = index + 1
    return tuple((point, added) for point, added in sorted(points.items())
                 if _letters(word[:point]) >= MIN_FRAGMENT and _letters(word[point:]) >= MIN_FRAGMENT)


@functools.lru_cache(maxsize=4096)
def compound_points(word: str, culture: int) -> tuple[tuple[int, bool], ...]:
    """The points of ``hyphenation_points`` that lie between the parts of a compound,
    where a reader expects a long word to break: after the word's own hyphen or slash,
    and in German after a linking s that follows a consonant ("Qualitäts-management",
    "Bewerbungs-eingang", "Geschäfts-führung"; the dictionary alone would as soon give
    "Qualitätsmanage-ment"). Without a lexicon the other linking forms (-en-, -er-) are
    not told from syllables, so those compounds break at the dictionary's points."""
    return tuple((point, added) for point, added in hyphenation_points(word, culture)
                 if not added or (culture == GERMAN and _linking_s(word[:point])))


def _linking_s(head: str) -> bool:
    return len(head) >= 2 and head[-1] == "s" and head[-2].isalpha() and head[-2].lower() not in GERMAN_VOWELS


@functools.lru_cache(maxsize=4)
def load_font(path: Path | None = None) -> FontMetrics:
    """A cached ``FontMetrics`` for ``path`` (default: the shipped regular face)."""
    return FontMetrics(path or default_font_path())
