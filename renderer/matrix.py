"""Diagram → graph and scene of ``processMatrix`` and ``customerMatrix``.

Expects a parsed ``Diagram``. Guarantees: rows are ``relations.matrix_rows`` (node id =
element id, shape id = the element's first shape id, else its id); columns are the
elements linked to a row through the matrix's contexts that are of its kind (org units;
products), each once, by name then id, never a row element; ``Scene.cell_marks`` maps
(row element id, column element id) to the marks of the contexts that link them, in
the legend's order; ``Scene.legend`` explains every mark. Header texts are wrapped to
fixed widths and ellipsized, every row has the same height, so hundreds of rows stay
readable.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from renderer.culture import Cultures
from renderer.measure import FONT_SIZE, shape_label
from renderer.model import Diagram, Element
from renderer.relations import first_shape_ids, is_org_unit, is_product, matrix_rows, related
from renderer.scene import Scene, ShapeView
from renderer.symbols import LABEL_PADDING
from renderer.text import FontMetrics

ROW_HEADER_WIDTH = 240.0
ROW_LINES = 2
COLUMN_WIDTH = 96.0
COLUMN_LINES = 4
CELL_PADDING = 5.0


@dataclass(frozen=True, slots=True)
class MatrixKind:
    """Which columns a matrix has and how a cell shows each linking context:
    ``marks`` is (context, mark) in legend order; ``joiner`` separates the
    marks of one cell."""

    is_column: Callable[[Element], bool]
    marks: tuple[tuple[str, str], ...]
    joiner: str


PROCESS = MatrixKind(is_org_unit, (
    ("executedBy", "E"), ("responsible", "R"), ("contributes", "C"), ("informed", "I"),
), "")
CUSTOMER = MatrixKind(is_product, (
    ("hasInput", "In"), ("hasOutput", "Out"),
), "/")


def process_matrix_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
                         layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Processes by org units."""
    return matrix_graph(PROCESS, diagram, cultures, font, layout_key)


def customer_matrix_graph(diagram: Diagram, cultures: Cultures, font: FontMetrics,
                          layout_key: str) -> tuple[LayoutGraph, Scene]:
    """Processes by products."""
    return matrix_graph(CUSTOMER, diagram, cultures, font, layout_key)


def matrix_graph(kind: MatrixKind, diagram: Diagram, cultures: Cultures, font: FontMetrics,
                 layout_key: str) -> tuple[LayoutGraph, Scene]:
    rows = matrix_rows(diagram)
    row_ids = {row.id for row in rows}
    contexts = [context for context, _ in kind.marks]
    mark_of = dict(kind.marks)
    columns: dict[str, Element] = {}
    linked: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        for context, element in related(diagram, row, contexts):
            if kind.is_column(element) and element.id not in row_ids:
                columns.setdefault(element.id, element)
                linked.setdefault((row.id, element.id), []).append(context)
    ordered = sorted(columns.values(), key=lambda e: (shape_label(e, cultures).casefold(), e.id))
    line_height = font.line_height(FONT_SIZE)
    shape_ids = first_shape_ids(diagram)
    nodes: list[LayoutNode] = []
    views: dict[str, ShapeView] = {}
    for column in ordered:
        lines = _lines(font, shape_label(column, cultures), COLUMN_WIDTH, COLUMN_LINES)
        nodes.append(LayoutNode(column.id, column.type, COLUMN_WIDTH,
                                round(len(lines) * line_height + 2 * CELL_PADDING, 2), role="column"))
        views[column.id] = ShapeView(column.id, column.id, column.type, lines, role="column")
    row_height = round(ROW_LINES * line_height + 2 * CELL_PADDING, 2)
    for row in rows:
        lines = _lines(font, shape_label(row, cultures), ROW_HEADER_WIDTH, ROW_LINES)
        nodes.append(LayoutNode(row.id, row.type, ROW_HEADER_WIDTH, row_height, role="row"))
        views[row.id] = ShapeView(shape_ids.get(row.id, row.id), row.id, row.type, lines, role="row")
    marks = {key: kind.joiner.join(mark_of[c] for c in contexts if c in found) for key, found in linked.items()}
    legend = tuple((mark, context) for context, mark in kind.marks)
    scene = Scene(diagram.id, layout_key, views, cell_marks=marks, legend=legend, font_size=FONT_SIZE)
    return LayoutGraph(tuple(nodes), tuple(LayoutEdge(row, column) for row, column in linked)), scene


def _lines(font: FontMetrics, text: str, width: float, max_lines: int) -> tuple[str, ...]:
    """``text`` wrapped to the inside of a header ``width`` wide, at most ``max_lines``."""
    return tuple(font.wrap(text, width - 2 * (LABEL_PADDING + 2), FONT_SIZE, max_lines))
