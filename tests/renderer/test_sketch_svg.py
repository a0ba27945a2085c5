"""The sketch read back from an SVG (issue 22, stable layout): the same as the sketch of
the drawing itself, with a swimlane drawing's lanes and a wrapped drawing's cuts."""
from __future__ import annotations

import pytest

from checks.generate import generate_flow
from layouts.base import LayoutOptions
from layouts.sketch import Sketch
from renderer.api import lay_out, render
from renderer.culture import Cultures
from renderer.model import parse_diagram
from renderer.sketch_svg import sketch_direction, sketch_of_svg
from renderer.text import load_font


@pytest.mark.parametrize("key", ["horizontal", "vertical", "horizontalSwimlane", "verticalSwimlane"])
def test_the_sketch_of_the_svg_is_the_sketch_of_the_drawing(key: str) -> None:
    fixture = generate_flow(200, 3)
    _, _, layout = lay_out(parse_diagram(fixture), key, Cultures(1033, 1033), LayoutOptions(), load_font())
    drawn = Sketch.of(layout, sketch_direction(key))
    read = sketch_of_svg(render(fixture, key).encode(), key)
    # 200 shapes without lanes wrap into strips, read unfolded; with lanes, no strips
    assert bool(read.cuts) == ("Swimlane" not in key) and bool(read.lanes) == ("Swimlane" in key)
    assert read.cuts == drawn.cuts and read.lanes.keys() == drawn.lanes.keys()
    assert all(abs(a - b) <= 0.1 for lane in read.lanes for a, b in zip(read.lanes[lane], drawn.lanes[lane]))
    assert all(abs(a - b) <= 0.1 for shape, place in read.nodes.items() for a, b in zip(place, drawn.nodes[shape]))
