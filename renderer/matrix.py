"""Diagram → graph and scene of ``processMatrix`` and ``customerMatrix``.

Expects a parsed ``Diagram``. Guarantees: rows are ``relations.matrix_rows`` (node id =
element id, shape id = the element's first shape id, else its id) in flow order
(``flow_order``), a row whose parent process is a row right under it, depth first, with
``LayoutNode.parent`` naming that parent (the layout indents it); columns are the
elements linked to a row through the matrix's contexts that are of its kind (org units;
products), each once, by name then id, never a row element; ``Scene.cell_marks`` maps
(row element id, column element id) to the marks of the contexts that link them, in
the legend's order; ``Scene.legend`` explains every mark with the context's display
name in the render's culture (``renderer.names``), marks being that name's initial in
the culture (E/R/C/I, A/V/W/I); a matrix without rows or without columns has instead
one legend line, without a mark, saying so and why. Header texts are wrapped (a column
grows up to ``COLUMN_WIDTHS[-1]`` before a word breaks) and ellipsized only when they
cannot fit; every row has the same height, so hundreds of rows stay readable.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.matrix import ROW_INDENT, row_depth
from renderer.culture import ENGLISH, GERMAN, Cultures
from renderer.measure import FONT_SIZE, fit_lines, label_culture, shape_label
from renderer.model import Diagram, Element
from renderer.names import relation_name
from renderer.relations import first_shape_ids, is_org_unit, is_product, matrix_rows, related
from renderer.scene import Scene, ShapeView
from renderer.symbols import LABEL_PADDING
from renderer.text import FontMetrics

ROW_HEADER_WIDTH = 240.0
ROW_LINES = 2
#: Widths a column may take, narrowest first: a column grows before a word breaks.
COLUMN_WIDTHS = (96.0, 128.0, 160.0)
COLUMN_LINES = 4
CELL_PADDING = 5.0


@dataclass(frozen=True, slots=True)
class MatrixKind:
    """Which columns a matrix has and how a cell shows each linking context:
    ``marks`` is (context, culture id → mark) in legend order, each mark the initial
    of the context's display name in that culture so that legend and cells agree;
    ``joiner`` separates the marks of one cell; ``no_columns`` says in each culture
    why a matrix whose rows link to nothing of its kind has no columns."""

    is_column: Callable[[Element], bool]
    marks: tuple[tuple[str, dict[int, str]], ...]
    joiner: str
    no_columns: dict[int, str]


def _marks(german: str, english: str) -> dict[int, str]:
    return {GERMAN: german, ENGLISH: english}


PROCESS = MatrixKind(is_org_unit, (
    ("executedBy", _marks("A", "E")), ("responsible", _marks("V", "R")),
    ("contributes", _marks("W", "C")), ("informed", _marks("I", "I")),
), "", _marks("Keine Organisationseinheit führt diese Prozesse aus, verantwortet sie, wirkt mit oder wird "
              "informiert: die Matrix hat keine Spalten.",
              "No org unit executes, is responsible for, contributes to or is informed of these processes: "
              "the matrix has no columns."))
CUSTOMER = MatrixKind(is_product, (
    ("hasInput", _marks("In", "In")), ("hasOutput", _marks("Out", "Out")),
), "/", _marks("Keine Produkte sind Input oder Output dieser Prozesse: die Matrix hat keine Spalten.",
               "No products are input or output of these processes: the matrix has no columns."))
#: What a matrix of a diagram without tasks or sub-processes says instead of rows.
NO_ROWS = _marks("Dieses Diagramm enthält keine Aufgaben oder Teilprozesse: die Matrix hat keine Zeilen.",
                 "This diagram holds no tasks or sub-processes: the matrix has no rows.")


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
    rows, parent_of = ordered_rows(diagram, matrix_rows(diagram))
    row_ids = {row.id for row in rows}
    contexts = [context for context, _ in kind.marks]
    mark_of = {context: cultures.pick(marks) or "" for context, marks in kind.marks}
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
        chosen, lines = fit_lines(shape_label(column, cultures), font, [_inside(w) for w in COLUMN_WIDTHS],
                                  COLUMN_LINES, label_culture(column, cultures))
        nodes.append(LayoutNode(column.id, column.type, COLUMN_WIDTHS[chosen],
                                round(len(lines) * line_height + 2 * CELL_PADDING, 2), role="column"))
        views[column.id] = ShapeView(column.id, column.id, column.type, lines, role="column")
    row_height = round(ROW_LINES * line_height + 2 * CELL_PADDING, 2)
    for row in rows:
        depth = row_depth(row.id, parent_of)
        lines = tuple(font.wrap(shape_label(row, cultures), _inside(ROW_HEADER_WIDTH - depth * ROW_INDENT),
                                FONT_SIZE, ROW_LINES, label_culture(row, cultures)))
        nodes.append(LayoutNode(row.id, row.type, ROW_HEADER_WIDTH, row_height, role="row",
                                parent=parent_of.get(row.id)))
        views[row.id] = ShapeView(shape_ids.get(row.id, row.id), row.id, row.type, lines, role="row")
    marks = {key: kind.joiner.join(mark_of[c] for c in contexts if c in found) for key, found in linked.items()}
    legend = tuple((mark_of[context], relation_name(context, cultures)) for context in contexts)
    if not rows:
        legend = (("", cultures.pick(NO_ROWS) or ""),)
    elif not columns:
        legend = (("", cultures.pick(kind.no_columns) or ""),)
    scene = Scene(diagram.id, layout_key, views, cell_marks=marks, legend=legend, font_size=FONT_SIZE)
    return LayoutGraph(tuple(nodes), tuple(LayoutEdge(row, column) for row, column in linked)), scene


def ordered_rows(diagram: Diagram, rows: list[Element]) -> tuple[list[Element], dict[str, str]]:
    """``rows`` depth first under their parent processes (a row listing another among its
    children is its parent), siblings in flow order (``flow_order``: the first shape of
    an element; elements without a shape after, in their given order), and each row's
    parent row id (a child listed twice, or one that would close a cycle of parents,
    keeps its first parent)."""
    rank = flow_order(diagram)
    given = {row.id: k for k, row in enumerate(rows)}
    parent_of: dict[str, str] = {}
    for row in rows:
        for child in row.children:
            if child in given and child not in parent_of and not _above(child, row.id, parent_of):
                parent_of[child] = row.id
    children: dict[str | None, list[Element]] = {}
    for row in rows:
        children.setdefault(parent_of.get(row.id), []).append(row)
    ordered: list[Element] = []
    stack = sorted(children.get(None, []), key=lambda r: (rank.get(r.id, len(rank)), given[r.id]), reverse=True)
    while stack:
        row = stack.pop()
        ordered.append(row)
        stack += sorted(children.get(row.id, []), key=lambda r: (rank.get(r.id, len(rank)), given[r.id]), reverse=True)
    return ordered, parent_of


def flow_order(diagram: Diagram) -> dict[str, int]:
    """Element id → the rank of its first shape in a topological order of the flow (ties,
    and the way out of a cycle, by shape index)."""
    successors: dict[int, list[int]] = {}
    waiting = {shape.index: len(set(shape.predecessors)) for shape in diagram.shapes}
    for shape in diagram.shapes:
        for predecessor in set(shape.predecessors):
            successors.setdefault(predecessor, []).append(shape.index)
    ready = [index for index, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[int] = []
    done: set[int] = set()
    while len(order) < len(waiting):
        if not ready:  # a cycle: enter it at its lowest index
            heapq.heappush(ready, min(index for index in waiting if index not in done))
        index = heapq.heappop(ready)
        if index in done:
            continue
        done.add(index)
        order.append(index)
        for successor in successors.get(index, ()):
            waiting[successor] -= 1
            if waiting[successor] == 0 and successor not in done:
                heapq.heappush(ready, successor)
    element_of = {shape.index: shape.element.id for shape in diagram.shapes}
    rank: dict[str, int] = {}
    for position, index in enumerate(order):
        rank.setdefault(element_of[index], position)
    return rank


def _above(ancestor: str, row_id: str, parent_of: dict[str, str]) -> bool:
    """Whether ``ancestor`` is ``row_id`` or one of its parents (a link that would
    close a cycle of parents)."""
    while row_id != ancestor:
        if row_id not in parent_of:
            return False
        row_id = parent_of[row_id]
    return True


def _inside(width: float) -> float:
    """The width a header ``width`` wide leaves its text."""
    return width - 2 * (LABEL_PADDING + 2)
