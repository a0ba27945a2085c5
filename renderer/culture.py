"""Which culture's text a render shows: the requested culture and the one fallback.

Culture ids are integers everywhere in the engine (`renderer.api.render` normalizes what
its caller passes). A localized text is looked up in the requested culture, then the
language-neutral culture, then the default culture, then the first value there is
(docs/contract.md, "Wire conventions"); `Cultures.pick` is that rule, for the fixture's
attributes and the engine's own words alike.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["DEFAULT_CULTURE", "ENGLISH", "GERMAN", "LANGUAGE_NEUTRAL", "Cultures", "german_english", "text_keyed"]

LANGUAGE_NEUTRAL = 127
GERMAN = 1031
ENGLISH = 1033
#: The default culture of a render whose caller names none (`elrepo render`); the
#: service passes its tenant's.
DEFAULT_CULTURE = ENGLISH

Text = TypeVar("Text")


def german_english(german: str, english: str) -> dict[int, str]:
    """A text of the project's own (a type's, a context's, a button's name) in the two
    cultures it is written in, German first: every table of display names, in
    ``renderer/`` and ``repository/`` alike, is built with this."""
    return {GERMAN: german, ENGLISH: english}


def text_keyed(values: Mapping[int, Text]) -> dict[str, Text]:
    """``values`` (culture id → value) with the ids as text, in the same order: the wire
    form of a culture map (a JSON object's keys are text), as the API, the viewer and
    the diagram fixture write it."""
    return {str(culture): value for culture, value in values.items()}


@dataclass(frozen=True, slots=True)
class Cultures:
    """The culture a render asks for and the default culture its texts fall back to."""

    requested: int
    default: int

    def pick(self, values: Mapping[int, Text]) -> Text | None:
        """The value of `values` (culture id → text) this render shows; empty text counts
        as missing. "The first value there is" is the first in the mapping's order."""
        culture = self.source(values)
        return None if culture is None else values[culture]

    def source(self, values: Mapping[int, Text]) -> int | None:
        """The culture whose value of `values` `pick` shows (None: no value at all): the
        language a text is written in, which its hyphenation follows."""
        for culture in (self.requested, LANGUAGE_NEUTRAL, self.default):
            if values.get(culture) not in (None, ""):
                return culture
        return next((culture for culture, value in values.items() if value not in (None, "")), None)
