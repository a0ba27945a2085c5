"""The XML of our SVG documents, written by hand rather than by an SVG library: the one
number format, the escapes of user text, and a small element class whose bytes depend
only on its content (attributes sorted, empty values left out).

Guarantees: whatever a label holds, the document parses as XML and the text stays text.
"""
from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator

__all__ = ["Element", "clean_text", "fmt"]

#: Formatted numbers kept (``fmt``).
FORMATTED_NUMBERS_KEPT = 4096

# Everything XML 1.0 does not allow in a document: C0 controls other than tab, line
# feed and carriage return, lone surrogates, U+FFFE and U+FFFF. Listed, not written as
# the complement of what XML allows: that negated class takes re 20-50 ms to compile,
# paid by every `elrepo render` process.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean_text(text: str) -> str:
    """``text`` without the characters XML cannot hold, so user data can never make a
    document unparseable (escaping of ``<``, ``&`` and quotes is left to the
    serializer)."""
    return _NOT_XML.sub("", text)


@functools.lru_cache(maxsize=FORMATTED_NUMBERS_KEPT)
def fmt(value: float) -> str:
    """The one number format of the document: at most two decimals, no trailing zeros,
    never ``-0``; non-finite numbers are a layout bug and refused. Kept for the numbers
    last written: a drawing repeats its coordinates and sizes many times over."""
    if not math.isfinite(value):
        raise ValueError(f"non-finite coordinate {value!r}")
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


#: Character data: ``&``, ``<`` and ``>`` as entities, so user text stays text, ``>`` too
#: so that a ``]]>`` in a label is never markup. ``&`` goes first so the entities written
#: after it are not escaped twice.
_TEXT_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
#: An attribute value for ``name="..."``: the text escapes plus ``"``, and tab, LF and CR
#: as character references, which a parser keeps where it would turn the raw characters
#: into spaces (attribute-value normalization).
_ATTRIBUTE_ESCAPES = (*_TEXT_ESCAPES, ('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"),
                      ("\t", "&#09;"))


#: Whether a text or an attribute value holds anything to escape: one search, as most
#: hold nothing (numbers, colours, ids).
_TEXT_SPECIAL = re.compile("[&<>]")
_ATTRIBUTE_SPECIAL = re.compile('[&<>"\r\n\t]')


def _escaped(text: str, escapes: tuple[tuple[str, str], ...]) -> str:
    for raw, entity in escapes:
        if raw in text:
            text = text.replace(raw, entity)
    return text


def _escape_text(text: str) -> str:
    return _escaped(text, _TEXT_ESCAPES) if _TEXT_SPECIAL.search(text) else text


def _escape_attribute(value: str) -> str:
    return _escaped(value, _ATTRIBUTE_ESCAPES) if _ATTRIBUTE_SPECIAL.search(value) else value


class Element:
    """One XML element with its text and children. Attributes are written sorted by
    name, so the bytes do not depend on the order the code sets them in; an empty value
    means "not set" and is left out (a route without points writes no ``d``). These two
    rules, the escapes above and ``<tag />`` for an element without content are those
    of the svgwrite + ElementTree serializer this replaced: documents stay byte-identical
    to the ones rendered before, so caches and goldens remain valid."""

    __slots__ = ("tag", "attrs", "text", "children")

    def __init__(self, tag: str, attrs: dict[str, str], text: str = "") -> None:
        self.tag = tag
        self.attrs = attrs
        self.text = text
        self.children: list[Element] = []

    def add(self, child: Element) -> None:
        self.children.append(child)

    def texts(self) -> Iterator[str]:
        """The text of this element and of every element under it, in document order."""
        if self.text:
            yield self.text
        for child in self.children:
            yield from child.texts()

    def write(self, out: list[str]) -> None:
        """Append this element's markup to ``out`` (joined once at the end: cheaper than
        concatenating strings of a document that can reach tens of megabytes)."""
        out.append("<" + self.tag)
        for name, value in sorted(self.attrs.items()):
            if value:
                out.append(f' {name}="{_escape_attribute(value)}"')
        if not self.text and not self.children:
            out.append(" />")
            return
        out.append(">")
        if self.text:
            out.append(_escape_text(self.text))
        for child in self.children:
            child.write(out)
        out.append(f"</{self.tag}>")
