"""Edge routing between two layers: a vertical track (slot) per edge segment.

Expects the segments of one channel, each joining an order position on the channel's
left layer to one on its right layer. Guarantees: two segments whose vertical parts
would overlap never share a slot (parallel edges stay apart), and slots are ordered to
avoid the crossings their order decides: placing ``a`` before ``b`` costs a crossing when
``a`` leaves the channel inside ``b``'s span, or ``b`` enters it inside ``a``'s. Pairwise
preferences become an order by a greedy feedback-arc heuristic (Eades, Lin, Smyth), as
in ELK's orthogonal router.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

EPS = 1e-6


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


def _cost_before(a: ChannelSegment, b: ChannelSegment) -> int:
    """Crossings caused by giving ``a`` a slot left of ``b``."""
    return int(_inside(a.right, b)) + int(_inside(b.left, a))


def _conflict(a: ChannelSegment, b: ChannelSegment) -> bool:
    """Would the vertical parts touch if they shared a slot? Meeting only at a common
    port on the same side (a fork or a merge) is fine."""
    if a.low > b.high + EPS or b.low > a.high + EPS:
        return False
    if abs(a.high - b.low) < EPS or abs(b.high - a.low) < EPS:
        contact = a.high if abs(a.high - b.low) < EPS else a.low
        same_left = abs(a.left - contact) < EPS and abs(b.left - contact) < EPS
        same_right = abs(a.right - contact) < EPS and abs(b.right - contact) < EPS
        return not (same_left or same_right)
    return True


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
            ab = _cost_before(segments[a], segments[b])
            ba = _cost_before(segments[b], segments[a])
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
