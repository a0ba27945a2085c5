"""Loop-back tracks: a loop whose turn and dummy vertices do not line up would climb back
through the layers in stairs (two bends per step); it is given one or two straight lines
instead.

Expects the placed layers (turn vertices included), each loop's drawn ends and the
channel segments of every other edge. Guarantees: a loop with a ``LoopTrack`` leaves its
source's side along ``source_o``, changes at most once, in channel ``channel``, to
``target_o`` and enters its target's side from there: at most 4 bends (2 when both lines
are one). A track never runs through a node or its label, never on the line of another
edge's vertex or of a track chosen before, never changes lines in a channel where
another segment swaps the same two lines the other way, and is the one crossing the
fewest edges (then: fewest bends, nearest its own vertices), kept only if it crosses at
most ``LOOP_CROSSING_SLACK`` edges more than the chain did. Candidate lines are the
loop's own turn and dummy positions and lines beyond everything on either side of the
drawing (around the lanes); a loop whose chain already bends at most 4 times keeps it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

EPS = 1e-6
#: Most bends a loop-back may have before it reads as a staircase (issue 21).
LOOP_BEND_LIMIT = 4
#: How many crossings more than its stairs a loop's track may cost (both estimated from
#: the channels' segments): a staircase of six or more bends through the flow is harder
#: to follow than one more crossing. The estimates are rough: at 1 the drawn crossings of
#: the corpus and of the mined models tuned on stayed as they were, at 2 those models
#: gained two.
LOOP_CROSSING_SLACK = 1


@dataclass(frozen=True, slots=True)
class LoopTrack:
    """A loop's way back from its source's layer ``last`` to its target's ``first``."""

    source_o: float
    target_o: float
    channel: int | None  # where the loop changes from source_o to target_o; None: one line
    first: int
    last: int

    def line_at(self, layer: int) -> float | None:
        """The line the track runs along through ``layer`` (None: it does not pass there)."""
        if not self.first <= layer <= self.last:
            return None
        return self.target_o if self.channel is not None and layer <= self.channel else self.source_o


@dataclass(frozen=True, slots=True)
class Loop:
    """A back edge as drawn: ``chain`` runs from the target's turn vertex through the
    dummies to the source's turn vertex; ``*_above``: the turn lies before its node."""

    edge: int
    source: int
    target: int
    chain: Sequence[int]
    source_above: bool
    target_above: bool


@dataclass(frozen=True, slots=True)
class Lines:
    """What a track must keep clear of in each layer: node extents (symbol and label,
    ``before``/``after`` the anchor) and the lines of point vertices and chosen tracks."""

    layers: Sequence[Sequence[int]]
    layer_of: Sequence[int]
    node_count: int
    o: Sequence[float]
    before: Sequence[float]
    after: Sequence[float]
    clearance: float  # kept from a node's extent and between two lines


@dataclass(frozen=True, slots=True)
class _Candidate:
    crossings: int
    bends: int
    deviation: float
    track: LoopTrack


def chain_bends(o: Sequence[float], chain: Sequence[int]) -> int:
    """Bends of a loop drawn along its chain: one at each end, two per step between layers."""
    return 2 + 2 * sum(1 for a, b in zip(chain, chain[1:]) if abs(o[a] - o[b]) > EPS)


def loop_tracks(lines: Lines, loops: Sequence[Loop],
                segments: Sequence[dict[int, list[tuple[float, float]]]],
                beyond: tuple[float, float]) -> dict[int, LoopTrack]:
    """Tracks for the loops whose chains bend more than ``LOOP_BEND_LIMIT`` times, shorter
    loops first (they take the inner lines). ``segments[k]``: per edge, the (low, high)
    order spans of its bent segments in channel k (replaced by a loop's own once chosen);
    ``beyond``: the first free line before and after everything across the flow."""
    layer_count = len(lines.layers)
    taken: list[list[tuple[float, int]]] = [[] for _ in range(layer_count)]  # (line, edge) per layer
    channel_spans = [{edge: list(spans) for edge, spans in channel.items()} for channel in segments]
    tracks: dict[int, LoopTrack] = {}
    for loop in sorted(loops, key=lambda lp: (_span(lines, lp), lp.edge)):
        if chain_bends(lines.o, loop.chain) <= LOOP_BEND_LIMIT:
            continue
        own_segments = {channel: spans.pop(loop.edge) for channel, spans in enumerate(channel_spans)
                        if loop.edge in spans}
        candidate = _best_track(lines, loop, taken, channel_spans, beyond)
        stairs = _chain_crossings(own_segments, channel_spans)
        if candidate is None or candidate.crossings > stairs + LOOP_CROSSING_SLACK:
            for channel, own in own_segments.items():
                channel_spans[channel][loop.edge] = own
            continue
        best = tracks[loop.edge] = candidate.track
        for layer in range(best.first, best.last + 1):
            line = best.line_at(layer)
            assert line is not None  # the track passes every layer from first to last
            taken[layer].append((line, loop.edge))
        if best.channel is not None:
            channel_spans[best.channel].setdefault(loop.edge, []).append((best.target_o, best.source_o))
    return tracks


