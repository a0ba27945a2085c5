"""``entityRelationship``: elements as entity boxes, relations as labelled orthogonal edges.

Expects nodes (entities) with fixed sizes and directed edges; an edge with
``label_width``/``label_height`` gets a label box of that size. Labelled edges with the
same target and the same ``key`` are one relation fanned in from several sources: they
share one label box. Self-relations are dropped (an entity box cannot point at itself
without crossing its own text).

Steps: every group of labelled edges becomes sources → label vertex → target, so the
layered pipeline (left to right) places the label boxes like small nodes: they overlap
no entity and no other label, and no route runs through them; the halves of each edge
are then joined into one route that passes straight through its label box. Entities
without any relation are wrapped into rows below the drawing instead of being stacked
into one tall first layer.

Guarantees: one box per entity (its measured size), one route per edge between two
different entities, axis-parallel segments only, a route enters no entity box other
than its ends and no label box other than its own; the first edge of each group
carries the group's label box in ``EdgeRoute.label`` (the others None), the box lying on
every route of the group; boxes do not overlap. Deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass

from layouts.base import LayoutOptions
from layouts.geometry import Box, EdgeRoute, Layout, NodeBox, Point
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.layered import HORIZONTAL, layered_layout
from layouts.packing import pack_rows

LABEL_PREFIX = "\x00label:"


@dataclass(frozen=True, slots=True)
class EntityRelationshipLayout:
    key: str = "entityRelationship"
    aspect: float = 4 / 3

    def layout(self, graph: LayoutGraph, options: LayoutOptions) -> Layout:
        edges = [edge for edge in graph.edges if edge.source != edge.target]
        related = {end for edge in edges for end in (edge.source, edge.target)}
        connected = tuple(node for node in graph.nodes if node.id in related)
        loose = [node for node in graph.nodes if node.id not in related]
        group_of = _label_groups(edges)
        nodes: list[NodeBox] = []
        routes: list[EdgeRoute] = []
        width = height = 2 * options.margin
        if connected:
            drawn = layered_layout(_with_label_vertices(connected, edges, group_of), options, HORIZONTAL)
            placed = {node.id: node.box for node in drawn.nodes}
            nodes = [node for node in drawn.nodes if not node.id.startswith(LABEL_PREFIX)]
            first_half = {(route.source, route.target): route for route in drawn.edges}
            labelled: set[str] = set()
            for index, edge in enumerate(edges):
                group = group_of.get(index)
                if group is None:
                    routes.append(first_half[(edge.source, edge.target)])
                    continue
                label = f"{LABEL_PREFIX}{group}"
                joined = _join(first_half[(edge.source, label)].points, first_half[(label, edge.target)].points)
                box = placed[label] if label not in labelled else None
                labelled.add(label)
                routes.append(EdgeRoute(edge.source, edge.target, joined, box, edge.key))
            width, height = drawn.width, drawn.height
        if loose:
            top = height - options.margin + (options.node_spacing if connected else 0.0)
            packing = pack_rows([(node.width, node.height) for node in loose], options.node_spacing, self.aspect)
            nodes += [NodeBox(node.id, Box(round(options.margin + x, 2), round(top + y, 2), node.width, node.height))
                      for node, (x, y) in zip(loose, packing.positions)]
            width = max(width, round(packing.width + 2 * options.margin, 2))
            height = round(top + packing.height + options.margin, 2)
        return Layout(width, height, tuple(nodes), tuple(routes))


def _labelled(edge: LayoutEdge) -> bool:
    return edge.label_width > 0 and edge.label_height > 0


def _label_groups(edges: list[LayoutEdge]) -> dict[int, int]:
    """Edge index → label group number, for labelled edges; a group per (target, key)."""
    numbers: dict[tuple[str, str], int] = {}
    groups: dict[int, int] = {}
    for index, edge in enumerate(edges):
        if _labelled(edge):
            groups[index] = numbers.setdefault((edge.target, edge.key), len(numbers))
    return groups


def _with_label_vertices(nodes: tuple[LayoutNode, ...], edges: list[LayoutEdge],
                         group_of: dict[int, int]) -> LayoutGraph:
    """The graph the pipeline lays out: each label group as a vertex between its
    sources and its target (ids that cannot clash with entity ids: they start with a
    NUL character); a source that appears twice in a group is joined once."""
    vertices = list(nodes)
    split: dict[tuple[str, str], LayoutEdge] = {}
    for index, edge in enumerate(edges):
        group = group_of.get(index)
        if group is None:
            split.setdefault((edge.source, edge.target), edge)
            continue
        label = f"{LABEL_PREFIX}{group}"
        if (label, edge.target) not in split:
            vertices.append(LayoutNode(label, "edgeLabel", edge.label_width, edge.label_height, role="label"))
            split[(label, edge.target)] = LayoutEdge(label, edge.target)
        split.setdefault((edge.source, label), LayoutEdge(edge.source, label))
    return LayoutGraph(tuple(vertices), tuple(split.values()))


def _join(first: tuple[Point, ...], second: tuple[Point, ...]) -> tuple[Point, ...]:
    """One route from the half that ends on the label box and the half that leaves it;
    where the two ends are not aligned, a corner inside the label box keeps every
    segment axis-parallel."""
    end, start = first[-1], second[0]
    corner: tuple[Point, ...] = ()
    if abs(end[0] - start[0]) > 1e-6 and abs(end[1] - start[1]) > 1e-6:
        corner = ((start[0], end[1]),)
    points: list[Point] = []
    for point in (*first, *corner, *second):
        if not points or points[-1] != point:
            points.append(point)
    return tuple(points)


ENTITY_RELATIONSHIP = EntityRelationshipLayout()
