"""The input rules on every text and number a request carries (docs/contract.md, "Limits
and robustness"), once: text holds only characters XML 1.0 can carry (no NUL or other C0
control but tab, line feed and carriage return, no lone surrogate, no U+FFFE or U+FFFF),
integers lie within 64-bit range and other numbers are finite. `load_json` applies them
to a whole body, `check_text` and the `parse_*` functions to path and query text;
`render_contract` turns the renderer's refusals (culture ids, content indices) into the
same 400. The shapes of bodies are `repository.wire`'s.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from renderer.contract import RenderInputError, culture_id
from renderer.markup import clean_text
from repository.errors import InvalidInput

MIN_INTEGER = -(2**63)
MAX_INTEGER = 2**63 - 1
PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_INTEGER = re.compile(r"-?[0-9]+")
# A body breaking a rule holds one of these in its raw text: controls and lone surrogates
# can only be written as escapes (`\u0001`, `\b`, `\f`, `\ud800`; a raw control is no
# JSON), U+FFFE and U+FFFF as escapes or in UTF-8; an integer out of range has 19 digits
# or more, a number too large for a double has them or a three-digit exponent. Only
# bodies holding one (rarely, by chance) pay for the exact walk, several times slower
# than parsing. Two expressions, each starting with a fixed byte, search several times
# faster than one alternation (10 MiB: 6 ms against 44 ms). Digits are folded to 0
# first: bytes.translate and `in` are much faster than a regular expression.
_RULE_BREAKING_ESCAPE = re.compile(
    rb"\\(?:u(?:00[01][0-9a-fA-F]|[dD][89a-fA-F]|[fF]{3}[eEfF])|[bf])")
_RAW_NONCHARACTER = re.compile(rb"\xef\xbf[\xbe\xbf]")  # U+FFFE, U+FFFF in UTF-8
_FOLD_NUMBERS = bytes.maketrans(b"123456789E-", b"000000000e+")
_RULE_BREAKING_NUMBERS = (b"0" * 19, b"e000", b"e+000")
_SHOWN_INPUT = 40  # characters of a refused input echoed in its message

def load_json(raw: bytes) -> Any:
    """A request body as JSON, every number and every string in it (keys included, at any
    depth) held to the input rules; 400 otherwise."""
    try:
        text = raw.decode("utf-8-sig")  # RFC 8259: UTF-8, a byte order mark tolerated
        document = json.loads(text, parse_constant=_json_constant)
    except RecursionError:
        raise InvalidInput("The body is nested too deeply") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        where = f" at line {error.lineno} column {error.colno}" if isinstance(
            error, json.JSONDecodeError) else ""
        raise InvalidInput(f"The body is not valid JSON{where}") from None
    except ValueError:  # int() refuses more than 4,300 digits
        raise _out_of_range("body") from None
    if _may_break_a_rule(raw):
        _check_json(document)
    return document


def _may_break_a_rule(raw: bytes) -> bool:
    folded = raw.translate(_FOLD_NUMBERS)
    return (_RULE_BREAKING_ESCAPE.search(raw) is not None
            or _RAW_NONCHARACTER.search(raw) is not None
            or any(pattern in folded for pattern in _RULE_BREAKING_NUMBERS))


def check_text(text: str, where: str) -> None:
    """Text must hold only what XML 1.0 can carry, refused (400) before any database sees
    it: NUL, which PostgreSQL cannot store, lone surrogates, which no encoding can, and
    the other C0 controls, U+FFFE and U+FFFF, which no SVG or BPMN document can. The
    rule is the drawings' own (`renderer.markup.clean_text`), so text stored since draws
    and exports as it is; older databases may hold such text, which the writers drop."""
    if _breaks_text_rule(text):
        raise InvalidInput(f"{where}: text must be valid Unicode without NUL or other control "
                           "characters (but tab, line feed and carriage return), lone "
                           "surrogates, U+FFFE or U+FFFF")


def _breaks_text_rule(text: str) -> bool:
    # re.sub answers its argument itself when nothing matched: then `!=` is one identity
    # check, and the whole test as cheap as a search.
    return clean_text(text) != text


def parse_integer(text: str, where: str) -> int:
    """A decimal integer in ASCII digits within 64-bit range, or 400."""
    if not _INTEGER.fullmatch(text):
        raise InvalidInput(f"{where} must be an integer, got {_shown(text)}")
    digits = text.lstrip("-").lstrip("0")
    # Length first: int() refuses very long digit strings with a ValueError of its own.
    if len(digits) > len(str(MAX_INTEGER)) or not MIN_INTEGER <= int(text) <= MAX_INTEGER:
        raise _out_of_range(where)
    return int(text)


def parse_finite(text: str, where: str) -> float:
    """A decimal number that is a finite double, or 400."""
    value = float(text)
    if not math.isfinite(value):
        raise _not_finite(where)
    return value


def parse_culture_id(text: str, where: str) -> int:
    """A culture id as text (an attribute key, a path or `$filter` segment): ASCII digits
    without a leading zero, 1..MAX_CULTURE_ID (it fits the 32-bit integer column that
    stores it on every database); 400 naming `where` otherwise."""
    with render_contract():
        return culture_id(text, where)


@contextmanager
def render_contract() -> Iterator[None]:
    """The renderer's refusal of content it could not draw, as a 400 with its message."""
    try:
        yield
    except RenderInputError as error:
        raise InvalidInput(str(error)) from None


