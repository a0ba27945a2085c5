"""Reads as plain rows: what responses show (pages, references, the per-version batches
of repository/store/batch.py) is read on the session's connection as named tuples, each
batch through one statement built once with its keys as an expanding parameter.

Why: a listing page of 100 reads about 1,400 rows, and mapped objects, the ORM's per-row
work and coercing every key of an `in_` list anew cost more than the statements do
(docs/performance-service.md, "Hot paths under load").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from sqlalchemy import Row, Select, bindparam, select
from sqlalchemy.orm import InstrumentedAttribute

from repository.store import batch
from repository.store.models import Element, ElementVersion, Shape

KEYS = "keys"
AnySelect = Select[*tuple[Any, ...]]
AnyRow = Row[*tuple[Any, ...]]


class ElementRef(NamedTuple):
    """What a response names of an element it refers to."""

    pk: int
    id: str
    facet: str
    type: str
    versioned: bool
    current_version_pk: int | None


class VersionRef(NamedTuple):
    """What a response names of a version."""

    pk: int
    version_id: str
    state: str | None


class ListedElement(NamedTuple):
    """An element of a listing page and what a response names of its newest version."""

    pk: int
    id: str
    facet: str
    type: str
    versioned: bool
    current_version_pk: int
    version_id: str
    state: str | None  # the newest version's

    @property
    def version(self) -> VersionRef:
        return VersionRef(self.current_version_pk, self.version_id, self.state)


class ShapeRow(NamedTuple):
    """One shape of a version's content, as responses and fixtures read it."""

    shape_id: str
    element_pk: int
    predecessors: str  # JSON list of shape ids


ELEMENT_REF_COLUMNS = (Element.pk, Element.id, Element.facet, Element.type, Element.versioned,
                       Element.current_version_pk)
VERSION_REF_COLUMNS = (ElementVersion.pk, ElementVersion.version_id, ElementVersion.state)


def keyed(query: AnySelect, key: InstrumentedAttribute[Any]) -> AnySelect:
    """`query` for the keys given when it runs (parameter `KEYS`): built and compiled
    once, where `in_` with a list coerces every key anew on each call."""
    return query.where(key.in_(bindparam(KEYS, expanding=True)))


def _fold_shapes(rows: list[AnyRow]) -> list[ShapeRow]:
    return [ShapeRow(*row[1:]) for row in rows]


class Prepared(NamedTuple):
    """A batch (repository/store/batch.py) with its keys as the parameter `KEYS`: the rows
    of one key, in the query's order, fold into that key's value."""

    query: AnySelect
    fold: Callable[[list[AnyRow]], Any]


def _prepared(loader: batch.Batch[Any, *tuple[Any, ...]]) -> Prepared:
    return Prepared(keyed(loader.query, loader.key), loader.fold)


ATTRIBUTES = _prepared(batch.ATTRIBUTES)
NAMES = _prepared(batch.NAMES)
LINKS = _prepared(batch.LINKS)
CHILDREN = _prepared(batch.CHILDREN)
# Shapes as the three columns responses and fixtures read, not mapped objects.
SHAPES = Prepared(keyed(select(Shape.version_pk, Shape.shape_id, Shape.element_pk,
                               Shape.predecessors).order_by(Shape.version_pk, Shape.position),
                        Shape.version_pk), _fold_shapes)
ELEMENT_REFS = keyed(select(*ELEMENT_REF_COLUMNS), Element.pk)
VERSION_REFS = keyed(select(*VERSION_REF_COLUMNS), ElementVersion.pk)
