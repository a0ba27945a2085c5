"""Edge routing between two layers: a vertical track (slot) per edge segment.

Expects the segments of one channel, each joining an order position on the channel's
left layer to one on its right layer. Guarantees: two segments whose vertical parts
would overlap never share a slot (parallel edges stay apart), nor do two running at each
other into one port (they would meet head-on there), and slots are ordered to
avoid the crossings their order decides: placing ``a`` before ``b`` costs a crossing when
``a`` leaves the channel inside ``b``'s span, or ``b`` enters it inside ``a``'s. Pairwise
preferences become an order by a greedy feedback-arc heuristic (Eades, Lin, Smyth), as
in ELK's orthogonal router. One order is kept whatever it costs: a segment that leaves
the channel on the line where another enters it takes the earlier slot (the other one's
line then starts after the first has turned off it), so two unrelated edges never run
along one line next to a fork.

That is quadratic in a channel's segments, so ``assign_channels`` spends a budget of
``Budgets.channel_pairs`` segment pairs over the channels of a drawing, in channel order; a channel
that no longer fits takes the bundled path: segments sharing their port on the left
layer and heading the same way (a fork) share one track, as do those sharing their port
on the right layer (a merge), and the tracks are handed out by a sweep over the
segments' spans (interval colouring), in O(k log k). Segments of one bundle meet only
where they share an end, so the fork or merge reads as one line that splits late.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from layouts.budgets import DEFAULT_BUDGETS, Budgets

EPS = 1e-6
#: Weight of the slot order that keeps two edges off one line: above any count of crossings.
SEPARATE_LINES = 1_000_000


@dataclass(frozen=True, slots=True)
class ChannelSegment:
    edge: int
    left: float
    right: float

    @property
    def low(self) -> float:
        return min(self.left, self.right)

    @property
    def high(self) -> float:
        return max(self.left, self.right)

    @property
    def straight(self) -> bool:
        return abs(self.left - self.right) < EPS


def _inside(value: float, segment: ChannelSegment) -> bool:
    return segment.low + EPS < value < segment.high - EPS


def crossings_before(a: ChannelSegment, b: ChannelSegment) -> int:
    """Crossings caused by giving ``a`` a slot left of ``b``."""
    return int(_inside(a.right, b)) + int(_inside(b.left, a))


def _leaves_where_enters(a: ChannelSegment, b: ChannelSegment) -> bool:
    """Does ``a`` start on the line ``b`` ends on? Then ``a`` must turn off that line
    before ``b`` joins it (an earlier slot), or their horizontal parts would overlap."""
    return not a.straight and not b.straight and abs(a.left - b.right) < EPS


def _conflict(a: ChannelSegment, b: ChannelSegment) -> bool:
    """Would the vertical parts touch if they shared a slot? Meeting only where both
    leave one port, one each way (a fork), is fine; two segments running at each other
    into one port would meet head-on there and turn into it together, a T that reads as
    one line running past the shape (issue 21)."""
    if a.low > b.high + EPS or b.low > a.high + EPS:
        return False
    if abs(a.high - b.low) < EPS or abs(b.high - a.low) < EPS:
        contact = a.high if abs(a.high - b.low) < EPS else a.low
        return not (abs(a.left - contact) < EPS and abs(b.left - contact) < EPS)
    return True


def assign_channels(channels: Sequence[Sequence[ChannelSegment]], budgets: Budgets = DEFAULT_BUDGETS
                    ) -> list[tuple[list[int], int]]:
    """``assign_slots`` for each channel while ``budgets.channel_pairs`` last (the corpus
    needs < 10,000), else ``bundled_slots``."""
    budget = budgets.channel_pairs
    assigned: list[tuple[list[int], int]] = []
    for segments in channels:
        bent = sum(1 for segment in segments if not segment.straight)
        if bent * bent <= budget:
            budget -= bent * bent
            assigned.append(assign_slots(segments))
        else:
            assigned.append(bundled_slots(segments))
    return assigned


def bundled_slots(segments: Sequence[ChannelSegment]) -> tuple[list[int], int]:
    """Slots as ``assign_slots`` returns them, forks and merges sharing one track each;
    two tracks whose spans touch never share a slot."""
    bundles: dict[tuple[str, float, bool], list[int]] = {}
    for index, segment in enumerate(segments):
        if not segment.straight:
            bundles.setdefault(("left", round(segment.left, 3), segment.right > segment.left), []).append(index)
    key_of: dict[int, tuple[str, float, bool]] = {}
    for key, members in list(bundles.items()):
        if len(members) == 1:
            index = members[0]
            segment = segments[index]
            del bundles[key]
            key_of[index] = ("right", round(segment.right, 3), segment.right > segment.left)
    for index, key in key_of.items():
        bundles.setdefault(key, []).append(index)
    spans = sorted((min(segments[i].low for i in members), max(segments[i].high for i in members), key)
                   for key, members in bundles.items())
    slots = [-1] * len(segments)
    busy: list[tuple[float, int]] = []  # (high end, slot) of tracks in use
    free: list[int] = []
    used = 0
    for low, high, key in spans:
        while busy and busy[0][0] < low - EPS:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if free:
            slot = heapq.heappop(free)
        else:
            slot, used = used, used + 1
        heapq.heappush(busy, (high, slot))
        for index in bundles[key]:
            slots[index] = slot
    return slots, used


def assign_slots(segments: Sequence[ChannelSegment]) -> tuple[list[int], int]:
    """Slot index per segment (straight segments get -1: they need no track) and the
    number of slots used."""
    bent = [i for i, s in enumerate(segments) if not s.straight]
    order = _preferred_order([segments[i] for i in bent])
    slots = [-1] * len(segments)
    placed: list[int] = []
    used = 0
    for local in order:
        index = bent[local]
        segment = segments[index]
        slot = 0
        for other in placed:
            if slots[other] >= slot and _conflict(segment, segments[other]):
                slot = slots[other] + 1
        slots[index] = slot
        used = max(used, slot + 1)
        placed.append(index)
    return slots, used


def _preferred_order(segments: Sequence[ChannelSegment]) -> list[int]:
    count = len(segments)
    if count <= 1:
        return list(range(count))
    gain = [[0] * count for _ in range(count)]  # gain[a][b] > 0: a before b saves crossings
    out_weight = [0] * count
    in_weight = [0] * count
    by_low = sorted(range(count), key=lambda i: segments[i].low)
    for position, a in enumerate(by_low):
        for b in by_low[position + 1:]:
            if segments[b].low > segments[a].high + EPS:
                break
            ab = crossings_before(segments[a], segments[b])
            ba = crossings_before(segments[b], segments[a])
            if _leaves_where_enters(segments[a], segments[b]):
                ba += SEPARATE_LINES
            elif _leaves_where_enters(segments[b], segments[a]):
                ab += SEPARATE_LINES
            if ab < ba:
                gain[a][b] = ba - ab
                out_weight[a] += ba - ab
                in_weight[b] += ba - ab
            elif ba < ab:
                gain[b][a] = ab - ba
                out_weight[b] += ab - ba
                in_weight[a] += ab - ba
    remaining = set(range(count))
    head: list[int] = []
    tail: list[int] = []
    while remaining:
        sinks = sorted(v for v in remaining if out_weight[v] == 0 and in_weight[v] > 0)
        sources = sorted(v for v in remaining if in_weight[v] == 0)
        if sources:
            chosen, to_head = sources[0], True
        elif sinks:
            chosen, to_head = sinks[-1], False
        else:
            chosen = max(sorted(remaining), key=lambda v: out_weight[v] - in_weight[v])
            to_head = True
        remaining.discard(chosen)
        (head if to_head else tail).append(chosen)
        for other in remaining:
            if gain[chosen][other]:
                in_weight[other] -= gain[chosen][other]
            if gain[other][chosen]:
                out_weight[other] -= gain[other][chosen]
    return head + tail[::-1]