# A place in a JSON document as a linked list (parent, key or index): cheap to extend
# for every node, spelled out only for a refusal.
_Place = tuple["_Place", str | int] | None


def _check_json(document: Any) -> None:
    """The input rules on every string, key and number of a parsed body, without
    recursion; the message names the first offender's place."""
    if not isinstance(document, (dict, list)):
        _check_scalar(document, None)
        return
    pending: list[tuple[dict[str, Any] | list[Any], _Place]] = [(document, None)]
    while pending:
        container, place = pending.pop()
        entries = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in entries:
            if isinstance(key, str) and _breaks_text_rule(key):
                check_text(key, f"a key in {_where(place)}")
            if isinstance(value, (dict, list)):
                pending.append((value, (place, key)))
            elif value is not None and not isinstance(value, bool):
                _check_scalar(value, (place, key))


def _check_scalar(value: str | int | float | None, place: _Place) -> None:
    if isinstance(value, str):
        check_text(value, _where(place))
    elif isinstance(value, int):
        if not MIN_INTEGER <= value <= MAX_INTEGER:
            raise _out_of_range(_where(place))
    elif isinstance(value, float) and not math.isfinite(value):
        raise _not_finite(_where(place))


def _where(place: _Place) -> str:
    """`body.elements[0].attributes.name.1033`; a key that is no plain name is quoted."""
    steps: list[str] = []
    while place is not None:
        place, step = place
        if isinstance(step, int):
            steps.append(f"[{step}]")
        elif PLAIN_NAME.match(step) or (step.isascii() and step.isdigit()):
            steps.append(f".{step[:_SHOWN_INPUT]}")
        else:
            steps.append(f"[{_shown(step)}]")
    return "body" + "".join(reversed(steps))


def _json_constant(text: str) -> NoReturn:
    """NaN and Infinity, which Python's parser accepts and JSON does not have."""
    raise _not_finite("body")


def _out_of_range(where: str) -> InvalidInput:
    return InvalidInput(f"{where}: integers must lie within {MIN_INTEGER}..{MAX_INTEGER}")


def _not_finite(where: str) -> InvalidInput:
    return InvalidInput(f"{where}: numbers must be finite")


def _shown(text: str) -> str:
    """A refused input as its message shows it: quoted, cut short, escapes visible."""
    if len(text) > _SHOWN_INPUT:
        return repr(text[:_SHOWN_INPUT]) + f"... ({len(text):,} characters)"
    return repr(text)
