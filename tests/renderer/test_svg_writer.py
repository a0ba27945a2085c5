"""The SVG writer's own XML serialization: user text that tries to become markup is
escaped exactly as the svgwrite + ElementTree serializer it replaced escaped it.

Every expected string below was produced by that serializer (svgwrite 1.4.3 on
Python 3.11) before it was removed; the outputs must not change by a byte, or caches and
goldens of earlier renders would no longer match.
"""
from __future__ import annotations

from layouts.geometry import Box, Cell, EdgeRoute, LaneBand, Layout, NodeBox
from renderer.scene import LaneView, Scene, ShapeView
from renderer.svg import write_svg

HOSTILE = "<script>alert(1)</script>\" onload=\"x' &amp; ]]>"
#: Tab, LF and CR are kept (as character references in attributes, raw in text); NUL,
#: other C0 controls, a lone surrogate and U+FFFE are removed.
CONTROL = "a\x00b\x1fc\td\ne\rf\ud800g\ufffeh"
HOSTILE_ATTR = ("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload=&quot;x' &amp;amp; "
                "]]&gt;")
HOSTILE_TEXT = "&lt;script&gt;alert(1)&lt;/script&gt;\" onload=\"x' &amp;amp; ]]&gt;"
CONTROL_ATTR = "abc&#09;d&#10;e&#13;fgh"
NODE = NodeBox("n", Box(10, 10, 80, 30))


def test_hostile_ids_are_escaped_attribute_values() -> None:
    scene = Scene(HOSTILE, "vertical",
                  {"n": ShapeView(HOSTILE, HOSTILE, "task", ("x",), lane_id=HOSTILE)})
    svg = write_svg(Layout(100, 50, (NODE,)), scene)
    assert svg.startswith(f'<svg baseProfile="full" data-diagram-id="{HOSTILE_ATTR}" '
                          'data-layout="vertical" ')
    assert (f'<rect class="overlay" data-diagram-id="{HOSTILE_ATTR}" '
            f'data-guid="{HOSTILE_ATTR}" data-lane-id="{HOSTILE_ATTR}" '
            f'data-shape-id="{HOSTILE_ATTR}" data-type="task" fill="transparent" '
            'height="30" width="80" x="10" y="10" />') in svg


def test_hostile_label_is_escaped_character_data() -> None:
    scene = Scene("d", "vertical", {"n": ShapeView("s", "g", "task", (HOSTILE,))})
    svg = write_svg(Layout(100, 50, (NODE,)), scene)
    assert ('<text fill="#1a202c" text-anchor="middle" x="50" y="29.2">'
            f"{HOSTILE_TEXT}</text>") in svg
    assert "<script" not in svg


def test_control_characters_in_ids_labels_and_edge_labels() -> None:
    route = EdgeRoute("n", "n", ((0, 0), (5, 0)), Box(0, 0, 10, 10), key="e")
    scene = Scene(CONTROL, "vertical",
                  {"n": ShapeView(CONTROL, CONTROL, "task", (CONTROL, "]]>"))},
                  edge_labels={"e": ("&<>\"'",)})
    svg = write_svg(Layout(100, 50, (NODE,), (route,)), scene)
    assert (f'<path class="connector" d="M 0 0 H 5" data-source-shape-id="{CONTROL_ATTR}" '
            f'data-target-shape-id="{CONTROL_ATTR}" fill="none" marker-end="url(#arrow)" '
            'stroke="#4a5568" stroke-linejoin="round" stroke-width="1.2" />') in svg
    assert ('<text fill="#4a5568" text-anchor="middle" x="5" y="9.2">'
            "&amp;&lt;&gt;\"'</text>") in svg
    assert ('<text fill="#1a202c" text-anchor="middle"><tspan x="50" y="21.66">'
            'abc\td\ne\rfgh</tspan><tspan x="50" y="36.74">]]&gt;</tspan></text>') in svg
    assert f'data-guid="{CONTROL_ATTR}"' in svg


def test_lane_cell_and_legend_text() -> None:
    lane = LaneBand(HOSTILE, Box(0, 0, 100, 50), Box(0, 0, 20, 50))
    cell = Cell(HOSTILE, CONTROL, Box(30, 0, 20, 20))
    scene = Scene("d", "processMatrix", {}, {HOSTILE: LaneView(HOSTILE, (HOSTILE,))},
                  cell_marks={(HOSTILE, CONTROL): "<b>&"}, legend=(("<", '"&"'),))
    svg = write_svg(Layout(100, 50, (), lanes=(lane,), cells=(cell,)), scene)
    assert f'<g class="lane" data-lane-id="{HOSTILE_ATTR}">' in svg
    assert ('<text fill="#1a202c" text-anchor="middle" transform="rotate(-90 10 25)" '
            f'x="10" y="29.2">{HOSTILE_TEXT}</text>') in svg
    assert (f'<rect class="matrix-cell" data-column-id="{CONTROL_ATTR}" '
            f'data-row-id="{HOSTILE_ATTR}" fill="#ffffff" height="20" stroke="#d5dbe3" '
            'stroke-width="1" width="20" x="30" y="0" />') in svg
    assert '>&lt;b&gt;&amp;</text>' in svg
    assert ('<text fill="#1a202c" text-anchor="start" x="30" y="69.74">'
            '&lt; \u2013 "&amp;"</text>') in svg
    assert svg.endswith('<g class="overlays" /></svg>')


def test_empty_content_and_empty_attributes() -> None:
    """A label line that cleaning empties is a ``<text ... />``; a route without points
    writes no ``d`` (an empty attribute is left out)."""
    scene = Scene("d", "vertical", {"n": ShapeView("s", "g", "task", ("\x00",))})
    svg = write_svg(Layout(100, 50, (NODE,), (EdgeRoute("n", "n", ()),)), scene)
    assert '<text fill="#1a202c" text-anchor="middle" x="50" y="29.2" />' in svg
    assert ('<path class="connector" data-source-shape-id="s" data-target-shape-id="s" '
            'fill="none" ') in svg


def test_root_and_marker_attributes_sorted_by_name() -> None:
    svg = write_svg(Layout(100, 50, ()), Scene("d", "vertical", {}))
    assert svg == (
        '<svg baseProfile="full" data-diagram-id="d" data-layout="vertical" '
        "font-family=\"'Source Sans Pro', 'Source Sans 3', 'Segoe UI', Arial, Helvetica, "
        'sans-serif" font-size="12" height="50" version="1.1" viewBox="0 0 100 50" '
        'width="100" xmlns="http://www.w3.org/2000/svg" '
        'xmlns:ev="http://www.w3.org/2001/xml-events" '
        'xmlns:xlink="http://www.w3.org/1999/xlink"><defs><marker id="arrow" '
        'markerHeight="7" markerUnits="userSpaceOnUse" markerWidth="10" orient="auto" '
        'refX="10" refY="3.5" viewBox="0 0 10 7"><polygon fill="#4a5568" '
        'points="0,0 10,3.5 0,7" /></marker></defs><g class="overlays" /></svg>')
