"""What each node looks like: BPMN-like symbol geometry and the palette, without XML.

Expects a node's laid-out box and its ``ShapeView``; guarantees a ``Symbol``: the parts
to draw (all inside the box), the area inside the symbol where its label lines go and
how they are aligned there. Keeping this free of XML lets the geometry be tested
as numbers and keeps the XML writing in ``renderer.svg``.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from layouts.geometry import Box, Point
from layouts.graphic import CHEVRON_TIP
from renderer.kinds import KINDS
from renderer.scene import ShapeView

__all__ = [
    "LABEL_PADDING",
    "Circle",
    "Note",
    "Part",
    "Polygon",
    "Rect",
    "Stroke",
    "Style",
    "Symbol",
    "TEXT_COLOR",
    "MUTED_TEXT_COLOR",
    "SATELLITE_SYMBOLS",
    "SHAPE_SYMBOLS",
    "container_header_height",
    "symbol_for",
]

TEXT_COLOR = "#1a202c"
MUTED_TEXT_COLOR = "#4a5568"
LABEL_PADDING = 4.0
CORNER_RADIUS = 6.0
PLUS_MARKER_SIZE = 12.0


@dataclass(frozen=True, slots=True)
class Style:
    """Fill and outline of a closed part."""

    fill: str
    stroke: str
    stroke_width: float


@dataclass(frozen=True, slots=True)
class Rect:
    box: Box
    style: Style
    rx: float = 0.0


@dataclass(frozen=True, slots=True)
class Circle:
    cx: float
    cy: float
    r: float
    style: Style


@dataclass(frozen=True, slots=True)
class Polygon:
    points: tuple[Point, ...]
    style: Style


@dataclass(frozen=True, slots=True)
class Stroke:
    """An open polyline (gateway marks, the sub-process [+]); never filled."""

    points: tuple[Point, ...]
    color: str
    width: float


Part = Rect | Circle | Polygon | Stroke


@dataclass(frozen=True, slots=True)
class Note:
    """A small italic caption centred in ``box`` (the type name of a type we have no
    symbol for)."""

    text: str
    box: Box


@dataclass(frozen=True, slots=True)
class Symbol:
    """``kind`` names the symbol (it becomes the CSS class ``symbol-<kind>``, so it is
    always one of our own words, never user data). ``label_area`` is where the label
    lines go when the node has no outside label box; ``align`` is ``middle`` (centred),
    ``start`` (top-left, for containers) or ``left`` (left, centred up and down: matrix
    row headers, whose indent shows only so)."""

    kind: str
    parts: tuple[Part, ...]
    label_area: Box
    align: str = "middle"
    note: Note | None = None


# Restrained palette: light fills, one darker stroke per family.
_TASK = Style("#f4f8fd", "#2c4a6e", 1.5)
_START = Style("#f1f8f3", "#2f7d4f", 1.5)
_INTERMEDIATE = Style("#fdf8ec", "#b07a1a", 1.5)
_END = Style("#fcf1f1", "#b03a3a", 3.5)
_GATEWAY = Style("#fdf6e3", "#b07a1a", 1.5)
_CONDITION = Style("#f5f2fb", "#5b4a8a", 1.5)
_INTERFACE = Style("#f5f6f8", "#4a5568", 1.5)
_CONTAINER = Style("#fafbfc", "#8a94a6", 1.0)
_CONTAINER_HEADER = Style("#e8edf3", "#8a94a6", 1.0)
_CHEVRON = Style("#e3ecf7", "#2c4a6e", 1.5)
_ENTITY = Style("#ffffff", "#2c4a6e", 1.5)
_SUBJECT = Style("#eaf1fa", "#2c4a6e", 2.5)
_SATELLITE = Style("#f7f7f8", "#8a94a6", 1.0)
_HEADER = Style("#eef1f5", "#8a94a6", 1.0)
# Satellites of ``detailed``: one muted colour per kind, apart from the flow's colours.
_DATA = Style("#f0f8f3", "#3d7a57", 1.0)
_ORG_UNIT = Style("#fbf1f6", "#8a3d6b", 1.0)
_SYSTEM = Style("#eef4fa", "#2f5f8f", 1.0)
_DOCUMENT = Style("#fcf7ee", "#8a6a2f", 1.0)
#: Depth of a document's wavy base and slant of an input/output's sides.
WAVE_DEPTH = 5.0
DATA_SLANT = 9.0
SYSTEM_BAR_INSET = 6.0
WAVE_STEPS = 16
_GENERIC = Style("#ffffff", "#4a5568", 1.0)
GATEWAY_MARK_WIDTH = 2.5


def _inset(box: Box, by: float) -> Box:
    """``box`` shrunk by ``by`` on every side, never to a negative size."""
    w = max(box.w - 2 * by, 0.0)
    h = max(box.h - 2 * by, 0.0)
    return Box(box.cx - w / 2, box.cy - h / 2, w, h)


def _radius(box: Box) -> float:
    """Corner radius that stays pleasant on small boxes."""
    return min(CORNER_RADIUS, box.w / 4, box.h / 4)


def _rounded(kind: str, box: Box, style: Style) -> Symbol:
    return Symbol(kind, (Rect(box, style, _radius(box)),), _inset(box, LABEL_PADDING))


def _sub_process(box: Box) -> Symbol:
    """Rounded box with the collapsed-sub-process [+] at the bottom centre; the label
    area stops above the marker so text never runs over it."""
    size = min(PLUS_MARKER_SIZE, box.w / 3, box.h / 3)
    marker = Box(box.cx - size / 2, box.bottom - size - 2, size, size)
    arm = size * 0.3
    vertical = ((marker.cx, marker.cy - arm), (marker.cx, marker.cy + arm))
    horizontal = ((marker.cx - arm, marker.cy), (marker.cx + arm, marker.cy))
    area = _inset(Box(box.x, box.y, box.w, max(marker.y - box.y, 0.0)), LABEL_PADDING)
    parts = (Rect(box, _TASK, _radius(box)), Rect(marker, Style("#ffffff", _TASK.stroke, 1.0)),
             Stroke(vertical, _TASK.stroke, 1.2), Stroke(horizontal, _TASK.stroke, 1.2))
    return Symbol("subprocess", parts, area)


def _circle_in(box: Box, style: Style) -> Circle:
    """The largest circle centred in ``box`` whose stroke stays inside it."""
    r = max(min(box.w, box.h) / 2 - style.stroke_width / 2, 0.0)
    return Circle(box.cx, box.cy, r, style)


def _event(kind: str, box: Box, style: Style, double: bool = False) -> Symbol:
    """Circle (a second, inner one for intermediate events); a label that stays inside
    goes in the square inscribed in the circle."""
    outer = _circle_in(box, style)
    parts: tuple[Part, ...] = (outer,)
    if double:
        ring = Style("none", style.stroke, 1.0)
        parts = (outer, Circle(outer.cx, outer.cy, max(outer.r - 3.0, 0.0), ring))
    side = outer.r * 2 ** 0.5
    return Symbol(kind, parts, Box(box.cx - side / 2, box.cy - side / 2, side, side))


def _diamond(box: Box) -> Polygon:
    corners = ((box.cx, box.y), (box.right, box.cy), (box.cx, box.bottom), (box.x, box.cy))
    return Polygon(corners, _GATEWAY)


def _gateway(kind: str, box: Box, cross: bool) -> Symbol:
    """Diamond with an × (exclusive) or a + (parallel) drawn in its middle."""
    arm = min(box.w, box.h) * 0.18
    if cross:
        a = ((box.cx - arm, box.cy - arm), (box.cx + arm, box.cy + arm))
        b = ((box.cx - arm, box.cy + arm), (box.cx + arm, box.cy - arm))
    else:
        a = ((box.cx, box.cy - arm), (box.cx, box.cy + arm))
        b = ((box.cx - arm, box.cy), (box.cx + arm, box.cy))
    marks = (Stroke(a, _GATEWAY.stroke, GATEWAY_MARK_WIDTH),
             Stroke(b, _GATEWAY.stroke, GATEWAY_MARK_WIDTH))
    inscribed = Box(box.cx - box.w / 4, box.cy - box.h / 4, box.w / 2, box.h / 2)
    return Symbol(kind, (_diamond(box), *marks), inscribed)


def _condition(box: Box) -> Symbol:
    """A flat hexagon: pointed left and right sides, flat top and bottom. It reads as a
    decision like a gateway but cannot be mistaken for the gateway diamonds."""
    tip = min(box.h / 2, box.w / 4)
    points = ((box.x + tip, box.y), (box.right - tip, box.y), (box.right, box.cy),
              (box.right - tip, box.bottom), (box.x + tip, box.bottom), (box.x, box.cy))
    area = _inset(Box(box.x + tip, box.y, box.w - 2 * tip, box.h), LABEL_PADDING)
    return Symbol("condition", (Polygon(points, _CONDITION),), area)


def _interface(box: Box) -> Symbol:
    """Arrow-shaped pentagon: a rectangle whose right side comes to a point, the usual
    sign for 'continues in another process'."""
    tip = min(box.h / 2, box.w / 4)
    points = ((box.x, box.y), (box.right - tip, box.y), (box.right, box.cy),
              (box.right - tip, box.bottom), (box.x, box.bottom))
    area = _inset(Box(box.x, box.y, box.w - tip, box.h), LABEL_PADDING)
    return Symbol("interface", (Polygon(points, _INTERFACE),), area)


def container_header_height(lines: int, line_height: float) -> float:
    """Height of a container's header strip for ``lines`` name lines; builders size
    containers with it so the name fits the strip drawn here."""
    return max(lines, 1) * line_height + 2 * LABEL_PADDING


def _container(box: Box, lines: int, line_height: float) -> Symbol:
    """A frame with a header strip tall enough for the name lines; name at the
    top-left."""
    header = Box(box.x, box.y, box.w, min(box.h, container_header_height(lines, line_height)))
    parts = (Rect(box, _CONTAINER), Rect(header, _CONTAINER_HEADER))
    return Symbol("container", parts, _inset(header, LABEL_PADDING), align="start")


def _chevron(box: Box, lines: int, line_height: float) -> Symbol:
    """A value-chain arrow: notched on the left, pointed on the right, as deep as
    ``layouts.graphic.CHEVRON_TIP`` (the layout keeps what it lists clear of both);
    the name in a strip at the top of the body."""
    tip = min(CHEVRON_TIP, box.w / 4, box.h / 2)
    points = ((box.x, box.y), (box.right - tip, box.y), (box.right, box.cy), (box.right - tip, box.bottom),
              (box.x, box.bottom), (box.x + tip, box.cy))
    strip = Box(box.x + tip, box.y, box.w - 2 * tip, min(box.h, container_header_height(lines, line_height)))
    return Symbol("chevron", (Polygon(points, _CHEVRON),), _inset(strip, LABEL_PADDING))


def _input_output(box: Box) -> Symbol:
    """A parallelogram, the usual sign for data flowing in or out."""
    slant = min(DATA_SLANT, box.w / 6, box.h / 2)
    points = ((box.x + slant, box.y), (box.right, box.y), (box.right - slant, box.bottom), (box.x, box.bottom))
    area = _inset(Box(box.x + slant, box.y, box.w - 2 * slant, box.h), LABEL_PADDING)
    return Symbol("input-output", (Polygon(points, _DATA),), area)


def _org_unit(box: Box) -> Symbol:
    """A pill with an upright line across its left end: the org-unit oval of process
    charts, drawn with straight sides so two lines of text fit."""
    radius = box.h / 2
    across = min(radius * 0.6, box.w / 4)
    # where the upright line meets the left half-circle
    reach = (radius ** 2 - (radius - across) ** 2) ** 0.5
    line = ((box.x + across, box.cy - reach), (box.x + across, box.cy + reach))
    area = _inset(Box(box.x + across, box.y, box.w - across - radius / 2, box.h), LABEL_PADDING)
    return Symbol("org-unit", (Rect(box, _ORG_UNIT, radius), Stroke(line, _ORG_UNIT.stroke, _ORG_UNIT.stroke_width)),
                  area)


def _system(box: Box) -> Symbol:
    """A box with an upright bar inside each end, the sign of a ready-made (IT) process."""
    inset = min(SYSTEM_BAR_INSET, box.w / 6)
    bars = tuple(Stroke(((x, box.y), (x, box.bottom)), _SYSTEM.stroke, _SYSTEM.stroke_width)
                 for x in (box.x + inset, box.right - inset))
    area = _inset(Box(box.x + inset, box.y, box.w - 2 * inset, box.h), LABEL_PADDING)
    return Symbol("system", (Rect(box, _SYSTEM), *bars), area)


def _document(box: Box) -> Symbol:
    """A sheet whose base is one wave, down on the left and up on the right."""
    depth = min(WAVE_DEPTH, box.h / 4)
    base = box.bottom - depth
    wave = tuple((box.right - box.w * step / WAVE_STEPS,
                  base + depth * math.sin(2 * math.pi * step / WAVE_STEPS))
                 for step in range(WAVE_STEPS + 1))
    points = ((box.x, box.y), (box.right, box.y), *wave)
    area = _inset(Box(box.x, box.y, box.w, box.h - 2 * depth), LABEL_PADDING)
    return Symbol("document", (Polygon(points, _DOCUMENT),), area)


#: Satellite roles (``detailed``) → their symbol.
SATELLITE_SYMBOLS: dict[str, Callable[[Box], Symbol]] = {
    "satellite-data": _input_output,
    "satellite-orgUnit": _org_unit,
    "satellite-system": _system,
    "satellite-document": _document,
}


def _generic(view: ShapeView, box: Box, font_size: float) -> Symbol:
    """Plain rectangle for types without a symbol; the type name is shown as a note at
    the top so the reader still learns what the node is, the label goes below it."""
    area = _inset(box, LABEL_PADDING)
    note_h = min(font_size, area.h)
    note = Note(view.type, Box(area.x, area.y, area.w, note_h))
    below = Box(area.x, area.y + note_h, area.w, area.h - note_h)
    return Symbol("generic", (Rect(box, _GENERIC),), below, note=note)


#: The symbols of diagram shapes by name (``Kind.symbol``, ``renderer/kinds.py``); each
#: symbol's ``kind`` is that name.
SHAPE_SYMBOLS: dict[str, Callable[[Box], Symbol]] = {
    "task": lambda box: _rounded("task", box, _TASK),
    "subprocess": _sub_process,
    "start": lambda box: _event("start", box, _START),
    "intermediate": lambda box: _event("intermediate", box, _INTERMEDIATE, double=True),
    "end": lambda box: _event("end", box, _END),
    "xor": lambda box: _gateway("xor", box, cross=True),
    "and": lambda box: _gateway("and", box, cross=False),
    "condition": _condition,
    "interface": _interface,
}

_BY_ROLE: dict[str, Callable[[Box], Symbol]] = {
    "leaf": lambda box: _rounded("leaf", box, _TASK),
    "entity": lambda box: _rounded("entity", box, _ENTITY),
    "subject": lambda box: _rounded("subject", box, _SUBJECT),
    "satellite": lambda box: _rounded("satellite", box, _SATELLITE),
    **SATELLITE_SYMBOLS,
    "row": lambda box: Symbol("row", (Rect(box, _HEADER),), _inset(box, LABEL_PADDING), align="left"),
    "column": lambda box: Symbol("column", (Rect(box, _HEADER),), _inset(box, LABEL_PADDING)),
}


def symbol_for(view: ShapeView, box: Box, line_height: float, font_size: float) -> Symbol:
    """The symbol of one node: by role first (graphic, matrix, satellite and entity
    nodes stand for elements, whatever their type), then by the symbol of the shape's
    element kind (``renderer.kinds``), else a generic box."""
    if view.role == "container":
        return _container(box, len(view.lines), line_height)
    if view.role == "chevron":
        return _chevron(box, len(view.lines), line_height)
    by_role = _BY_ROLE.get(view.role)
    if by_role is not None:
        return by_role(box)
    kind = KINDS.get(view.type)
    by_kind = SHAPE_SYMBOLS.get(kind.symbol) if kind is not None and kind.symbol is not None else None
    if by_kind is not None:
        return by_kind(box)
    return _generic(view, box, font_size)
