"""The render pipeline end to end through ``renderer.api.render``: contract, bad input,
determinism."""
from __future__ import annotations

import json
from typing import Any

import pytest
from lxml import etree

from layouts.keys import LAYOUT_KEYS
from layouts.registry import STRATEGIES, UnknownLayoutKey, get_strategy
from renderer.api import BUILDERS, RenderInputError, UnknownLayoutError, render
from tests.conftest import FIXTURES, load_fixture
from tests.demo_fixtures import demo_fixture

SVG = "{http://www.w3.org/2000/svg}"


def item(index: int, element_type: str = "task", predecessors: tuple[int, ...] = (),
         name: str | None = None) -> dict[str, Any]:
    attributes = {"name": {"1033": name}} if name is not None else {}
    return {"shapeInfo": {"index": index, "predecessors": list(predecessors)},
            "element": {"type": element_type, "attributes": attributes}}


def diagram(*items: dict[str, Any]) -> dict[str, Any]:
    return {"diagram": {"id": "d1", "type": "mainProcess"}, "elements": [], "values": list(items)}


def parse(svg: str) -> Any:
    return etree.fromstring(svg.encode("utf-8"))


@pytest.mark.parametrize("layout_key", ["horizontal", "vertical"])
def test_overlays_and_connectors_follow_the_contract(layout_key: str) -> None:
    fixture = load_fixture(FIXTURES / "corpus" / "gateway.loop-back.json")
    root = parse(render(fixture, layout_key))
    assert root.get("data-layout") == layout_key
    assert root.get("data-diagram-id") == "gateway.loop-back"
    overlays = root[-1]
    assert overlays.get("class") == "overlays"
    rects = overlays.findall(f"{SVG}rect")
    assert [r.get("data-shape-id") for r in rects] == [f"shape-{i}" for i in range(5)]
    assert all(r.get("fill") == "transparent" and r.get("data-diagram-id") == "gateway.loop-back" for r in rects)
    assert {r.get("data-type") for r in rects} == {"evStart", "evEnd", "task", "ruleXor"}
    connectors = root.findall(f".//{SVG}path[@class='connector']")
    assert len(connectors) == 5
    assert all(set(c.get("d")) <= set("MLHV0123456789. -") for c in connectors)


def test_labels_use_the_requested_culture_with_fallback() -> None:
    fixture = diagram(
        {"shapeInfo": {"index": 0, "predecessors": []},
         "element": {"type": "task", "attributes": {"name": {"1031": "Auftrag prüfen", "1033": "Check order"}}}},
        {"shapeInfo": {"index": 1, "predecessors": [0]},
         "element": {"type": "task", "attributes": {"name": {"127": "Neutral"}}}})
    german = render(fixture, "horizontal", culture=1031)
    assert "Auftrag prüfen" in german and "Neutral" in german and "Check order" not in german
    assert "Check order" in render(fixture, "horizontal", culture=1033)


def test_same_input_gives_identical_bytes() -> None:
    fixture = load_fixture(FIXTURES / "corpus" / "Control_flow_optimization_test.json")
    assert render(fixture, "horizontal") == render(fixture, "horizontal")


def test_user_text_never_becomes_markup() -> None:
    svg = render(diagram(item(0, name='<script>alert(1)</script>" onload="x'), item(1, "evEnd", (0,), name="&amp;")),
                 "horizontal")
    root = parse(svg)
    assert root.find(f".//{SVG}script") is None
    assert not any(key.startswith("on") for el in root.iter() for key in el.attrib)
    assert "&lt;script&gt;" in svg


@pytest.mark.parametrize(("fixture", "message"), [
    (diagram(item(0, "bogus")), "unknown element type 'bogus'"),
    (diagram(item(0), item(1, predecessors=(7,))), "values[1]: predecessor 7 of shape 1 is not an index"),
    (diagram(item(0, predecessors=(0,))), "values[0]: shape 0 names itself as its predecessor"),
    (diagram(item(0), item(0)), "values[1].shapeInfo.index 0 is already the index of values[0]"),
    (diagram(item(1)), "values[0].shapeInfo.index 1 is out of range 0..0"),
    ([1, 2], "must be a JSON object"),
    ({"values": {"a": 1}}, "'values' must be a list"),
    (diagram({"shapeInfo": {"index": "x"}}), "shapeInfo.index must be an integer"),
    (diagram({"shapeInfo": {"index": 0, "predecessors": "0"}}), "predecessors must be a list of integers"),
])
def test_bad_input_gets_a_one_line_error(fixture: Any, message: str) -> None:
    with pytest.raises(RenderInputError) as raised:
        render(fixture, "horizontal")
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_unknown_layout_key_is_a_clear_error() -> None:
    with pytest.raises(UnknownLayoutError, match="unknown layout 'diagonal'"):
        render(diagram(item(0)), "diagonal")


def test_every_layout_key_has_a_strategy_and_a_builder() -> None:
    assert tuple(STRATEGIES) == LAYOUT_KEYS
    assert set(BUILDERS) == set(LAYOUT_KEYS)
    with pytest.raises(UnknownLayoutKey, match="one of: detailed, vertical"):
        get_strategy("diagonal")


def test_awkward_but_valid_input_gives_a_sensible_picture() -> None:
    cycle_without_start = diagram(item(0, predecessors=(2,)), item(1, predecessors=(0,)), item(2, predecessors=(1,)))
    assert len(parse(render(cycle_without_start, "horizontal"))[-1]) == 3
    empty = parse(render(diagram(), "vertical"))
    assert len(empty[-1]) == 0 and float(empty.get("width")) > 0
    long_name = parse(render(diagram(item(0, name="x" * 10000), item(1, "evEnd", (0,), name="word " * 2000)),
                             "horizontal"))
    texts = "".join(t.xpath("string()") for t in long_name.iter(f"{SVG}text"))
    assert len(texts) < 400 and "\u2026" in texts
    controls = render(diagram(item(0, name="a\x00b\x07c\u0085d\ud800e")), "horizontal")
    assert parse(controls) is not None and "\x00" not in controls


@pytest.mark.parametrize("layout_key", LAYOUT_KEYS)
def test_the_order_of_keys_in_json_objects_never_changes_the_picture(layout_key: str) -> None:
    """The render cache keys a fixture by its canonical JSON (keys sorted), so the
    renderer may not draw two orders of one object differently."""
    fixture = demo_fixture("credit-check")
    reordered = json.loads(json.dumps(fixture), object_pairs_hook=lambda pairs: dict(reversed(pairs)))
    assert render(reordered, layout_key) == render(fixture, layout_key)
