"""XML ids unique in one BPMN document."""
from __future__ import annotations

import re
from collections.abc import Iterable

_NOT_NCNAME = re.compile(r"[^A-Za-z0-9_.-]")


class UniqueIds:
    """Hands out ids no other element of the document has: a wanted id as it is while it
    is free, else with ``_2``, ``_3``... appended; ``used`` are the ids already taken."""

    def __init__(self, used: Iterable[str] = ()) -> None:
        self.used = set(used)

    def new(self, base: str) -> str:
        """``base`` (a valid id) or the first free numbered variant."""
        candidate, counter = base, 1
        while candidate in self.used:
            counter += 1
            candidate = f"{base}_{counter}"
        self.used.add(candidate)
        return candidate

    def claim(self, wanted: str) -> bool:
        """Takes ``wanted`` if it is a usable id no one has taken; whether it did."""
        if not (wanted and is_ncname(wanted) and wanted not in self.used):
            return False
        self.used.add(wanted)
        return True

    def take(self, kept: str | None, fallback: str) -> str:
        """``kept`` when it is a usable id no one has taken, else a new id from ``fallback``
        (any text: what an id cannot hold becomes ``_``)."""
        if kept and self.claim(kept):
            return kept
        base = _NOT_NCNAME.sub("_", fallback)
        return self.new(base if is_ncname(base) else f"_{base}")


def is_ncname(text: str) -> bool:
    """Whether ``text`` can be an XML id as we write them (ASCII NCName)."""
    return _NOT_NCNAME.search(text) is None and (text[:1].isalpha() or text[:1] == "_")
