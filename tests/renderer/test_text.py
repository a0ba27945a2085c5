"""Text metrics: real glyph advances, wrapping, hyphenated breaks, ellipsis."""
from __future__ import annotations

import pytest

from renderer.culture import ENGLISH, GERMAN
from renderer.measure import BOX_WIDTHS, measure_shape
from renderer.text import ELLIPSIS, FONT_FAMILY, MIN_FRAGMENT, compound_points, hyphenation_points, load_font

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


def test_long_words_break_at_hyphenation_points_with_a_hyphen() -> None:
    font = load_font()
    lines = font.wrap("Geschäftsführungsentscheidung", 80, SIZE, 4, GERMAN)
    assert lines == ["Geschäfts-", "führungs-", "entscheidung"]
    assert all(font.text_width(line, SIZE) <= 80 for line in lines)


@pytest.mark.parametrize(("word", "width", "lines"), [
    ("Qualitätsmanagement", 100, ["Qualitäts-", "management"]),  # not "Qualitätsmanage-", "ment"
    ("Bewerbungseingang", 80, ["Bewerbungs-", "eingang"]),
    ("Wareneingangsprüfung", 110, ["Wareneingangs-", "prüfung"]),
])
def test_german_compounds_break_between_their_parts(word: str, width: float, lines: list[str]) -> None:
    font = load_font()
    assert font.text_width(word, SIZE) > width  # the word must break
    assert font.wrap(word, width, SIZE, 3, GERMAN) == lines


def test_a_compound_break_gives_way_when_only_the_dictionary_shows_the_whole_text() -> None:
    font = load_font()
    width = font.text_width("Qualitätsmanage-", SIZE) + 1
    # at the compound boundary "Qualitäts-" / "management" / "Nord" would need a third line
    assert font.wrap("Qualitätsmanagement Nord", width, SIZE, 3, GERMAN) == ["Qualitäts-", "management", "Nord"]
    assert font.wrap("Qualitätsmanagement Nord", width, SIZE, 2, GERMAN) == ["Qualitätsmanage-", "ment Nord"]
    assert font.wrap_whole("Qualitätsmanagement Nord", width, SIZE, 2, GERMAN) == ["Qualitätsmanage-", "ment Nord"]


def test_only_german_linking_s_and_own_hyphens_count_as_compound_boundaries() -> None:
    assert compound_points("Kostenstelle", GERMAN) == ()  # an s after a vowel: "Kos-ten"
    assert compound_points("Qualitätsmanagement", ENGLISH) == ()
    assert compound_points("Ein-/Ausgang", GERMAN) == ((4, False), (5, False))


@pytest.mark.parametrize(("word", "culture", "pieces"), [
    ("Bewerbungsgespräch", GERMAN, ["Bewer", "bungs", "ge", "spräch"]),
    ("Geschäftsführung", GERMAN, ["Geschäfts", "füh", "rung"]),
    ("availability", ENGLISH, ["avail", "abil", "ity"]),
])
def test_hyphenation_points_come_from_the_culture_dictionary(word: str, culture: int, pieces: list[str]) -> None:
    points = [point for point, _ in hyphenation_points(word, culture)]
    cuts = [word[a:b] for a, b in zip([0, *points], [*points, len(word)], strict=True)]
    assert cuts == pieces
    assert all(len(word[:point]) >= MIN_FRAGMENT and len(word[point:]) >= MIN_FRAGMENT for point in points)


def test_no_break_leaves_a_fragment_under_three_letters() -> None:
    font = load_font()
    for width in range(40, 140, 4):
        for line in font.wrap("Bewerbungsgespräch Gesprächs-einladung IT-System", width, SIZE, 8, GERMAN):
            fragment = line.rstrip("-" + ELLIPSIS).split()[-1] if line.strip() else ""
            assert sum(ch.isalpha() for ch in fragment) >= MIN_FRAGMENT, (width, line)
        assert "IT-" not in font.wrap("IT-System", 30, SIZE, 4, GERMAN)


def test_a_word_that_fits_a_line_of_its_own_is_not_broken() -> None:
    font = load_font()
    assert font.wrap("Bewerbungsgespräch vereinbaren", 120, SIZE, 3, GERMAN) == ["Bewerbungsgespräch", "vereinbaren"]


def test_boxes_grow_before_words_break_and_ellipsis_only_when_nothing_fits() -> None:
    font = load_font()
    grown = measure_shape("task", "Bewerbungsgespräch vereinbaren", font, GERMAN)
    assert grown.width > BOX_WIDTHS[0] and grown.lines == ("Bewerbungsgespräch", "vereinbaren")
    interface = measure_shape("processInterfacePlaceholder", "Produktionsplanung", font, GERMAN)
    assert interface.lines == ("Produktionsplanung",)
    event = measure_shape("evStart", "Gesprächseinladung versendet", font, GERMAN)
    assert not any(ELLIPSIS in line for line in event.lines)
    hopeless = measure_shape("task", "Wort " * 80, font, GERMAN)
    assert hopeless.width == BOX_WIDTHS[-1] and hopeless.lines[-1].endswith(ELLIPSIS)


def test_too_much_text_ends_in_an_ellipsis() -> None:
    font = load_font()
    lines = font.wrap("word " * 500, 100, SIZE, 3)
    assert len(lines) == 3 and lines[-1].endswith(ELLIPSIS)
    assert font.text_width(lines[-1], SIZE) <= 100
    assert font.ellipsize("short", 100, SIZE) == "short"
