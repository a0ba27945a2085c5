"""``graphic``: an element hierarchy as a process house, or as nested boxes.

Expects nodes each naming its ``parent`` (None for a root; parents form a forest, a
``parent`` naming an unknown node makes that node a root). Roles: ``container`` (an
element with children: ``width`` is the least width its name needs, ``height`` the
height of its header strip), ``leaf`` (a fixed box), and for a process house ``band``
and ``chain`` (categories, sized like containers) and ``chevron`` (a core process:
``width`` the least its name needs beside both arrow tips, ``height`` its name strip).
Edges are ignored.

A process house is one root whose children are bands and exactly one chain: the bands
before the chain in graph order are stacked above it, the others below, all as wide as
the house. The chain's chevrons stand in one row, as tall as the tallest and widened
alike to fill the row, while that row is no wider than ``CHAIN_MAX_WIDTH`` (or than the
house is anyway for its bands); a longer chain wraps into the fewest rows that fit, read
left to right and top to bottom, their lengths differing by at most one chevron (the
longer rows first), every chevron as wide as the widest widened to fill the longest
row, so the chevrons line up in columns, each row as tall as its tallest. Everything
under a chevron is listed inside it, one box a line, indented by depth. A band's
children are wrapped into the fewest rows that fit the house's width, balanced so that
no row is left half empty, and widened to fill their row. Any other hierarchy is
nested boxes: children (and roots) wrapped into rows near ``aspect``
(``layouts.packing``), containers of a row stretched to its height and sharing the
width left at its end, so frames line up.

Guarantees: every node gets one box, its whole area (a container's header strip is its
top ``height``), at least its size (leaves of nested boxes exactly their size); a child's
box lies inside its parent's box, below the parent's header strip, with ``padding``
all round (inside a chevron: clear of both arrow tips, and ``padding`` below the
chain's name strip, so a two-line title never touches its first box); siblings never overlap (``gap``
apart). Parents come before their children in ``Layout.nodes``, so overlays written in
that order put every child above its parent. Deterministic; iterative, so deep
hierarchies cannot exhaust the stack.
"""
from __future__ import annotations

from dataclasses import dataclass

from layouts.base import LayoutOptions
from layouts.geometry import Box, Layout, NodeBox
from layouts.graph import LayoutGraph, LayoutNode
from layouts.packing import Packing, balanced_rows, pack_rows

#: How far a chevron's point reaches beyond its body (and its notch into it).
CHEVRON_TIP = 16.0
#: The widest one row of the value chain may be before the chain wraps: with the house's
#: frames and margins (88 units) the drawing stays within 1,088 units, narrower than an
#: A4 landscape page at 96 dpi (1,123).
CHAIN_MAX_WIDTH = 1000.0
Size = tuple[float, float]


