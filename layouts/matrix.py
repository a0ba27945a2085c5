"""``processMatrix`` and ``customerMatrix``: rows by columns, a cell at every crossing.

Expects nodes of role ``row`` (``height`` is the row's height, ``width`` the width its
header needs) and ``column`` (``width`` is the column's width, ``height`` the height its
header needs), each id being the element id a cell names; edges (row id → column id)
name the linked cells; other nodes and edges are ignored.

Guarantees: row headers stack down the left in graph order, all ending where the cells
begin; a row whose ``parent`` is a row is indented ``ROW_INDENT`` per parent above it
(its header starts further right and is that much narrower, so the hierarchy reads as
an outline), the widest row header setting the column of headers;
column headers run along the top in graph order, all as tall as the tallest; one
``Cell(row id, column id)`` per crossing, exactly as wide as its column and as tall as
its row; headers and cells tile the grid without overlapping (neighbours share an
edge). A matrix without columns is its row headers; without rows, its column headers.

Bounded size: past ``Budgets.matrix_cells`` crossings (5,000 processes by 2,500 org units would
be 12.5 million cells, gigabytes of SVG) only the linked cells are laid out, so the
cells never outnumber the links.
"""
from __future__ import annotations

from dataclasses import dataclass

from layouts.base import LayoutOptions
from layouts.geometry import Box, Cell, Layout, NodeBox
from layouts.graph import LayoutGraph

ROW_INDENT = 14.0


@dataclass(frozen=True, slots=True)
class MatrixLayout:
    key: str

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        rows = [node for node in graph.nodes if node.role == "row"]
        parent_of = {row.id: row.parent for row in rows if row.parent is not None}
        columns = [node for node in graph.nodes if node.role == "column"]
        header_width = max((row.width for row in rows), default=0.0)
        header_height = max((column.height for column in columns), default=0.0)
        left = options.margin
        top = options.margin
        nodes: list[NodeBox] = []
        column_x: list[float] = []
        x = left + header_width
        for column in columns:
            column_x.append(x)
            nodes.append(NodeBox(column.id, _box(x, top, column.width, header_height)))
            x += column.width
        cells: list[Cell] = []
        every = range(len(columns))
        cells_of: dict[str, list[int]] | None = None  # row id → indices of its linked columns
        if len(rows) * len(columns) > options.budgets.matrix_cells:
            index = {column.id: k for k, column in enumerate(columns)}
            cells_of = {}
            for edge in graph.edges:
                if edge.target in index:
                    cells_of.setdefault(edge.source, []).append(index[edge.target])
        y = top + header_height
        for row in rows:
            indent = row_depth(row.id, parent_of) * ROW_INDENT
            nodes.append(NodeBox(row.id, _box(left + indent, y, header_width - indent, row.height)))
            for k in every if cells_of is None else sorted(set(cells_of.get(row.id, ()))):
                cells.append(Cell(row.id, columns[k].id, _box(column_x[k], y, columns[k].width, row.height)))
            y += row.height
        if not nodes:
            return Layout(2 * options.margin, 2 * options.margin, ())
        return Layout(round(x + options.margin, 2), round(y + options.margin, 2), tuple(nodes), cells=tuple(cells))


def row_depth(row_id: str, parent_of: dict[str, str]) -> int:
    """How many rows are above this one as parents (a cycle of parents counts once)."""
    depth, seen = 0, {row_id}
    while (parent := parent_of.get(row_id)) is not None and parent not in seen:
        seen.add(parent)
        row_id = parent
        depth += 1
    return depth


def _box(x: float, y: float, w: float, h: float) -> Box:
    return Box(round(x, 2), round(y, 2), round(w, 2), round(h, 2))


PROCESS_MATRIX = MatrixLayout("processMatrix")
CUSTOMER_MATRIX = MatrixLayout("customerMatrix")
