"""``graphic``: an element hierarchy as nested boxes (process house → categories → processes).

Expects nodes of role ``container`` (an element with children: ``width`` is the least
width its name needs, ``height`` the height of its header strip) and ``leaf`` (a fixed
box), each naming its ``parent`` (None for a root); parents form a forest (a ``parent``
naming an unknown node makes that node a root). Edges are ignored.

Guarantees: every node gets one box; a child's box lies inside its parent's box, below
the parent's header strip, with ``padding`` all round; siblings never overlap (``gap``
apart); the children of a container, and the roots, are wrapped into rows, in their
order, so that their block comes near ``aspect``; the containers of a row are stretched
to the row's height and share the width left at its end, so frames line up. A
container's ``NodeBox.box`` is its header strip and ``frame`` its whole box, so no
overlay lies inside another. Parents come before their children in ``Layout.nodes``. Deterministic; iterative, so deep
hierarchies cannot exhaust the stack.
"""
from __future__ import annotations

from dataclasses import dataclass

from layouts.base import LayoutOptions
from layouts.geometry import Box, Layout, NodeBox
from layouts.graph import LayoutGraph, LayoutNode
from layouts.packing import Packing, pack_rows


@dataclass(frozen=True, slots=True)
class GraphicLayout:
    key: str = "graphic"
    aspect: float = 4 / 3
    padding: float = 12.0
    gap: float = 14.0

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        children = _forest(graph)
        order = _preorder(children)
        sizes: dict[str, tuple[float, float]] = {}
        packings: dict[str, Packing] = {}
        for node in reversed(order):
            kids = children.get(node.id, [])
            if not kids:
                sizes[node.id] = (node.width, node.height + (self.padding if node.role == "container" else 0.0))
                continue
            packings[node.id] = packed = self._pack(kids, sizes)
            sizes[node.id] = (max(node.width, packed.width + 2 * self.padding),
                              node.height + packed.height + 2 * self.padding)
        roots = children.get(None, [])
        top = self._pack(roots, sizes)
        boxes: dict[str, Box] = {}
        self._place(roots, top, options.margin, options.margin, top.width, sizes, boxes)
        for node in order:
            if node.id in packings:
                box = boxes[node.id]
                self._place(children[node.id], packings[node.id], box.x + self.padding,
                            box.y + node.height + self.padding, box.w - 2 * self.padding, sizes, boxes)
        return Layout(round(top.width + 2 * options.margin, 2), round(top.height + 2 * options.margin, 2),
                      tuple(_node_box(node, boxes[node.id]) for node in order))

    def _pack(self, nodes: list[LayoutNode], sizes: dict[str, tuple[float, float]]) -> Packing:
        return pack_rows([sizes[node.id] for node in nodes], self.gap, self.aspect)

    def _place(self, nodes: list[LayoutNode], packing: Packing, x: float, y: float, width: float,
               sizes: dict[str, tuple[float, float]], boxes: dict[str, Box]) -> None:
        """Boxes of ``nodes`` at their packed positions from (x, y) in a block ``width``
        wide; the containers of a row take the row's height and share the room left at
        the row's end, so frames line up on both sides."""
        for row, row_height in zip(packing.rows, packing.row_heights):
            containers = [index for index in row if nodes[index].role == "container"]
            last = row[-1]
            room = width - (packing.positions[last][0] + sizes[nodes[last].id][0])
            grow = room / len(containers) if containers and room > 0 else 0.0
            shift = 0.0
            for index in row:
                node = nodes[index]
                w, h = sizes[node.id]
                px, py = packing.positions[index]
                left = x + px + shift
                if node.role == "container":
                    w, h = w + grow, max(h, row_height)
                    shift += grow
                boxes[node.id] = Box(round(left, 2), round(y + py, 2), round(w, 2), round(h, 2))


def _node_box(node: LayoutNode, box: Box) -> NodeBox:
    """A container's overlay box is its header strip; the whole box is its frame."""
    if node.role != "container":
        return NodeBox(node.id, box)
    return NodeBox(node.id, Box(box.x, box.y, box.w, min(node.height, box.h)), frame=box)


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
