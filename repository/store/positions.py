"""Listing milestones: the key (sort name, id) of every `SPACING`-th element of an
unfiltered listing, kept per tenant, facet and view for one content generation.

Where an element stands in a listing of 100,000 is otherwise a count of every element
before it (`$pageSelectionKey`), and a deep `$page` an OFFSET past them: tens of
milliseconds on PostgreSQL however the index is read. With milestones both start from
the nearest milestone before: the count or the OFFSET covers fewer than `SPACING`
entries of the listing index. Reading them is one pass over the listing, paid by the
first request that needs them after each write in the tenant (the generation changes).

Milestones are only used by a statement that also reads the tenant's generation, in the
same snapshot: if a write came in between, that statement's answer is not used (the
caller rebuilds or counts the plain way), so a stale milestone never shifts a page.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from repository.lru import Lru

__all__ = ["KEPT_LISTINGS", "SPACING", "ListingKey", "ListingPositions", "Milestones"]

#: Elements from one milestone to the next: what a count or an OFFSET reads at most.
SPACING = 1000
#: Listings (tenant, facet, view) whose milestones a process keeps, least recent dropped.
KEPT_LISTINGS = 256

#: (tenant pk, facet, view)
ListingKey = tuple[int, str, str]


@dataclass(frozen=True)
class Milestones:
    """`keys[i]` is the listing key (sort name, id) of the element at position
    `i * spacing`, in the tenant's content `generation`; never empty."""

    generation: int
    spacing: int
    keys: list[tuple[str, str]]

    def before(self, key: tuple[str, str]) -> tuple[int, tuple[str, str]] | None:
        """The position and key of the last milestone before `key` (None if `key` is at
        or before the first element). Listing keys compare as Python strings do: sort
        names and ids are stored in code point order ("C" collation on PostgreSQL)."""
        passed = bisect.bisect_left(self.keys, key)  # milestones before `key`
        if passed == 0:
            return None
        return (passed - 1) * self.spacing, self.keys[passed - 1]

    def at_or_before(self, position: int) -> tuple[int, tuple[str, str]]:
        """The position and key of the last milestone at or before `position`."""
        index = min(position // self.spacing, len(self.keys) - 1)
        return index * self.spacing, self.keys[index]


class ListingPositions:
    """A process's milestones per listing, for every request of the app (thread-safe;
    repository/lru.py). Only the newest generation seen for a listing is kept."""

    def __init__(self, spacing: int = SPACING, kept: int = KEPT_LISTINGS) -> None:
        if spacing < 1:
            raise ValueError("milestone spacing must be at least 1")
        self.spacing = spacing
        self._milestones: Lru[ListingKey, Milestones] = Lru(kept)

    def get(self, listing: ListingKey) -> Milestones | None:
        return self._milestones.get(listing)

    def put(self, listing: ListingKey, milestones: Milestones) -> None:
        # A request that read before a write must not replace newer milestones.
        self._milestones.put(listing, milestones,
                             keeps=lambda held: held.generation > milestones.generation)
