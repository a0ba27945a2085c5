"""No text outside its shape, in German and English (docs/element_layouts.md, "Labels"):
over the corpus (ours, and the shared one when it is beside the project) and the demo,
in the flow, swimlane and matrix layouts, every label line measured with the font fits
the label area of the symbol drawn (or the label box beside an event or gateway), the
lines fit its height, and every lane name fits its header strip, on one line wherever
the lane's length holds it."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from layouts.base import LayoutOptions
from layouts.geometry import Box, Layout
from renderer.api import lay_out
from renderer.culture import ENGLISH, GERMAN, Cultures
from renderer.flow import lane_name
from renderer.model import parse_diagram
from renderer.scene import Scene
from renderer.symbols import symbol_for
from renderer.text import FontMetrics, load_font
from tests.conftest import FIXTURES, load_fixture
from tests.demo_fixtures import DIAGRAM_KEYS, demo_fixture

LAYOUTS = ("horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane", "processMatrix", "customerMatrix")
#: Rounding of positions to 0.01 and of widths in the builders.
TOLERANCE = 0.05


def our_fixtures() -> list[tuple[str, Any]]:
    """The demo's diagrams and tests/fixtures/corpus, by name."""
    return ([(f"demo/{name}", demo_fixture(name)) for name in DIAGRAM_KEYS]
            + [(path.stem, load_fixture(path)) for path in sorted((FIXTURES / "corpus").glob("*.json"))])


def laid_out(fixture: Any, key: str, culture: int) -> tuple[Scene, Layout]:
    _, scene, layout = lay_out(parse_diagram(fixture), key, Cultures(culture, ENGLISH), LayoutOptions(), load_font())
    return scene, layout


def overflows(scene: Scene, layout: Layout, font: FontMetrics) -> Iterator[str]:
    """A description of every label line or block that leaves its area."""
    size = scene.font_size
    line_height = font.line_height(size)

    def check(owner: str, lines: tuple[str, ...], area: Box) -> Iterator[str]:
        for line in lines:
            if font.text_width(line, size) > area.w + TOLERANCE:
                yield f"{owner}: {line!r} is {font.text_width(line, size):.1f} wide in {area.w:.1f}"
        if len(lines) * line_height > area.h + TOLERANCE:
            yield f"{owner}: {len(lines)} lines in {area.h:.1f} high"

    for node in layout.nodes:
        view = scene.shapes[node.id]
        if not view.lines:
            continue
        area = node.label if node.label is not None else \
            symbol_for(view, node.box, line_height, size).label_area
        yield from check(node.id, view.lines, area)
    for lane in layout.lanes:
        header = lane.header
        along, across = max(header.w, header.h), min(header.w, header.h)  # names run along the strip
        yield from check(f"lane {lane.id}", scene.lanes[lane.id].lines, Box(0, 0, along, across))


def broken_lane_names(fixture: Any, culture: int, scene: Scene, layout: Layout, font: FontMetrics) -> Iterator[str]:
    """Every lane name not shown as it is (on several lines, or cut) although its lane
    holds it on one line."""
    diagram = parse_diagram(fixture)
    padding = LayoutOptions().edge_spacing
    for lane in layout.lanes:
        name = lane_name(diagram, lane.id, Cultures(culture, ENGLISH))
        along = max(lane.header.w, lane.header.h) - 2 * padding
        if scene.lanes[lane.id].lines != (name,) and font.text_width(name, scene.font_size) <= along:
            yield f"lane {lane.id}: {scene.lanes[lane.id].lines} in {along:.1f}"


@pytest.mark.parametrize("culture", [GERMAN, ENGLISH])
@pytest.mark.parametrize("key", LAYOUTS)
def test_every_label_fits_its_shape(key: str, culture: int) -> None:
    assert label_problems(our_fixtures(), key, culture) == []


@pytest.mark.parametrize("culture", [GERMAN, ENGLISH])
@pytest.mark.parametrize("key", LAYOUTS)
def test_every_label_of_the_shared_corpus_fits_its_shape(key: str, culture: int, shared_dir: Path) -> None:
    fixtures = [(path.stem, json.loads(path.read_text(encoding="utf-8")))
                for path in sorted((shared_dir / "corpus").glob("*/fixtures/*.json"))]
    assert label_problems(fixtures, key, culture) == []


def label_problems(fixtures: list[tuple[str, Any]], key: str, culture: int) -> list[str]:
    """Labels overflowing their shape and lane names broken though they fit, by fixture name."""
    font = load_font()
    problems: list[str] = []
    for name, fixture in fixtures:
        scene, layout = laid_out(fixture, key, culture)
        problems += [f"{name}: {problem}" for problem in overflows(scene, layout, font)]
        problems += [f"{name}: {problem}" for problem in broken_lane_names(fixture, culture, scene, layout, font)]
    return problems


@pytest.mark.parametrize("key", LAYOUTS[:4])
def test_the_process_interface_label_stays_inside_the_pentagon(key: str) -> None:
    scene, layout = laid_out(demo_fixture("order-to-cash"), key, GERMAN)
    interfaces = [view for view in scene.shapes.values() if view.type == "processInterfacePlaceholder"]
    assert [view.lines[0] for view in interfaces] == ["Produktionsplanung"]  # unbroken
    assert list(overflows(scene, layout, load_font())) == []