def _span(lines: Lines, loop: Loop) -> int:
    return lines.layer_of[loop.source] - lines.layer_of[loop.target]


def _best_track(lines: Lines, loop: Loop, taken: list[list[tuple[float, int]]],
                channel_spans: list[dict[int, list[tuple[float, float]]]],
                beyond: tuple[float, float]) -> _Candidate | None:
    first, last = lines.layer_of[loop.target], lines.layer_of[loop.source]
    own = set(loop.chain)
    reach_s = _reachable_lines(lines, loop, loop.source, loop.source_above, own, taken, beyond)
    reach_t = _reachable_lines(lines, loop, loop.target, loop.target_above, own, taken, beyond)
    home_s, home_t = lines.o[loop.chain[-1]], lines.o[loop.chain[0]]
    # per line: how far back from the source (forward from the target) it runs free, and
    # the crossings it collects on the way (prefix over channels)
    from_source = {line: _free_run(lines, line, last, first - 1, own, taken, channel_spans)
                   for line in reach_s}
    from_target = {line: _free_run(lines, line, first, last + 1, own, taken, channel_spans)
                   for line in reach_t}
    best: _Candidate | None = None
    for line_s, leg_s in reach_s.items():
        run_s = from_source[line_s]
        if run_s is None:
            continue
        free_s, cross_s = run_s
        for line_t, leg_t in reach_t.items():
            run_t = from_target[line_t]
            if run_t is None:
                continue
            free_t, cross_t = run_t
            deviation = abs(line_s - home_s) + abs(line_t - home_t)
            if abs(line_s - line_t) < EPS:
                if free_s <= first:  # one line all the way
                    candidate = _Candidate(leg_s + leg_t + cross_s[first], 2, deviation,
                                           LoopTrack(line_s, line_t, None, first, last))
                    best = candidate if best is None or _better(candidate, best) else best
                continue
            # change lines in channel j (between layers j and j + 1): the source's line must
            # run free over layers j + 1 .. last, the target's over first .. j
            for channel in range(max(first, free_s - 1), min(last - 1, free_t) + 1):
                if _swaps_with(line_t, line_s, channel_spans[channel]):
                    continue
                crossings = (leg_s + leg_t + cross_s[channel + 1] + cross_t[channel]
                             + _change_crossings(line_t, line_s, channel_spans[channel]))
                candidate = _Candidate(crossings, 4, deviation, LoopTrack(line_s, line_t, channel, first, last))
                if best is None or _better(candidate, best):
                    best = candidate
    return best


def _swaps_with(left: float, right: float, spans: dict[int, list[tuple[float, float]]]) -> bool:
    """Does a segment of the channel run the other way between the same two lines? Each
    would leave on the line the other enters: whatever their slots, one runs along the
    other's line for a stretch."""
    return any(abs(other_left - right) < EPS and abs(other_right - left) < EPS
               for segments in spans.values() for other_left, other_right in segments)


def _chain_crossings(own: dict[int, list[tuple[float, float]]],
                     channel_spans: list[dict[int, list[tuple[float, float]]]]) -> int:
    """Crossings of a loop drawn along its chain, estimated as for a track."""
    return sum(_change_crossings(left, right, channel_spans[channel])
               for channel, segments in own.items() for left, right in segments)


def _better(a: _Candidate, b: _Candidate) -> bool:
    return (a.crossings, a.bends, a.deviation) < (b.crossings, b.bends, b.deviation)