@dataclass(frozen=True, slots=True)
class GraphicLayout:
    key: str = "graphic"
    aspect: float = 4 / 3
    padding: float = 12.0
    gap: float = 14.0
    indent: float = 14.0

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        children = _forest(graph)
        order = _preorder(children)
        sizes: dict[str, Size] = {}
        packings: dict[str, Packing] = {}
        for node in reversed(order):
            kids = children.get(node.id, [])
            if not kids:
                sizes[node.id] = (node.width, node.height + (self.padding if node.role != "leaf" else 0.0))
                continue
            packings[node.id] = packed = self._pack(kids, sizes, options)
            sizes[node.id] = (max(node.width, packed.width + 2 * self.padding),
                              node.height + packed.height + 2 * self.padding)
        roots = children.get(None, [])
        boxes: dict[str, Box] = {}
        if len(roots) == 1 and _is_house(roots[0], children):
            width, height = self._house(roots[0], children, sizes, boxes, options.margin)
        else:
            top = self._pack(roots, sizes, options)
            self._place(roots, top, options.margin, options.margin, top.width, sizes, boxes)
            width, height = top.width, top.height
        for node in order:
            kids = children.get(node.id, [])
            if node.id in packings and kids[0].id not in boxes:
                box = boxes[node.id]
                self._place(kids, packings[node.id], box.x + self.padding, box.y + node.height + self.padding,
                            box.w - 2 * self.padding, sizes, boxes)
        return Layout(round(width + 2 * options.margin, 2), round(height + 2 * options.margin, 2),
                      tuple(NodeBox(node.id, boxes[node.id]) for node in order))

    def _pack(self, nodes: list[LayoutNode], sizes: dict[str, Size], options: LayoutOptions) -> Packing:
        return pack_rows([sizes[node.id] for node in nodes], self.gap, self.aspect, options.budgets)

    def _place(self, nodes: list[LayoutNode], packing: Packing, x: float, y: float, width: float,
               sizes: dict[str, Size], boxes: dict[str, Box]) -> None:
        """Boxes of ``nodes`` at their packed positions from (x, y) in a block ``width``
        wide; the containers of a row take the row's height and share the room left at
        the row's end, so frames line up on both sides."""
        for row, row_height in zip(packing.rows, packing.row_heights):
            containers = [index for index in row if nodes[index].role != "leaf"]
            last = row[-1]
            room = width - (packing.positions[last][0] + sizes[nodes[last].id][0])
            grow = room / len(containers) if containers and room > 0 else 0.0
            shift = 0.0
            for index in row:
                node = nodes[index]
                w, h = sizes[node.id]
                px, py = packing.positions[index]
                left = x + px + shift
                if node.role != "leaf":
                    w, h = w + grow, max(h, row_height)
                    shift += grow
                boxes[node.id] = Box(round(left, 2), round(y + py, 2), round(w, 2), round(h, 2))

    # ----------------------------------------------------------------------- house
    def _house(self, root: LayoutNode, children: dict[str | None, list[LayoutNode]], sizes: dict[str, Size],
               boxes: dict[str, Box], margin: float) -> tuple[float, float]:
        """Bands above and below the chain of chevrons; returns the house's extent."""
        parts = children[root.id]
        chain = next(part for part in parts if part.role == "chain")
        chevrons = children.get(chain.id, [])
        lists = {chevron.id: _listed(chevron, children) for chevron in chevrons}
        header = max((chevron.height for chevron in chevrons), default=0.0)
        chevron_sizes = [self._chevron_size(chevron, header, lists[chevron.id]) for chevron in chevrons]
        widest_child = max((sizes[kid.id][0] for part in parts if part.role == "band"
                            for kid in children.get(part.id, [])), default=0.0)
        needed = max(widest_child, root.width - 4 * self.padding,
                     *(part.width - 2 * self.padding for part in parts))
        rows = self._chain_rows([w for w, _ in chevron_sizes], max(CHAIN_MAX_WIDTH, needed))
        if len(rows) > 1:  # equal chevrons, so that the rows line up in columns
            widest = max(w for w, _ in chevron_sizes)
            chevron_sizes = [(widest, h) for _, h in chevron_sizes]
        inner = max(needed, max((self._row_width(row, chevron_sizes) for row in rows), default=0.0))
        house_width = max(root.width, inner + 4 * self.padding)
        x = margin + 2 * self.padding
        y = margin + root.height + self.padding
        for part in parts:
            top = y
            y += part.height + self.padding
            if part is chain:
                y = self._chain(chevrons, rows, chevron_sizes, header, lists, x, y, inner, boxes)
            else:
                y = self._band(children.get(part.id, []), sizes, x, y, inner, boxes)
            boxes[part.id] = Box(round(x - self.padding, 2), round(top, 2), round(inner + 2 * self.padding, 2),
                                 round(y + self.padding - top, 2))
            y += self.padding + self.gap
        height = y - self.gap + self.padding - margin
        boxes[root.id] = Box(margin, margin, round(house_width, 2), round(height, 2))
        return house_width, height

    def _chevron_size(self, chevron: LayoutNode, header: float, listed: list[tuple[LayoutNode, int]]) -> Size:
        """A chevron wide enough for its name and its list, tall enough for the chain's
        name strip (``header``) and its list."""
        list_width = max((node.width + depth * self.indent for node, depth in listed), default=0.0)
        list_height = sum(node.height for node, _ in listed) + self.gap * max(len(listed) - 1, 0)
        body = 2 * CHEVRON_TIP + 2 * self.padding
        height = header + (list_height + 2 * self.padding if listed else self.padding)
        return max(chevron.width, list_width + body), height

    def _chain_rows(self, widths: list[float], limit: float) -> list[list[int]]:
        """Indices of the chevrons per row: one row when they fit ``limit`` side by side,
        else the fewest rows of chevrons as wide as the widest that fit, their lengths
        differing by at most one, the longer rows first."""
        count = len(widths)
        if sum(widths) + self.gap * max(count - 1, 0) <= limit:
            return [list(range(count))]
        per_row = max(1, int((limit + self.gap) // (max(widths) + self.gap)))
        row_count = -(-count // per_row)
        rows: list[list[int]] = []
        start = 0
        for row in range(row_count):
            length = count // row_count + (1 if row < count % row_count else 0)
            rows.append(list(range(start, start + length)))
            start += length
        return rows

    def _row_width(self, row: list[int], chevron_sizes: list[Size]) -> float:
        return sum(chevron_sizes[index][0] for index in row) + self.gap * max(len(row) - 1, 0)

    def _chain(self, chevrons: list[LayoutNode], rows: list[list[int]], chevron_sizes: list[Size],
               header: float, lists: dict[str, list[tuple[LayoutNode, int]]], x: float, y: float,
               inner: float, boxes: dict[str, Box]) -> float:
        """The chevrons in ``rows`` from (x, y), the longest row filling ``inner`` and the
        others widened alike, each chevron listing what lies under it below the chain's
        name strip ``header`` and ``padding``, so the lists of a row start level; returns the bottom of
        the last row."""
        if not chevrons:
            return y
        longest = max(rows, key=len)
        grow = (inner - self._row_width(longest, chevron_sizes)) / len(longest)
        for row in rows:
            height = max((chevron_sizes[index][1] for index in row), default=0.0)
            left = x
            for index in row:
                chevron, width = chevrons[index], chevron_sizes[index][0] + grow
                box = Box(round(left, 2), round(y, 2), round(width, 2), round(height, 2))
                boxes[chevron.id] = box
                body_x = box.x + CHEVRON_TIP + self.padding
                body_w = box.w - 2 * (CHEVRON_TIP + self.padding)
                top = box.y + header + self.padding
                for node, depth in lists[chevron.id]:
                    boxes[node.id] = Box(round(body_x + depth * self.indent, 2), round(top, 2),
                                         round(body_w - depth * self.indent, 2), node.height)
                    top += node.height + self.gap
                left += width + self.gap
            y += height + self.gap
        return y - self.gap

    def _band(self, kids: list[LayoutNode], sizes: dict[str, Size], x: float, y: float, inner: float,
              boxes: dict[str, Box]) -> float:
        """The band's children in the fewest balanced rows that fit ``inner``, each row
        filled; returns the bottom of the last row."""
        rows = balanced_rows([sizes[kid.id][0] for kid in kids], self.gap, inner)
        for row in rows:
            widths = [sizes[kids[index].id][0] for index in row]
            grow = (inner - sum(widths) - self.gap * (len(row) - 1)) / len(row)
            height = max(sizes[kids[index].id][1] for index in row)
            left = x
            for index, w in zip(row, widths):
                boxes[kids[index].id] = Box(round(left, 2), round(y, 2), round(w + grow, 2), round(height, 2))
                left += w + grow + self.gap
            y += height + self.gap
        return y - self.gap if rows else y


def _is_house(root: LayoutNode, children: dict[str | None, list[LayoutNode]]) -> bool:
    parts = children.get(root.id, [])
    roles = [part.role for part in parts]
    return bool(parts) and roles.count("chain") == 1 and set(roles) <= {"band", "chain"}


def _listed(chevron: LayoutNode, children: dict[str | None, list[LayoutNode]]) -> list[tuple[LayoutNode, int]]:
    """Everything under ``chevron``, depth first in order, with its depth (0: a child)."""
    listed: list[tuple[LayoutNode, int]] = []
    stack = [(kid, 0) for kid in reversed(children.get(chevron.id, []))]
    while stack:
        node, depth = stack.pop()
        listed.append((node, depth))
        stack.extend((kid, depth + 1) for kid in reversed(children.get(node.id, [])))
    return listed


def _forest(graph: LayoutGraph) -> dict[str | None, list[LayoutNode]]:
    """Children per parent id (None: the roots). A node whose parent is unknown is a
    root; a parent cycle is broken at its first node in graph order, which becomes a
    root, so every node is reachable from the roots."""
    parent_of = {node.id: node.parent for node in graph.nodes}
    for node_id, parent in parent_of.items():
        if parent not in parent_of:
            parent_of[node_id] = None
    for node in graph.nodes:
        seen: set[str] = set()
        current = parent_of[node.id]
        while current is not None and current not in seen:
            if current == node.id:
                parent_of[node.id] = None
                break
            seen.add(current)
            current = parent_of[current]
    children: dict[str | None, list[LayoutNode]] = {}
    for node in graph.nodes:
        children.setdefault(parent_of[node.id], []).append(node)
    return children


def _preorder(children: dict[str | None, list[LayoutNode]]) -> list[LayoutNode]:
    """Every node reachable from the roots, parents before children, siblings in order."""
    order: list[LayoutNode] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children.get(node.id, [])))
    return order


GRAPHIC = GraphicLayout()
