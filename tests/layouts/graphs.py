"""Layout graphs of the shape each layout key reads, built directly (no renderer).

A process is given as predecessor lists (shape ``i`` follows the shapes listed at ``i``)
and optionally the kind of each shape; ``graph_for(key, ...)`` turns it into what that
key's strategy expects (see each strategy's docstring): the flow, the flow in lanes,
the flow with satellites, a hierarchy of boxes, a matrix, or entities and relations.
Shape ``i`` is node ``shape-i`` in every one of them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from checks.generate import complete_dag
from layouts.graph import LaneSpec, LayoutEdge, LayoutGraph, LayoutNode

Predecessors = Sequence[Sequence[int]]

SYMBOL_SIZES = {"task": (120.0, 60.0), "evStart": (36.0, 36.0), "evEnd": (36.0, 36.0), "ruleXor": (50.0, 50.0)}
#: The kinds here whose symbol has no flat side (what ``renderer.kinds`` says of them).
POINTED = frozenset(("evStart", "evEnd", "ruleXor"))
OUTSIDE_LABEL = (64.0, 30.0)  # events and gateways carry their name outside the symbol
SATELLITE = (100.0, 25.0)
UNITS = 3  # org units: the lanes, the satellites' and the matrices' columns, the related entities

#: A small process with every feature a flow layout handles: a start and an end event,
#: a split and a join gateway, parallel branches of different lengths, a rework loop.
SMALL_PROCESS: tuple[tuple[int, ...], ...] = ((), (0,), (1, 6), (2,), (2,), (4,), (3, 5), (6,))
SMALL_KINDS = ("evStart", "task", "ruleXor", "task", "task", "task", "ruleXor", "evEnd")


def dense_cyclic() -> list[list[int]]:
    """A complete DAG of 22 shapes (concentrated: one chain per edge would need 1,540
    dummies) with five rework loops."""
    predecessors = complete_dag(22)
    for shape in range(0, 17, 4):
        predecessors[shape].append(shape + 5)
    return predecessors


def shape_id(index: int) -> str:
    return f"shape-{index}"


def unit_id(index: int) -> str:
    return f"unit-{index % UNITS}"


def flow_node(node_id: str, kind: str, width: float, height: float, label_width: float = 0.0,
              label_height: float = 0.0, lane: str | None = None) -> LayoutNode:
    """A shape of the flow with the neutral properties a builder gives it for ``kind``
    (``LayoutNode.is_start``, ``pointed``)."""
    return LayoutNode(node_id, kind, width, height, label_width, label_height, lane=lane,
                      is_start=kind == "evStart", pointed=kind in POINTED)


def shape_nodes(kinds: Sequence[str], in_lanes: bool = False) -> list[LayoutNode]:
    nodes = []
    for index, kind in enumerate(kinds):
        width, height = SYMBOL_SIZES[kind]
        label_width, label_height = (0.0, 0.0) if kind == "task" else OUTSIDE_LABEL
        nodes.append(flow_node(shape_id(index), kind, width, height, label_width, label_height,
                               lane=unit_id(index) if in_lanes else None))
    return nodes


def flow_edges(predecessors: Predecessors) -> list[LayoutEdge]:
    return [LayoutEdge(shape_id(p), shape_id(i)) for i, preceding in enumerate(predecessors) for p in preceding]


def flow_graph(predecessors: Predecessors, kinds: Sequence[str]) -> LayoutGraph:
    return LayoutGraph(tuple(shape_nodes(kinds)), tuple(flow_edges(predecessors)))


def swimlane_graph(predecessors: Predecessors, kinds: Sequence[str]) -> LayoutGraph:
    """Shape ``i`` in lane ``unit-(i mod 3)``."""
    lanes = tuple(LaneSpec(unit_id(k), 90.0, 24.0) for k in range(min(UNITS, len(kinds))))
    return LayoutGraph(tuple(shape_nodes(kinds, in_lanes=True)), tuple(flow_edges(predecessors)), lanes)


def detailed_graph(predecessors: Predecessors, kinds: Sequence[str]) -> LayoutGraph:
    """Every task has an input flowing into it and an org unit it points to."""
    nodes, edges = shape_nodes(kinds), flow_edges(predecessors)
    for host in list(nodes):
        if host.kind != "task":
            continue
        given = LayoutNode(f"{host.id}:input", "inOut", *SATELLITE, role="satellite", parent=host.id)
        unit = LayoutNode(f"{host.id}:unit", "orgUnit", *SATELLITE, role="satellite", parent=host.id)
        nodes += [given, unit]
        edges += [LayoutEdge(given.id, host.id), LayoutEdge(host.id, unit.id)]
    return LayoutGraph(tuple(nodes), tuple(edges))


def graphic_graph(predecessors: Predecessors, kinds: Sequence[str]) -> LayoutGraph:
    """A root container holding one container per four shapes, each holding its shapes
    as leaves; edges are not part of a hierarchy."""
    nodes = [LayoutNode("root", "mainProcess", 180.0, 30.0, role="container")]
    for index in range(len(kinds)):
        group = f"group-{index // 4}"
        if index % 4 == 0:
            nodes.append(LayoutNode(group, "process", 140.0, 26.0, role="container", parent="root"))
        nodes.append(LayoutNode(shape_id(index), kinds[index], 110.0, 40.0, role="leaf", parent=group))
    return LayoutGraph(tuple(nodes), ())


def matrix_graph(predecessors: Predecessors, kinds: Sequence[str]) -> LayoutGraph:
    """Shapes as rows, org units as columns, each shape linked to its unit."""
    rows = [LayoutNode(shape_id(i), kind, 160.0, 40.0, role="row") for i, kind in enumerate(kinds)]
    columns = [LayoutNode(unit_id(k), "orgUnit", 90.0, 60.0, role="column") for k in range(UNITS)]
    links = [LayoutEdge(row.id, unit_id(i)) for i, row in enumerate(rows)]
    return LayoutGraph(tuple(rows + columns), tuple(links))


def entity_graph(predecessors: Predecessors, kinds: Sequence[str]) -> LayoutGraph:
    """The diagram element as the subject, the shapes and org units as the entities it
    relates to: three of every four shapes through one labelled relation, the fourth
    through none, every unit through two (executed by, responsible)."""
    subject = LayoutNode("subject", "mainProcess", 170.0, 54.0, role="subject")
    shapes = [LayoutNode(shape_id(i), kind, 140.0, 54.0, role="entity") for i, kind in enumerate(kinds)]
    units = [LayoutNode(unit_id(k), "orgUnit", 140.0, 54.0, role="entity") for k in range(UNITS)]
    relations = [LayoutEdge(subject.id, shape.id, 70.0, 18.0, key=f"rel:input:{shape.id}")
                 for i, shape in enumerate(shapes) if i % 4 != 3]
    relations += [LayoutEdge(subject.id, unit.id, 70.0, 18.0, key=f"rel:{context}:{unit.id}")
                  for unit in units for context in ("executedBy", "responsible")]
    return LayoutGraph((subject, *shapes, *units), tuple(relations))


BUILDERS: dict[str, Callable[[Predecessors, Sequence[str]], LayoutGraph]] = {
    "detailed": detailed_graph, "vertical": flow_graph, "horizontal": flow_graph,
    "verticalSwimlane": swimlane_graph, "horizontalSwimlane": swimlane_graph, "graphic": graphic_graph,
    "processMatrix": matrix_graph, "customerMatrix": matrix_graph, "entityRelationship": entity_graph,
}


def graph_for(key: str, predecessors: Predecessors, kinds: Sequence[str] | None = None) -> LayoutGraph:
    """The graph ``key`` reads for this process; every shape is a task unless ``kinds`` says."""
    return BUILDERS[key](predecessors, kinds if kinds is not None else ["task"] * len(predecessors))
