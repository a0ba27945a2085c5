"""The render contract (renderer/contract.py) and the one culture fallback
(renderer/culture.py), on their own and through ``render``."""
from __future__ import annotations

from typing import Any

import pytest

from renderer.api import render
from renderer.contract import (
    MAX_CULTURE_ID,
    RenderInputError,
    check_element_reference,
    check_shape_links,
    culture_id,
    shape_links,
)
from renderer.culture import ENGLISH, GERMAN, LANGUAGE_NEUTRAL, Cultures


def test_links_may_loop_point_forward_and_repeat() -> None:
    check_shape_links([(0, [2]), (2, [1, 1]), (1, [0, 2])])
    check_shape_links([])


@pytest.mark.parametrize(("links", "message"), [
    ([(0, []), (2, [])], "values[1].shapeInfo.index 2 is out of range 0..1"),
    ([(-1, [])], "values[0].shapeInfo.index -1 is out of range 0..0"),
    ([(1, []), (0, []), (1, [])], "values[2].shapeInfo.index 1 is already the index of values[0]"),
    ([(0, []), (1, [1])], "values[1]: shape 1 names itself as its predecessor"),
    ([(1, []), (0, [5])], "values[1]: predecessor 5 of shape 0 is not an index of the list (0..1)"),
])
def test_each_broken_link_rule_names_the_item(links: list[tuple[int, list[int]]], message: str) -> None:
    with pytest.raises(RenderInputError) as raised:
        check_shape_links(links)
    assert str(raised.value) == message


@pytest.mark.parametrize(("info", "message"), [
    ({}, "values[3].shapeInfo.index must be an integer"),
    ({"index": True}, "values[3].shapeInfo.index must be an integer"),
    ({"index": 1.0}, "values[3].shapeInfo.index must be an integer"),
    ({"index": 0, "predecessors": [False]}, "values[3].shapeInfo.predecessors must be a list of integers"),
    ({"index": 0, "predecessors": {"0": 1}}, "values[3].shapeInfo.predecessors must be a list of integers"),
])
def test_shape_info_types(info: dict[str, Any], message: str) -> None:
    with pytest.raises(RenderInputError) as raised:
        shape_links(info, "values[3]")
    assert str(raised.value) == message


def test_shape_info_keeps_the_links_as_given() -> None:
    assert shape_links({"index": 2, "predecessors": [1, 0, 1]}, "values[2]") == (2, (1, 0, 1))
    assert shape_links({"index": 0, "predecessors": None}, "values[0]") == (0, ())


def test_an_element_is_named_or_described() -> None:
    check_element_reference("e1", None, "values[0]")
    check_element_reference(None, "task", "values[0]")
    with pytest.raises(RenderInputError, match=r"^values\[0\]\.element needs either an id or a type$"):
        check_element_reference(None, None, "values[0]")


@pytest.mark.parametrize(("value", "expected"), [
    (1033, 1033), ("1031", 1031), ("127", 127), (1, 1), (str(MAX_CULTURE_ID), MAX_CULTURE_ID)])
def test_culture_ids_are_integers_or_digit_text(value: Any, expected: int) -> None:
    assert culture_id(value, "culture") == expected


@pytest.mark.parametrize("value", [0, -1, MAX_CULTURE_ID + 1, True, 1033.0, None, "", "0", "01033",
                                   " 1033", "+1033", "en", "\u0661\u0660\u0663\u0663", "9" * 5000])
def test_anything_else_is_no_culture_id(value: Any) -> None:
    with pytest.raises(RenderInputError) as raised:
        culture_id(value, "cultureId")
    message = str(raised.value)
    assert message.startswith("cultureId: culture ") and f"1..{MAX_CULTURE_ID}" in message
    assert len(message) < 200  # a long input is cut short


# ---- one fallback -------------------------------------------------------------------

def test_pick_tries_requested_neutral_default_then_the_first_value() -> None:
    texts = {GERMAN: "Deutsch", ENGLISH: "English", LANGUAGE_NEUTRAL: "Neutral", 1036: "Français"}
    assert Cultures(1036, ENGLISH).pick(texts) == "Français"
    assert Cultures(1040, ENGLISH).pick(texts) == "Neutral"
    assert Cultures(1040, GERMAN).pick({GERMAN: "Deutsch", ENGLISH: "English"}) == "Deutsch"
    assert Cultures(1040, 1041).pick({1036: "", GERMAN: "Deutsch", ENGLISH: "English"}) == "Deutsch"
    assert Cultures(ENGLISH, ENGLISH).pick({ENGLISH: ""}) is None


def fixture_with_names(*names: dict[str, str]) -> dict[str, Any]:
    return {"diagram": {"id": "d"}, "values": [
        {"shapeInfo": {"index": i, "predecessors": [i - 1] if i else []},
         "element": {"type": "task", "attributes": {"name": name}}} for i, name in enumerate(names)]}


def test_render_falls_back_to_the_default_culture_it_is_given() -> None:
    fixture = fixture_with_names({"1031": "Auftrag prüfen", "1033": "Check order"})
    assert "Check order" in render(fixture, "horizontal", 1036)
    assert "Auftrag prüfen" in render(fixture, "horizontal", 1036, default_culture=GERMAN)
    assert "Check order" in render(fixture, "horizontal", ENGLISH, default_culture=GERMAN)


def test_the_unassigned_lane_is_named_with_the_same_fallback() -> None:
    fixture = fixture_with_names({"1033": "Check order"})
    assert "Nicht zugeordnet" in render(fixture, "horizontalSwimlane", GERMAN)
    assert "Nicht zugeordnet" in render(fixture, "horizontalSwimlane", 1036, default_culture=GERMAN)
    assert "Unassigned" in render(fixture, "horizontalSwimlane", 1036)
    assert "Unassigned" in render(fixture, "horizontalSwimlane", 1036, default_culture=1036)


def test_a_culture_as_digit_text_draws_the_same_bytes() -> None:
    fixture = fixture_with_names({"1031": "Auftrag prüfen", "1033": "Check order"})
    assert render(fixture, "vertical", "1031", default_culture="1033") == render(fixture, "vertical", GERMAN)


@pytest.mark.parametrize(("culture", "default_culture", "message"), [
    ("en", ENGLISH, "culture: culture 'en' must be a culture id"),
    (ENGLISH, 0, "default culture: culture 0 must be a culture id"),
])
def test_a_bad_culture_is_a_render_input_error(culture: Any, default_culture: Any, message: str) -> None:
    with pytest.raises(RenderInputError) as raised:
        render(fixture_with_names({}), "horizontal", culture, default_culture=default_culture)
    assert str(raised.value).startswith(message)


def test_attribute_cultures_of_a_fixture_are_culture_ids() -> None:
    with pytest.raises(RenderInputError) as raised:
        render(fixture_with_names({"en": "Check order"}), "horizontal")
    assert str(raised.value).startswith("values[0].attributes.name: culture 'en' must be a culture id")
