"""The order within each layer that the previous drawing had (issue 22, stable layout).

Expects a proper layered graph, the fresh order the ordering steps found, the ids of its
nodes and of its edges' ends, and a ``Sketch`` of the previous drawing. Guarantees: each
layer holds the same vertices as in the fresh order, grouped by lane as there, sorted by
where they stood across the flow in the sketch: a shape where it stood; a new shape at
the mean of its sketched neighbours; a long edge's dummy where the edge's old route ran
at the dummy's place along the flow (else between its ends); anything the sketch cannot
place right after the vertex it follows in the fresh order. ``follow_sketch`` takes that
order when it costs at most ``EXTRA_CROSSINGS`` crossings more than the fresh one.
"""
from __future__ import annotations

from collections.abc import Sequence

from layouts.sketch import Sketch
from layouts.steps.crossings import Layers, drawn_crossings
from layouts.steps.proper import ProperGraph

#: Crossings the sketch's order may add to the fresh order's and still be taken.
EXTRA_CROSSINGS = 1


def follow_sketch(graph: ProperGraph, fresh: Layers, node_ids: Sequence[str], edge_ends: Sequence[tuple[str, str]],
                  sketch: Sketch) -> tuple[Layers, list[float | None] | None]:
    """The sketch's order and each vertex's place across the flow in it (None: not
    placed), or the fresh order and None when the sketch's costs too many crossings."""
    places = sketch_places(graph, node_ids, edge_ends, sketch)
    sketched = sketch_order(graph, fresh, places)
    if drawn_crossings(graph, sketched) <= drawn_crossings(graph, fresh) + EXTRA_CROSSINGS:
        return sketched, places
    return fresh, None


def sketch_places(graph: ProperGraph, node_ids: Sequence[str], edge_ends: Sequence[tuple[str, str]],
                  sketch: Sketch) -> list[float | None]:
    """Where each vertex stood across the flow in the sketch (module docstring)."""
    across = _node_places(graph, node_ids, edge_ends, sketch)
    _place_dummies(graph, node_ids, edge_ends, sketch, across)
    return across


def sketch_order(graph: ProperGraph, fresh: Layers, across: Sequence[float | None]) -> Layers:
    ordered: Layers = []
    for layer in fresh:
        keys: dict[int, tuple[int, float, int]] = {}
        last = float("-inf")
        for index, vertex in enumerate(layer):
            place = across[vertex]
            last = place if place is not None else last
            keys[vertex] = (graph.lane[vertex], last, index)
        ordered.append(sorted(layer, key=keys.__getitem__))
    return ordered


def _node_places(graph: ProperGraph, node_ids: Sequence[str], edge_ends: Sequence[tuple[str, str]],
                 sketch: Sketch) -> list[float | None]:
    across: list[float | None] = [None] * graph.vertex_count
    for vertex, node_id in enumerate(node_ids):
        old = sketch.nodes.get(node_id)
        across[vertex] = None if old is None else old[1]
    index_of = {node_id: vertex for vertex, node_id in enumerate(node_ids)}
    neighbours: dict[int, list[float]] = {}
    for source, target in edge_ends:
        for new, other in ((index_of[source], index_of[target]), (index_of[target], index_of[source])):
            place = across[other]
            if across[new] is None and place is not None:
                neighbours.setdefault(new, []).append(place)
    for vertex, places in neighbours.items():
        across[vertex] = sum(places) / len(places)
    return across


def _place_dummies(graph: ProperGraph, node_ids: Sequence[str], edge_ends: Sequence[tuple[str, str]],
                   sketch: Sketch, across: list[float | None]) -> None:
    for edge, chain in enumerate(graph.chains):
        if len(chain) < 3:
            continue
        first, last = chain[0], chain[-1]
        start, end = across[first], across[last]
        old_first, old_last = sketch.nodes.get(node_ids[first]), sketch.nodes.get(node_ids[last])
        span = graph.layer_of[last] - graph.layer_of[first]
        for dummy in chain[1:-1]:
            if across[dummy] is not None:
                continue  # a chain shared by several edges: the first edge places it
            share = (graph.layer_of[dummy] - graph.layer_of[first]) / span
            ran = None
            if old_first is not None and old_last is not None:
                ran = sketch.across_at(*edge_ends[edge], old_first[0] + (old_last[0] - old_first[0]) * share)
            if ran is None and start is not None and end is not None:
                ran = start + (end - start) * share
            across[dummy] = ran
