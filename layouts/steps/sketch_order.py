"""The order within each layer that the previous drawing had (issue 22, stable layout).

Expects a proper layered graph, the fresh order the ordering steps found, the ids of its
nodes and of its edges' ends, and a ``Sketch`` of the previous drawing. Guarantees: each
layer holds the same vertices as in the fresh order, grouped by lane as there, sorted by
where they stood across the flow in the sketch: a shape where it stood; a long edge's
dummy where the edge's old route ran at the dummy's place along the flow (else between
its ends); anything the sketch cannot place (a new shape) right after the vertex it
follows in the fresh order, which puts a new branch beside the old ones instead of
between them (placing it at its neighbours' mean pushed old shapes out of their rows),
or, first in the fresh order, beside the topmost vertex it comes from.
``follow_sketch`` takes that order when it costs at most ``EXTRA_CROSSINGS`` crossings
more than the fresh one, else that order with neighbours swapped while that removes
crossings (``ordering.transposed``) if that is within the bound, else the fresh order.

``sketch_ranks`` (the layering with a sketch) keeps the sketch's layers, and
``sketch_lanes`` its lanes' order: see there.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from layouts.budgets import DEFAULT_BUDGETS, Budgets
from layouts.sketch import Sketch
from layouts.steps.crossings import Layers, drawn_crossings
from layouts.steps.ordering import swept_from, transposed
from layouts.steps.proper import ProperGraph

#: Crossings the sketch's order may add to the fresh order's and still be taken.
EXTRA_CROSSINGS = 1
#: The share of the sketch's order within layers a fresh order must keep for its shapes
#: to be held where they stood.
HELD_AGREEMENT = 0.75


def follow_sketch(graph: ProperGraph, fresh: Layers, node_ids: Sequence[str], edge_ends: Sequence[tuple[str, str]],
                  sketch: Sketch, budgets: Budgets = DEFAULT_BUDGETS) -> tuple[Layers, list[float | None] | None]:
    """The sketch's order and each vertex's place across the flow in it (None: not
    placed), with neighbours swapped where that removes crossings when it has more than
    the fresh order; else that order swept; else the fresh order, and None for the
    places unless it keeps most of the sketch's order."""
    places = sketch_places(graph, node_ids, edge_ends, sketch)
    sketched = sketch_order(graph, fresh, places)
    least = drawn_crossings(graph, fresh)
    allowed = least + EXTRA_CROSSINGS
    crossings = drawn_crossings(graph, sketched)
    if crossings <= least:
        return sketched, places
    # neighbours swapped where they cross: most of the sketch's order, fewer crossings
    # (the routes may add one to the order's: the nearer to the fresh count, the safer),
    # taken at once where only long edges swapped
    nearer = transposed(graph, sketched, budgets)
    fewer = drawn_crossings(graph, nearer)
    if fewer < crossings and fewer <= allowed and (
            _order_agreement(graph, nearer, places) == _order_agreement(graph, sketched, places)):
        return nearer, places
    if crossings <= allowed:
        return sketched, places
    if fewer <= allowed:
        return nearer, places
    # swept from the sketch's order: what crossings force to move, the rest where it stood
    swept = swept_from(graph, sketched, budgets)
    if drawn_crossings(graph, swept) <= allowed:
        return swept, places
    # the fresh order, its shapes still held where they stood if it keeps most of the
    # sketch's order (held against a mirrored order, they stretch the drawing apart)
    return fresh, places if _order_agreement(graph, fresh, places) >= HELD_AGREEMENT else None


def _order_agreement(graph: ProperGraph, layers: Layers, places: Sequence[float | None]) -> float:
    """Of the pairs of shapes in one layer that the sketch placed apart, the share that
    ``layers`` keeps in the sketch's order (1 without such pairs)."""
    kept = pairs = 0
    for layer in layers:
        placed = [place for vertex in layer if vertex < graph.node_count and (place := places[vertex]) is not None]
        for index, place in enumerate(placed):
            for later in placed[index + 1:]:
                if later != place:
                    pairs += 1
                    kept += later > place
    return kept / pairs if pairs else 1.0


def sketch_places(graph: ProperGraph, node_ids: Sequence[str], edge_ends: Sequence[tuple[str, str]],
                  sketch: Sketch) -> list[float | None]:
    """Where each vertex stood across the flow in the sketch (module docstring)."""
    across = _node_places(graph, node_ids, sketch)
    _place_dummies(graph, node_ids, edge_ends, sketch, across)
    return across


def sketch_order(graph: ProperGraph, fresh: Layers, across: Sequence[float | None]) -> Layers:
    ordered: Layers = []
    for layer in fresh:
        keys: dict[int, tuple[int, float, int]] = {}
        last = float("-inf")
        for index, vertex in enumerate(layer):
            place = across[vertex]
            if place is None and last == float("-inf"):
                # nothing before it in the fresh order to follow: beside where its flow
                # comes from, not at the layer's start across all the old edges
                place = min((up for up in (across[u] for u in graph.up[vertex]) if up is not None), default=None)
            last = place if place is not None else last
            keys[vertex] = (graph.lane[vertex], last, index)
        ordered.append(sorted(layer, key=keys.__getitem__))
    return ordered


def _node_places(graph: ProperGraph, node_ids: Sequence[str], sketch: Sketch) -> list[float | None]:
    across: list[float | None] = [None] * graph.vertex_count
    for vertex, node_id in enumerate(node_ids):
        old = sketch.nodes.get(node_id)
        across[vertex] = None if old is None else old[1]
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


