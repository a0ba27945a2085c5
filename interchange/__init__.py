"""BPMN 2.0 interchange: read BPMN XML as our diagram fixture, write it back laid out by
our engine with complete diagram interchange (docs/contract.md, "Diagram fixture format").

``bpmn_to_fixture`` feeds ``renderer.api.render``; ``layout_bpmn`` is ``elrepo layout``;
``diagram_to_bpmn`` writes a stored diagram's fixture back as BPMN (``elrepo export
--format bpmn`` and the HTTP BPMN export).
Every problem with the input is a ``BpmnError`` with a one-line message.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from interchange.export import fixture_to_bpmn_xml
from interchange.fixture import lane_keys, scope_fixture, scope_nodes
from interchange.model import BpmnModel
from interchange.parsing import MAX_BPMN_BYTES, BpmnError, parse_bpmn
from interchange.positions import BpmnGeometry, bpmn_positions
from interchange.reader import read_model
from interchange.writer import write_bpmn
from layouts.base import LayoutOptions
from layouts.keys import BPMN_LAYOUT_KEYS
from renderer.text import FontMetrics

__all__ = ["BPMN_LAYOUT_KEYS", "MAX_BPMN_BYTES", "BpmnError", "BpmnGeometry", "BpmnImport",
           "BpmnModel", "bpmn_positions", "bpmn_to_fixture", "diagram_to_bpmn", "layout_bpmn",
           "layout_bpmn_read", "read_bpmn"]


@dataclass(frozen=True, slots=True)
class BpmnImport:
    """A BPMN file read: its model, the fixture of its process level and, for each BPMN
    id drawn there, the index of its shape in ``fixture['values']``."""

    model: BpmnModel
    fixture: dict[str, Any]
    shape_index: dict[str, int]


def read_bpmn(xml_bytes: bytes) -> BpmnImport:
    parsed = parse_bpmn(xml_bytes)
    model = read_model(parsed.tree, parsed.warnings)
    top = scope_fixture(model, scope_nodes(model, None), lane_keys(model))
    return BpmnImport(model, top.fixture, top.shape_index)


def bpmn_to_fixture(xml_bytes: bytes) -> dict[str, Any]:
    """The diagram fixture of a BPMN file's process level (pools and lanes as org units)."""
    return read_bpmn(xml_bytes).fixture


def layout_bpmn(xml_bytes: bytes, layout_key: str = "horizontal", *, font: FontMetrics | None = None,
                options: LayoutOptions | None = None) -> bytes:
    """The same BPMN file with its diagram interchange replaced by our engine's layout."""
    return layout_bpmn_read(xml_bytes, layout_key, font=font, options=options)[0]


def layout_bpmn_read(xml_bytes: bytes, layout_key: str = "horizontal", *, font: FontMetrics | None = None,
                     options: LayoutOptions | None = None) -> tuple[bytes, BpmnModel]:
    """``layout_bpmn`` and the model it laid out (its ``warnings`` for the command line)."""
    parsed = parse_bpmn(xml_bytes)
    model = read_model(parsed.tree, parsed.warnings)
    return write_bpmn(parsed.tree, model, bpmn_positions(model, layout_key, font, options)), model


def diagram_to_bpmn(fixture: dict[str, Any], layout_key: str, culture: int, default_culture: int) -> bytes:
    """A diagram fixture as BPMN 2.0 XML laid out by ``layout_key``: the ids, tags and
    flows kept at import where there are some (``interchange.kept``), names in ``culture``."""
    return layout_bpmn(fixture_to_bpmn_xml(fixture, culture, default_culture), layout_key)
