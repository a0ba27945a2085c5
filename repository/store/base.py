"""What every part of `Store` works over (`StoreContext`): the session and tenant, the
plain-row statements, id → pk lookups and the bulk inserts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Result, Table, insert, select
from sqlalchemy.orm import Session

from repository.errors import InvalidInput
from repository.store import batch
from repository.store.batch import chunked_rows
from repository.store.changes import Change, record_changes
from repository.store.db import qualified_name, refusing_when_busy
from repository.store.models import Base, Element, Tenant
from repository.store.plain import KEYS, AnyRow, AnySelect, Prepared
from repository.store.positions import ListingPositions

if TYPE_CHECKING:
    import psycopg

# Rows from which PostgreSQL gets COPY instead of INSERT (`StoreContext.insert`).
COPY_FROM = 100


def table_of(model: type[Base]) -> Table:
    return Base.metadata.tables[model.__tablename__]


def pks_of(found: dict[str, int], ids: Sequence[str], where: str) -> list[int]:
    """The pks of `ids` from a lookup, or 400 naming the ones that do not exist."""
    missing = [i for i in ids if i not in found]
    if missing:
        raise InvalidInput(f"{where}: unknown element id(s) {', '.join(map(repr, missing))}")
    return [found[i] for i in ids]


def current_version_pk(element: Element) -> int:
    assert element.current_version_pk is not None, "every element has a version"
    return element.current_version_pk


class StoreContext:
    """What every part of `Store` works over: one tenant in one session, the listing
    milestones of the process, and the statements every part runs through them (plain
    rows, id → pk lookups, bulk inserts). The store never commits: the caller owns the
    transaction (one per request)."""

    def __init__(self, session: Session, tenant: Tenant,
                 positions: ListingPositions | None = None) -> None:
        """`positions`: the listing milestones this process keeps (the app's, shared by
        its requests); by default the store's own."""
        self.session = session
        self.tenant = tenant
        self.positions = positions if positions is not None else ListingPositions()

    def rows(self, query: AnySelect, **parameters: Any) -> Result[*tuple[Any, ...]]:
        """`query`'s rows straight from the session's connection, after what the session's
        own execute does first: flushing pending changes (a write answers with what it
        wrote)."""
        self.session.flush()
        return self.session.connection().execute(query, parameters)

    def rows_of(self, query: AnySelect, keys: Iterable[Any]) -> list[AnyRow]:
        """The rows of a `keyed` query (repository/store/plain.py) for these keys (each
        asked once), at most batch.IN_CHUNK per statement (backends cap the parameters of
        one)."""
        wanted = list(dict.fromkeys(keys))
        chunk = batch.IN_CHUNK
        return [row for start in range(0, len(wanted), chunk)
                for row in self.rows(query, **{KEYS: wanted[start:start + chunk]}).all()]

    def load(self, prepared: Prepared, keys: Iterable[int]) -> dict[int, Any]:
        """Each key's folded rows (a key without rows folds an empty list), in key order."""
        rows_of: dict[int, list[AnyRow]] = {key: [] for key in keys}
        for row in self.rows_of(prepared.query, rows_of):
            rows_of[row[0]].append(row)
        return {key: prepared.fold(rows) for key, rows in rows_of.items()}

    def record(self, changes: Sequence[Change]) -> None:
        """The change feed's events of this write, in its transaction
        (repository/store/changes.py)."""
        record_changes(self.session, self.tenant.pk, changes)

    def pks_by_id(self, ids: Iterable[str]) -> dict[str, int]:
        """Pks of the tenant's elements with these ids (the ones that exist)."""
        query = select(Element.id, Element.pk).where(Element.tenant_pk == self.tenant.pk)
        return {element_id: pk
                for element_id, pk in chunked_rows(self.session, query, Element.id, ids)}

    def existing_pks(self, ids: Sequence[str], where: str) -> list[int]:
        return pks_of(self.pks_by_id(ids), ids, where)

    def insert(self, model: type[Base], rows: list[dict[str, Any]]) -> None:
        """Rows that all have the same keys, nothing loaded back: PostgreSQL's COPY for
        many (half the CPU of an executemany, on both ends), else one executemany. Core,
        not the ORM's bulk insert: the rows are complete, and per-row ORM work costs more
        than the statement itself."""
        if not rows:
            return
        connection = self.session.connection()
        if connection.dialect.name != "postgresql" or len(rows) < COPY_FROM:
            self.session.execute(insert(table_of(model)), rows)
            return
        columns = list(rows[0])
        preparer = connection.dialect.identifier_preparer
        command = (f"COPY {qualified_name(connection, table_of(model))} "
                   f"({', '.join(preparer.quote(column) for column in columns)}) FROM STDIN")
        driver = cast("psycopg.Connection[Any]", connection.connection.dbapi_connection)
        with refusing_when_busy(), driver.cursor() as cursor, cursor.copy(command) as copy:
            for row in rows:
                copy.write_row([row[column] for column in columns])

    def insert_returning_pks(self, model: type[Base], rows: list[dict[str, Any]],
                             key: str) -> list[int]:
        """One bulk INSERT (multi-row VALUES batches) answering the new pks in row order,
        matched through `key`, a column unique among the rows (asking the database to
        keep the order would make SQLite insert row by row)."""
        table = table_of(model)
        pks = {value: pk for value, pk in self.session.execute(
            insert(table).returning(table.c[key], table.c.pk), rows)}
        return [pks[row[key]] for row in rows]
