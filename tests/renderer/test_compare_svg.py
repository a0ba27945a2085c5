"""The compare drawing (renderer/compare_svg.py): its marks, ghosts, legend and overlays,
its layout from the older drawing, and goldens of a demo diagram with a task
added, one renamed and one removed."""
from __future__ import annotations

import copy
from typing import Any

import pytest
from lxml import etree
from pytest_regressions.file_regression import FileRegressionFixture

from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL
from layouts.sketch import Sketch
from layouts.stability import Stability
from renderer.api import lay_out
from renderer.compare_svg import render_comparison
from renderer.culture import Cultures
from renderer.model import parse_diagram
from renderer.text import load_font
from tests.renderer.compare_cases import ADDED_SHAPE, REMOVED_SHAPE, RENAMED_SHAPE, newer, older
from tests.renderer.test_golden import GOLDEN, same_svg

SVG = "{http://www.w3.org/2000/svg}"
CHANGES = {"added", "changed", "removed", "moved"}


def legend_words(root: Any) -> list[str]:
    """Each legend entry's text, its badge left out."""
    return [entry.findall(f"{SVG}text")[-1].text for entry in root.findall(f".//{SVG}g[@class='change-legend-entry']")]


def parse(svg: str) -> Any:
    return etree.fromstring(svg.encode("utf-8"))


def overlays(root: Any) -> list[Any]:
    group = root.find(f"{SVG}g[@class='overlays']")
    return list(group)


def centres(root: Any) -> dict[str, tuple[float, float]]:
    """Shape id → its overlay's centre (the newer drawing's shapes, ghosts left out)."""
    return {rect.get("data-shape-id"): (round(float(rect.get("x")) + float(rect.get("width")) / 2, 2),
                                        round(float(rect.get("y")) + float(rect.get("height")) / 2, 2))
            for rect in overlays(root) if rect.get("class") == "overlay"}


@pytest.mark.parametrize("layout", ["horizontal", "vertical", "horizontalSwimlane", "detailed"])
def test_exactly_the_three_changes_are_marked(layout: str) -> None:
    old = older()
    root = parse(render_comparison(old, newer(old), layout).svg)
    marked = {(rect.get("data-shape-id"), rect.get("data-change")) for rect in overlays(root)
              if rect.get("data-change")}
    assert marked == {(ADDED_SHAPE, "added"), (RENAMED_SHAPE, "changed"), (REMOVED_SHAPE, "removed")}
    ghosts = root.findall(f".//{SVG}g[@class='change-ghost']")
    assert [g.get("data-shape-id") for g in ghosts] == [REMOVED_SHAPE]
    assert "Obtain exception" in "".join(ghosts[0].itertext())  # its label, wrapped as before
    assert [m.get("data-change") for m in root.findall(f".//{SVG}g[@class='change-mark']")] == ["added", "changed"]
    # The overlays stay the last group: the viewer's click targets lie on top.
    assert root[-1].get("class") == "overlays"


def test_every_kind_of_mark_has_a_badge_and_a_pattern_besides_its_colour() -> None:
    old = older()
    root = parse(render_comparison(old, newer(old), "horizontal").svg)
    entries = root.findall(f".//{SVG}g[@class='change-legend-entry']")
    assert [e.get("data-change") for e in entries] == ["added", "changed", "removed", "moved"]
    badges, outlines = set(), set()
    for entry in entries:
        badge = entry.find(f"{SVG}g[@class='change-badge']")
        badges.add("".join(badge.itertext()))
        outlines.add((entry.find(f"{SVG}rect[@fill='none']").get("stroke-dasharray"),
                      entry.find(f"{SVG}rect[@fill='none']").get("stroke-width")))
    assert len(badges) == 4 and len(outlines) == 4  # each kind told apart without its colour
    assert legend_words(root) == ["added (1)", "changed (1)", "removed (1)", "moved (0)"]
    assert [e.get("data-change") for e in root.findall(f".//{SVG}path[@class='change-flow']")].count("added") == 3
    ghost = root.find(f".//{SVG}g[@class='change-ghost']")
    assert any((rect.get("fill") or "").startswith("url(#") for rect in ghost.iter(f"{SVG}rect"))


def test_the_legend_speaks_the_drawings_culture() -> None:
    old = older()
    root = parse(render_comparison(old, newer(old), "horizontal", 1031).svg)
    assert legend_words(root) == ["hinzugefügt (1)", "geändert (1)", "entfernt (1)", "verschoben (0)"]


def test_user_text_stays_text_and_the_drawing_is_deterministic() -> None:
    old = older()
    new = newer(old)
    for value in new["values"]:
        if value["shapeInfo"]["id"] == RENAMED_SHAPE:
            value["element"]["attributes"]["name"]["1033"] = '<script>"x"</script> &'
    first = render_comparison(old, new, "horizontal").svg
    assert render_comparison(copy.deepcopy(old), copy.deepcopy(new), "horizontal").svg == first
    root = parse(first)
    assert not root.findall(f".//{SVG}script")
    assert '&lt;script&gt;"x"&lt;/script&gt;' in first  # as text, escaped (wrapped before "&")


def test_no_change_draws_the_plain_drawing_with_an_empty_legend() -> None:
    old = older()
    root = parse(render_comparison(old, copy.deepcopy(old), "horizontal").svg)
    assert not [rect for rect in overlays(root) if rect.get("data-change")]
    assert root.find(f".//{SVG}g[@class='change-marks']") is None
    assert legend_words(root) == ["added (0)", "changed (0)", "removed (0)", "moved (0)"]


@pytest.mark.parametrize("layout", ["horizontal", "vertical", "detailed"])
def test_the_newer_drawing_is_laid_out_with_the_older_as_its_sketch(layout: str) -> None:
    """The drawing's shapes stand where the engine puts them given the older drawing as a
    sketch, read along the flow (down in ``vertical`` and ``detailed``), and here every
    shape both versions hold stays in its row and order."""
    old, new = older(), newer(older())
    cultures, font = Cultures(1033, 1033), load_font()
    _, _, old_layout = lay_out(parse_diagram(old), layout, cultures, LayoutOptions(), font)
    vertical = layout != "horizontal"
    sketch = Sketch.of(old_layout, VERTICAL if vertical else HORIZONTAL)
    _, _, sketched = lay_out(parse_diagram(new), layout, cultures, LayoutOptions(sketch=sketch), font)
    drawn = centres(parse(render_comparison(old, new, layout).svg))
    assert drawn == {node.id: (round(node.box.cx, 2), round(node.box.cy, 2)) for node in sketched.nodes}
    kept = Stability.between(old_layout, sketched, vertical)
    assert (kept.rows_left, kept.order_kept) == (0, 1.0)


@pytest.mark.parametrize("layout", ["horizontal", "vertical"])
def test_golden_compare(layout: str, file_regression: FileRegressionFixture) -> None:
    old = older()
    svg = render_comparison(old, newer(old), layout).svg
    file_regression.check(svg, fullpath=GOLDEN / "compare" / f"demo.credit-check.{layout}.svg", check_fn=same_svg)