def sketch_ranks(node_ids: Sequence[str], dag: Sequence[tuple[int, int]], sketch: Sketch) -> list[int] | None:
    """A layer per node that keeps the sketch's layers: shapes that shared a layer share
    one, a later layer stays later (an emptied layer closes), and every edge of ``dag``
    spans at least one layer; a new shape takes the earliest layer after its
    predecessors, pushing the later layers on where it needs room. None when the
    sketch's layers and the edges contradict each other (an edge within a layer or
    against the sketch's order), or when no node stood in the sketch: the fresh layering
    then decides."""
    node_count = len(node_ids)
    old_along = [sketch.nodes[node_id][0] if node_id in sketch.nodes else None for node_id in node_ids]
    if all(along is None for along in old_along):
        return None  # nothing of the sketch is drawn again
    layers = sorted({along for along in old_along if along is not None})
    # one vertex per kept layer (node_count + k), every sketched node joined to its layer's
    group = {along: node_count + k for k, along in enumerate(layers)}
    representative = [v if along is None else group[along] for v, along in enumerate(old_along)]
    vertex_count = node_count + len(layers)
    successors: list[list[int]] = [[] for _ in range(vertex_count)]
    for k in range(1, len(layers)):
        successors[node_count + k - 1].append(node_count + k)
    for source, target in dag:
        a, b = representative[source], representative[target]
        if a == b:
            return None
        successors[a].append(b)
    rank = _longest_paths(successors)
    if rank is None:
        return None
    ranks = [rank[representative[v]] for v in range(node_count)]
    lowest = min(ranks, default=0)
    return [value - lowest for value in ranks]


def _longest_paths(successors: Sequence[Sequence[int]]) -> list[int] | None:
    """Each vertex one after its latest predecessor; None on a cycle."""
    waiting = [0] * len(successors)
    for targets in successors:
        for target in targets:
            waiting[target] += 1
    rank = [0] * len(successors)
    ready = deque(v for v, count in enumerate(waiting) if not count)
    done = 0
    while ready:
        vertex = ready.popleft()
        done += 1
        for target in successors[vertex]:
            rank[target] = max(rank[target], rank[vertex] + 1)
            waiting[target] -= 1
            if not waiting[target]:
                ready.append(target)
    return rank if done == len(successors) else None


def sketch_lanes(lane_ids: Sequence[str], sketch: Sketch, last: int | None) -> list[int] | None:
    """Lane indices in the order the sketch drew them, lanes new to it after those
    (in ``lane_ids``' order), ``last`` (the "Unassigned" lane) last whatever the sketch
    says: a task moving lanes leaves every other lane where it stood. None when no lane
    stood in the sketch."""
    old = sorted((sketch.lanes[lane][0], index) for index, lane in enumerate(lane_ids)
                 if lane in sketch.lanes and index != last)
    if not old:
        return None
    kept = {index for _, index in old}
    new = [index for index in range(len(lane_ids)) if index not in kept and index != last]
    return [index for _, index in old] + new + ([] if last is None else [last])


def lane_room(graph: ProperGraph, layers: Layers, lane_ids: Sequence[str], sketch: Sketch,
              least: Sequence[float], need: Sequence[float], spacing: float) -> list[float]:
    """Each lane's least extent across the flow: at least ``least`` (its header), an old
    lane as tall as it stood in the sketch (a lane a shape left keeps its room, so the
    lanes after it stay where they stood), a new lane as its fullest layer needs (each
    vertex its ``need`` and ``spacing``): placed with exactly that room, a new lane moves
    the lanes after it by its extent, which ``shifted_to_lanes`` foresees."""
    room = list(least)
    for lane, lane_id in enumerate(lane_ids):
        if lane_id in sketch.lanes:
            top, bottom = sketch.lanes[lane_id]
            room[lane] = max(room[lane], bottom - top)
    fullest = [0.0] * len(lane_ids)
    for layer in layers:
        filled = [0.0] * len(lane_ids)
        for vertex in layer:
            filled[graph.lane[vertex]] += need[vertex] + spacing
        fullest = [max(a, b) for a, b in zip(fullest, filled)]
    return [extent if lane_id in sketch.lanes else max(extent, full)
            for extent, full, lane_id in zip(room, fullest, lane_ids)]


def shifted_to_lanes(places: Sequence[float | None], vertex_lanes: Sequence[int], lane_ids: Sequence[str],
                     room: Sequence[float], sketch: Sketch) -> list[float | None]:
    """``places`` moved with the old lane they stood in, to where that lane now starts:
    the lanes one after another, each ``room`` tall, from where the sketch's first lane
    started (a new lane before an old one pushes it on by the new lane's room). A place
    in another lane than its vertex's now (a task moved to another lane) is dropped: held
    there, it would pull its new lane's edge and its neighbours with it."""
    tops = [top for top, _ in sketch.lanes.values()]
    if not tops:
        return list(places)
    start = min(tops)
    bands: list[tuple[float, float, float, int]] = []
    for lane, (lane_id, extent) in enumerate(zip(lane_ids, room)):
        if lane_id in sketch.lanes:
            top, bottom = sketch.lanes[lane_id]
            bands.append((top, bottom, start - top, lane))
        start += extent

    def moved(place: float | None, lane: int) -> float | None:
        band = None if place is None else next((b for b in bands if b[0] <= place <= b[1]), None)
        if place is None or band is None:
            return place
        return place + band[2] if band[3] == lane else None

    return [moved(place, lane) for place, lane in zip(places, vertex_lanes)]
