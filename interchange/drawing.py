"""Which writer draws a diagram: BPMN's notation for a BPMN model in a BPMN layout, our
own symbols for everything else (docs/interchange.md, "Notation in the SVG").

``render_any`` is ``renderer.api.render`` for every caller that may be handed a diagram
imported from BPMN (the render endpoint, ``elrepo render``, ``elrepo export``, the
workers); the renderer itself never imports ``interchange``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import renderer.api
from interchange import BpmnImport
from interchange.export import fixture_to_bpmn_with_refs
from interchange.kept import BPMN_TYPE
from interchange.model import BpmnModel
from interchange.notation import ShapeRef, notation_svg
from interchange.parsing import BpmnError, parse_bpmn
from interchange.positions import bpmn_positions
from interchange.reader import SCOPES, read_model
from layouts.base import LayoutOptions
from layouts.keys import BPMN_LAYOUTS
from renderer.contract import RenderInputError, culture_id
from renderer.culture import DEFAULT_CULTURE, LANGUAGE_NEUTRAL, Cultures
from renderer.model import parse_diagram
from renderer.text import FontMetrics, load_font

__all__ = ["draw_bpmn_import", "draw_bpmn_model", "is_bpmn_diagram", "render_any"]

#: The ``bpmnType`` of a diagram imported from BPMN (``interchange.kept``): the process
#: level's, or an expanded sub-process's own diagram.
BPMN_DIAGRAM_TYPES = frozenset(("process", "collaboration", *SCOPES))


def is_bpmn_diagram(fixture: Any) -> bool:
    """Whether ``fixture``'s diagram came from a BPMN file (it keeps its BPMN type)."""
    diagram = fixture.get("diagram") if isinstance(fixture, Mapping) else None
    attributes = diagram.get("attributes") if isinstance(diagram, Mapping) else None
    kept = attributes.get(BPMN_TYPE) if isinstance(attributes, Mapping) else None
    return isinstance(kept, Mapping) and kept.get(str(LANGUAGE_NEUTRAL)) in BPMN_DIAGRAM_TYPES


def render_any(fixture: Any, layout_key: str, culture: int | str = DEFAULT_CULTURE,
               options: LayoutOptions | None = None, font: FontMetrics | None = None, *,
               default_culture: int | str = DEFAULT_CULTURE) -> str:
    """``renderer.api.render``'s SVG, but a diagram imported from BPMN drawn in one of
    the BPMN layouts (``layouts.keys.BPMN_LAYOUTS``) in BPMN's notation: the fixture
    written back as BPMN (``fixture_to_bpmn_xml``), laid out as ``elrepo layout`` lays it
    out, its overlays naming the fixture's element and shape ids. Raises
    ``RenderInputError`` with one line for what cannot be drawn."""
    if layout_key not in BPMN_LAYOUTS or not is_bpmn_diagram(fixture):
        # looked up when called: whoever replaces the engine's render (a test) replaces it here too
        return renderer.api.render(fixture, layout_key, culture, options, font, default_culture=default_culture)
    cultures = Cultures(culture_id(culture, "culture"), culture_id(default_culture, "default culture"))
    parse_diagram(fixture)  # what the engine refuses is refused here the same way
    try:
        xml, refs = fixture_to_bpmn_with_refs(fixture, cultures.requested, cultures.default)
        parsed = parse_bpmn(xml)
        model = read_model(parsed.tree, parsed.warnings)
        return draw_bpmn_model(model, layout_key, cultures, {key: ShapeRef(*ids) for key, ids in refs.items()},
                               str(fixture["diagram"].get("id") or model.plane_element), options, font)
    except BpmnError as error:
        raise RenderInputError(f"cannot draw the BPMN diagram: {error}") from None


def draw_bpmn_model(model: BpmnModel, layout_key: str, cultures: Cultures, refs: Mapping[str, ShapeRef],
                    diagram_id: str, options: LayoutOptions | None = None, font: FontMetrics | None = None) -> str:
    """``model`` laid out by ``layout_key`` and drawn in BPMN's notation."""
    font = font or load_font()
    geometry = bpmn_positions(model, layout_key, font, options)
    return notation_svg(model, geometry, layout_key, cultures, font, refs, diagram_id)


def draw_bpmn_import(imported: BpmnImport, layout_key: str, culture: int,
                     options: LayoutOptions | None = None) -> str:
    """A BPMN file read (``read_bpmn``) drawn in BPMN's notation, without the round trip
    through a fixture; overlays name BPMN ids as element ids and the shape ids the
    file's fixture gives its shapes (``shape-<index>``)."""
    refs = {bpmn_id: ShapeRef(bpmn_id, f"shape-{index}") for bpmn_id, index in imported.shape_index.items()}
    return draw_bpmn_model(imported.model, layout_key, Cultures(culture, DEFAULT_CULTURE), refs,
                           imported.model.plane_element, options)