def _change_crossings(left: float, right: float, spans: dict[int, list[tuple[float, float]]]) -> int:
    """Crossings of a segment from ``left`` to ``right`` across a channel with the
    channel's other segments (each (left, right)), in the better of the two slot orders."""
    low, high = sorted((left, right))
    if high - low < EPS:  # straight through: crosses the bent segments around its line
        return sum(1 for segments in spans.values() for a, b in segments if min(a, b) + EPS < left < max(a, b) - EPS)

    def inside(value: float, a: float, b: float) -> bool:
        return min(a, b) + EPS < value < max(a, b) - EPS

    total = 0
    for segments in spans.values():
        for other_left, other_right in segments:
            if abs(other_left - other_right) < EPS:
                total += int(low + EPS < other_left < high - EPS)
                continue
            before = int(inside(right, other_left, other_right)) + int(inside(other_left, left, right))
            after = int(inside(other_right, left, right)) + int(inside(left, other_left, other_right))
            total += min(before, after)
    return total


def _reachable_lines(lines: Lines, loop: Loop, node: int, above: bool, own: set[int],
                     taken: list[list[tuple[float, int]]], beyond: tuple[float, float]) -> dict[float, int]:
    """Lines the loop can reach from ``node``'s turn side within its layer, with the
    edges its leg crosses on the way; a node in between blocks the way."""
    o = lines.o
    layer = lines.layer_of[node]
    sign = -1.0 if above else 1.0
    edge_of_side = o[node] + sign * (lines.before[node] if above else lines.after[node])
    candidates = {o[v] for v in loop.chain if sign * (o[v] - edge_of_side) > EPS}
    span = range(lines.layer_of[loop.target], lines.layer_of[loop.source] + 1)
    candidates.add(_beyond_line(beyond[0 if above else 1], sign, span, taken, lines.clearance))
    obstacles = [(o[v], v < lines.node_count) for v in lines.layers[layer] if v != node and v not in own]
    obstacles += [(line, False) for line, edge in taken[layer] if edge != loop.edge]
    reachable: dict[float, int] = {}
    for line in candidates:
        low, high = sorted((edge_of_side, line))
        crossed = 0
        for at, is_node in obstacles:
            if low - EPS < at < high + EPS:
                if is_node:
                    break
                crossed += 1
        else:
            reachable[line] = crossed
    return reachable


def _beyond_line(start: float, sign: float, span: range, taken: list[list[tuple[float, int]]],
                 clearance: float) -> float:
    """The first line beyond the drawing on one side that no chosen track holds over ``span``."""
    line = start
    while any(abs(line - at) < clearance - EPS for layer in span for at, _ in taken[layer]):
        line += sign * clearance
    return line


def _free_run(lines: Lines, line: float, start: int, stop: int, own: set[int],
              taken: list[list[tuple[float, int]]], channel_spans: list[dict[int, list[tuple[float, float]]]]
              ) -> tuple[int, dict[int, int]] | None:
    """Walk ``line`` from layer ``start`` towards ``stop`` (exclusive) while it runs free:
    the last free layer and, per layer reached, the crossings with bent channel segments
    between ``start`` and that layer (None: not free in ``start`` itself)."""
    if not _free(lines, line, start, own, taken):
        return None
    step = -1 if stop < start else 1
    crossings = {start: 0}
    count = 0
    layer = start
    while True:
        if layer != start:
            channel = min(layer, layer - step)
            count += sum(1 for spans in channel_spans[channel].values()
                         for left, right in spans if min(left, right) + EPS < line < max(left, right) - EPS)
            crossings[layer] = count
        nxt = layer + step
        if nxt == stop or not _free(lines, line, nxt, own, taken):
            return layer, crossings
        layer = nxt


def _free(lines: Lines, line: float, layer: int, own: set[int], taken: list[list[tuple[float, int]]]) -> bool:
    clearance = lines.clearance
    for v in lines.layers[layer]:
        if v in own:
            continue
        if v < lines.node_count:
            if lines.o[v] - lines.before[v] - clearance < line < lines.o[v] + lines.after[v] + clearance:
                return False
        elif abs(lines.o[v] - line) < clearance - EPS:
            return False
    return all(abs(at - line) >= clearance - EPS for at, _ in taken[layer])
