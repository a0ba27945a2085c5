"""Batched reads: the rows of many keys in a few statements, never one per key.

`chunked_rows` asks for at most `IN_CHUNK` keys per statement (backends cap the
parameters of one statement). A `Batch` is a per-version loader (attributes, names,
links, children) as a query plus a fold of each key's rows; repository/store/plain.py
runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, TypeVarTuple

from sqlalchemy import Row, Select, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from repository.jsonio import decode
from repository.store.models import AttributeValue, Child, RelatedLink
from repository.store.values import Link
from repository.wire import AttributeMap

# Values per IN list: far below every backend's cap on the parameters of one statement.
IN_CHUNK = 1000
_Columns = TypeVarTuple("_Columns")
Value = TypeVar("Value")
Second = TypeVar("Second")


def chunked_rows(session: Session, query: Select[*_Columns],
                 column: InstrumentedAttribute[Any],
                 values: Iterable[Any]) -> Iterator[Row[*_Columns]]:
    """The rows of `query` whose `column` is one of `values` (each asked once), at most
    IN_CHUNK values per statement."""
    wanted = list(dict.fromkeys(values))
    for start in range(0, len(wanted), IN_CHUNK):
        yield from session.execute(query.where(column.in_(wanted[start:start + IN_CHUNK])))


@dataclass(frozen=True, slots=True)
class Batch(Generic[Value, *_Columns]):
    """A read of many keys at once: `query`'s first column is `key`; the rows of one key,
    in the query's order, fold into that key's value."""

    query: Select[int, *_Columns]
    key: InstrumentedAttribute[int]
    fold: Callable[[list[Row[int, *_Columns]]], Value]


def _attribute_map(rows: list[Row[int, str, int, str]]) -> AttributeMap:
    values: AttributeMap = {}
    for _, name, culture, value_json in rows:
        values.setdefault(name, {})[culture] = decode(value_json)
    return values


def _per_culture(rows: list[Row[int, int, str]]) -> dict[int, Any]:
    return {culture: decode(value_json) for _, culture, value_json in rows}


def _per_context(rows: list[Row[int, str, int, int | None]]) -> dict[str, list[Link]]:
    links: dict[str, list[Link]] = {}
    for _, context, target_pk, target_version_pk in rows:
        links.setdefault(context, []).append(Link(context, target_pk, target_version_pk))
    return links


def _second_column(rows: list[Row[int, Second]]) -> list[Second]:
    return [row[1] for row in rows]


# By version pk: every attribute by name and culture.
ATTRIBUTES: Batch[AttributeMap, str, int, str] = Batch(
    select(AttributeValue.version_pk, AttributeValue.name, AttributeValue.culture,
           AttributeValue.value_json).order_by(AttributeValue.name, AttributeValue.culture),
    AttributeValue.version_pk, _attribute_map)
# By version pk: the `name` attribute by culture.
NAMES: Batch[dict[int, Any], int, str] = Batch(
    select(AttributeValue.version_pk, AttributeValue.culture, AttributeValue.value_json)
    .where(AttributeValue.name == "name"), AttributeValue.version_pk, _per_culture)
# By version pk: the related links by context, in order.
LINKS: Batch[dict[str, list[Link]], str, int, int | None] = Batch(
    select(RelatedLink.version_pk, RelatedLink.context, RelatedLink.target_pk,
           RelatedLink.target_version_pk).order_by(RelatedLink.context, RelatedLink.position),
    RelatedLink.version_pk, _per_context)
# By version pk: the child element pks, in order.
CHILDREN: Batch[list[int], int] = Batch(
    select(Child.version_pk, Child.child_pk).order_by(Child.version_pk, Child.position),
    Child.version_pk, _second_column)
