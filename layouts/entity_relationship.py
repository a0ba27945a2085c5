"""``entityRelationship``: one element in the middle, the elements it relates to around it.

Expects one node of role ``subject`` (else the first node is the subject), the other
nodes as the entities it relates to, in the order they are to be read (grouped by
relation), and edges that all leave the subject, each with a label size
(``label_width``/``label_height``; 0 for an unlabelled edge). Self-relations are
dropped; an edge that does not leave the subject is refused (a drawing centred on one
element has no place for it).

An entity's ``lane``, when set, names its group (the builder: the relation it is
reached by); a group is kept in one column where that costs the taller column at most
``group_slack`` (a quarter) of its least height.

Steps: the entities are split into a left and a right column, in their order, where
the taller column is least tall among the cuts between groups (any cut when those are
all too unbalanced); the subject sits between them, vertically centred.
Each side has one trunk beside the subject: an edge leaves the subject's side at its
middle, runs along the trunk to its own port on the target's inner side and straight
into it; an entity that is the target of several edges is made tall enough for one
port per edge. Each label is centred on the last segment of its own edge, right next
to the target's arrowhead.

Guarantees: every node gets a box at least its size (entities keep their width); one
route per edge, axis-parallel, entering no box but its ends; two routes share a line
only on the subject's side and trunk (one source, a fan-out), so no junction is
ambiguous, and no two routes cross; every label box lies on its own route only (no
other route, entity or label touches it). Deterministic.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layouts.base import LayoutError, LayoutOptions
from layouts.geometry import Box, EdgeRoute, Layout, NodeBox, Point
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode


@dataclass(frozen=True, slots=True)
class _Column:
    """The entities of one side, top to bottom, with the height each gets."""

    nodes: tuple[LayoutNode, ...]
    heights: tuple[float, ...]
    spacing: float

    @property
    def height(self) -> float:
        return sum(self.heights) + self.spacing * max(len(self.nodes) - 1, 0)

    @property
    def width(self) -> float:
        return max((node.width for node in self.nodes), default=0.0)


@dataclass(frozen=True, slots=True)
class EntityRelationshipLayout:
    key: str = "entityRelationship"
    side_gap: float = 24.0
    trunk_inset: float = 16.0
    label_gap: float = 10.0
    arrow_room: float = 14.0
    port_gap: float = 6.0
    group_slack: float = 1.25

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        if not graph.nodes:
            return Layout(2 * options.margin, 2 * options.margin, ())
        subject = next((node for node in graph.nodes if node.role == "subject"), graph.nodes[0])
        edges = [edge for edge in graph.edges if edge.source != edge.target]
        for edge in edges:
            if edge.source != subject.id:
                raise LayoutError(f"relation {edge.source!r} -> {edge.target!r} does not leave the subject "
                                  f"{subject.id!r}; entityRelationship draws the relations of one element")
        incoming: dict[str, list[LayoutEdge]] = {}
        for edge in edges:
            incoming.setdefault(edge.target, []).append(edge)
        pitch = max((edge.label_height for edge in edges), default=0.0) + self.port_gap
        others = [node for node in graph.nodes if node is not subject]
        heights = [max(node.height, len(incoming.get(node.id, ())) * pitch + 2 * self.port_gap) for node in others]
        left, right = _split(others, heights, options.node_spacing, self.group_slack)
        height = max(left.height, right.height, subject.height)
        mid = options.margin + height / 2
        left_labels = _widest_label(left, incoming)
        right_labels = _widest_label(right, incoming)
        x = options.margin
        left_inner = x + left.width
        subject_x = (left_inner + self.arrow_room + left_labels + self.label_gap + self.side_gap
                     if left.nodes else x)
        subject_box = Box(round(subject_x, 2), round(mid - subject.height / 2, 2), subject.width, subject.height)
        right_inner = subject_box.right + self.side_gap + self.label_gap + right_labels + self.arrow_room
        nodes = [NodeBox(subject.id, subject_box)]
        routes: dict[int, EdgeRoute] = {}
        index_of = {id(edge): index for index, edge in enumerate(edges)}
        for column, inner, towards_right in ((left, left_inner, False), (right, right_inner, True)):
            top = mid - column.height / 2
            for node, node_height in zip(column.nodes, column.heights):
                box = Box(round(inner if towards_right else inner - node.width, 2), round(top, 2),
                          node.width, round(node_height, 2))
                nodes.append(NodeBox(node.id, box))
                top += node_height + options.node_spacing
                arriving = incoming.get(node.id, [])
                for rank, edge in enumerate(arriving):
                    port = box.cy + (rank - (len(arriving) - 1) / 2) * pitch
                    end = box.x if towards_right else box.right
                    routes[index_of[id(edge)]] = self._route(edge, subject_box, port, end)
        width = (right_inner + right.width if right.nodes else subject_box.right) + options.margin
        return Layout(round(width, 2), round(height + 2 * options.margin, 2), tuple(nodes),
                      tuple(routes[index] for index in range(len(edges))))

    def _route(self, edge: LayoutEdge, subject: Box, port: float, end: float) -> EdgeRoute:
        """Straight from the subject's side when the port is level with it; else up (or
        down) the side's trunk, which rises from the subject's top (or bottom) near that
        side, and across to the port: one bend, never a step. The label is centred on
        the last segment just before the arrowhead."""
        towards_right = end > subject.right
        side = subject.right if towards_right else subject.x
        trunk = subject.right - self.trunk_inset if towards_right else subject.x + self.trunk_inset
        points: tuple[Point, ...]
        if subject.y + self.port_gap <= port <= subject.bottom - self.port_gap:
            points = ((side, port), (end, port))
        else:
            points = ((trunk, subject.y if port < subject.y else subject.bottom), (trunk, port), (end, port))
        label = None
        if edge.label_width > 0 and edge.label_height > 0:
            label_x = end - self.arrow_room - edge.label_width if towards_right else end + self.arrow_room
            label = Box(round(label_x, 2), round(port - edge.label_height / 2, 2), edge.label_width,
                        edge.label_height)
        return EdgeRoute(edge.source, edge.target, tuple((round(x, 2), round(y, 2)) for x, y in points), label,
                         edge.key)


def _split(nodes: Sequence[LayoutNode], heights: Sequence[float], spacing: float,
           group_slack: float) -> tuple[_Column, _Column]:
    """Left and right columns, the first nodes on the left, where the taller column is
    least tall (ties: fewer on the left, so a short list stays on the right); cuts
    inside a group (nodes of one ``lane``) only when every cut between groups makes
    the taller column more than ``group_slack`` times that least height."""
    def columns(cut: int) -> tuple[_Column, _Column]:
        return (_Column(tuple(nodes[:cut]), tuple(heights[:cut]), spacing),
                _Column(tuple(nodes[cut:]), tuple(heights[cut:]), spacing))

    def best(cuts: Sequence[int]) -> tuple[int, float]:
        chosen, least = cuts[0], float("inf")
        for cut in cuts:
            taller = max(column.height for column in columns(cut))
            if taller < least - 1e-6:
                chosen, least = cut, taller
        return chosen, least

    anywhere, least = best(range(len(nodes) + 1))
    between = [cut for cut in range(len(nodes) + 1)
               if cut in (0, len(nodes)) or nodes[cut - 1].lane is None or nodes[cut - 1].lane != nodes[cut].lane]
    grouped, grouped_height = best(between)
    return columns(grouped if grouped_height <= least * group_slack + 1e-6 else anywhere)


def _widest_label(column: _Column, incoming: dict[str, list[LayoutEdge]]) -> float:
    return max((edge.label_width for node in column.nodes for edge in incoming.get(node.id, ())), default=0.0)


ENTITY_RELATIONSHIP = EntityRelationshipLayout()
