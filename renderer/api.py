"""``render()``: the whole pipeline from a diagram fixture to SVG text, read top-down.

The CLI, the render endpoint and batch export all call this one function; ``lay_out``
is its part before the SVG writer (what tests check geometry and text on).
"""
from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from layouts.base import LayoutError, LayoutOptions, LayoutStrategy
from layouts.geometry import Layout
from layouts.graph import LayoutGraph
from layouts.registry import LAYOUT_KEYS, UnknownLayoutKey, get_strategy
from renderer.contract import RenderInputError, UnknownLayoutError, culture_id
from renderer.culture import DEFAULT_CULTURE, Cultures
from renderer.detailed import detailed_graph
from renderer.entity_relationship import entity_graph
from renderer.flow import fit_lane_names, flow_graph, swimlane_graph
from renderer.graphic import fit_leaf_names, graphic_graph
from renderer.matrix import customer_matrix_graph, process_matrix_graph
from renderer.model import Diagram, parse_diagram
from renderer.scene import Scene
from renderer.svg import write_svg
from renderer.text import FontMetrics, load_font

__all__ = ["render", "lay_out", "RenderInputError", "UnknownLayoutError", "LAYOUT_KEYS"]

GraphBuilder = Callable[[Diagram, Cultures, FontMetrics, str], tuple[LayoutGraph, Scene]]

#: How each layout key turns a diagram into what its strategy lays out (every key of
#: LAYOUT_KEYS; tests/renderer/test_render.py checks the two agree).
BUILDERS: dict[str, GraphBuilder] = {
    "horizontal": flow_graph,
    "vertical": flow_graph,
    "horizontalSwimlane": swimlane_graph,
    "verticalSwimlane": swimlane_graph,
    "detailed": detailed_graph,
    "graphic": graphic_graph,
    "processMatrix": process_matrix_graph,
    "customerMatrix": customer_matrix_graph,
    "entityRelationship": entity_graph,
}


def render(fixture: Any, layout_key: str, culture: int | str = DEFAULT_CULTURE,
           options: LayoutOptions | None = None, font: FontMetrics | None = None, *,
           default_culture: int | str = DEFAULT_CULTURE) -> str:
    """SVG text of ``fixture`` (docs/contract.md, "Diagram fixture format") drawn with the
    ``layout_key`` strategy and labels in ``culture``, falling back to
    ``default_culture`` (the service passes its tenant's). Culture ids are integers or
    digit strings. Raises ``RenderInputError`` with a one-line message for anything in
    the input or request that cannot be drawn."""
    _strategy(layout_key)  # an unknown key is refused before the input is read
    cultures = Cultures(culture_id(culture, "culture"), culture_id(default_culture, "default culture"))
    with _collector_paused():
        _, scene, layout = lay_out(parse_diagram(fixture), layout_key, cultures, options or LayoutOptions(),
                                   font or load_font())
        return write_svg(layout, scene)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector paused for one render. A render makes hundreds of
    thousands of short-lived lists and tuples, freed as they go, whose count sets off
    collections that walk every object of the process (a full one 20 ms in a bare
    process, more in the service); the few cycles a render leaves are collected after
    it. Left alone when something else paused the collector: whoever paused it resumes it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def lay_out(diagram: Diagram, layout_key: str, cultures: Cultures, options: LayoutOptions,
            font: FontMetrics) -> tuple[LayoutGraph, Scene, Layout]:
    """The graph the ``layout_key`` builder made of ``diagram``, the scene with the text
    fitted to the drawn layout (lane names to their lanes' final length, graphic leaves'
    names to their final boxes), and the layout."""
    strategy = _strategy(layout_key)
    graph, scene = BUILDERS[layout_key](diagram, cultures, font, layout_key)
    try:
        layout = strategy.layout(graph, options)
    except LayoutError as error:
        raise RenderInputError(str(error)) from error
    scene = fit_lane_names(scene, layout, diagram, cultures, font, options.edge_spacing)
    return graph, fit_leaf_names(scene, layout, diagram, cultures, font), layout


def _strategy(layout_key: str) -> LayoutStrategy:
    try:
        return get_strategy(layout_key)
    except UnknownLayoutKey as error:
        raise UnknownLayoutError(str(error)) from None
