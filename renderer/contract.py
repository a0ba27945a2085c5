"""The render contract: the rules a list of shapes must keep to be drawn, checked once.

A content-create body and a diagram fixture share their `values` (docs/contract.md,
"Diagrams" and "Diagram fixture format"): each item's `shapeInfo.index` is its index
within the list, 0 … n−1, each once; `shapeInfo.predecessors` are indices of other items
of the same list; an item's `element` names an existing element (`id`) or describes a
new one (`type`). The renderer reads fixtures with these functions, and the service
checks request bodies with the same ones, so what the service stores is what the
renderer draws, refused with the same message.

Culture ids are part of the contract too: numeric ids, passed as integers or digit text.

Every refusal is a `RenderInputError` whose message is one line a user can act on and
names where the problem is (`values[3].shapeInfo.index`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

__all__ = [
    "MAX_CULTURE_ID",
    "MAX_SHAPES",
    "SERVER_ATTRIBUTES",
    "SERVER_RELATED",
    "RenderInputError",
    "UnknownLayoutError",
    "check_element_reference",
    "check_shape_links",
    "culture_id",
    "shape_links",
]

#: Related contexts the server writes itself, never a client (docs/contract.md): who
#: created, changed or released an element, and its release history. The store keeps
#: them out of a client's writes; a drawing and a comparison leave them out, as they are
#: bookkeeping, no part of the model.
SERVER_RELATED = frozenset({"createdBy", "changedBy", "relBy", "releaseHistory"})
#: Attributes only the server writes, always under the neutral culture (docs/contract.md,
#: "Details clients rely on"): bookkeeping of a write or a release, which the store keeps
#: out of a client's writes and a comparison does not count as a change of the model.
SERVER_ATTRIBUTES = frozenset({
    "createdOn", "changedOn", "version", "validFrom", "validUntil", "isReleased", "relOn",
    "state1", "releaseComment",
})
#: Shapes of one diagram (and items of one content-create request).
MAX_SHAPES = 5000
#: Culture ids are Windows LCIDs; every one fits a 32-bit integer.
MAX_CULTURE_ID = 2**31 - 1
_SHOWN_INPUT = 40  # characters of a refused input echoed in its message


class RenderInputError(ValueError):
    """The diagram or the request cannot be rendered; the message is user-facing."""


class UnknownLayoutError(RenderInputError):
    """The layout key is not one the engine draws."""


def shape_links(info: Mapping[str, Any], where: str) -> tuple[int, tuple[int, ...]]:
    """An item's `shapeInfo` index and predecessors (in the order given, repeats kept);
    `where` names the item (`values[3]`)."""
    index = info.get("index")
    if not _is_int(index):
        raise RenderInputError(f"{where}.shapeInfo.index must be an integer")
    predecessors = info.get("predecessors") or []
    if not isinstance(predecessors, list) or not all(_is_int(p) for p in predecessors):
        raise RenderInputError(f"{where}.shapeInfo.predecessors must be a list of integers")
    return index, tuple(predecessors)


def check_shape_links(links: Sequence[tuple[int, Sequence[int]]]) -> None:
    """The items' (index, predecessors) in list order: indices 0 … n−1, each once, and
    every predecessor another item's index."""
    last = len(links) - 1
    position_of: dict[int, int] = {}
    for position, (index, _) in enumerate(links):
        if not 0 <= index <= last:
            raise RenderInputError(f"values[{position}].shapeInfo.index {index} is out of "
                                   f"range 0..{last}")
        if index in position_of:
            raise RenderInputError(f"values[{position}].shapeInfo.index {index} is already "
                                   f"the index of values[{position_of[index]}]")
        position_of[index] = position
    for position, (index, predecessors) in enumerate(links):
        for predecessor in predecessors:
            if predecessor == index:
                raise RenderInputError(f"values[{position}]: shape {index} names itself as "
                                       "its predecessor")
            if predecessor not in position_of:
                raise RenderInputError(f"values[{position}]: predecessor {predecessor} of "
                                       f"shape {index} is not an index of the list "
                                       f"(0..{last})")


def check_element_reference(element_id: str | None, type_key: str | None, where: str) -> None:
    """An item's element names an existing element, describes a new one, or both."""
    if element_id is None and type_key is None:
        raise RenderInputError(f"{where}.element needs either an id or a type")


def culture_id(value: Any, where: str) -> int:
    """A culture id given as an integer or as ASCII digits without a leading zero (a JSON
    key, a path segment), 1 … MAX_CULTURE_ID; `where` names its place in the message."""
    number: Any = value
    if isinstance(value, str):
        digits = value.isascii() and value.isdigit() and not value.startswith("0")
        # Length first: int() refuses very long digit strings with an error of its own.
        number = int(value) if digits and len(value) <= len(str(MAX_CULTURE_ID)) else None
    if not _is_int(number) or not 1 <= number <= MAX_CULTURE_ID:
        raise RenderInputError(f"{where}: culture {_shown(value)} must be a culture id "
                               f"1..{MAX_CULTURE_ID} in ASCII digits, such as 1031, 1033 "
                               "or 127")
    return number


def _shown(value: Any) -> str:
    """A refused input as a message shows it: quoted, cut short, escapes visible."""
    text = repr(value)
    return text if len(text) <= _SHOWN_INPUT else f"{text[:_SHOWN_INPUT]}... ({len(text):,} characters)"


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
