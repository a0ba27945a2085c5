"""Plain values the store writes and reads: timestamps, ids, encoded attribute values,
listing names, and the shapes of rows handed back (no database access here)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement

from repository import catalog

NEUTRAL = catalog.NEUTRAL
OPEN_ENDED = "9999-12-31T23:59:59"
SORT_NAME_LENGTH = 512


def now_timestamp() -> str:
    """ISO 8601 local form without offset (UTC wall clock), seconds precision."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")


def new_id() -> str:
    return str(uuid.uuid4())


def encode_value(value: Any) -> tuple[str, str, float | None]:
    """(exact JSON, comparable text, comparable number) of an attribute value."""
    exact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return exact, "true" if value else "false", None
    if isinstance(value, (int, float)):
        return exact, exact, float(value)
    if isinstance(value, str):
        return exact, value, None
    return exact, exact, None


def sort_key(names: dict[int, Any], default_culture: int) -> str:
    """The listing order: the name in the default culture (with label fallback), folded."""
    return label(names, default_culture, default_culture).lower()[:SORT_NAME_LENGTH]


def label(values: dict[int, Any], culture: int, default_culture: int) -> str:
    """Requested culture, then neutral, then the tenant default, then any (docs/contract.md, "Wire conventions")."""
    for key in (culture, NEUTRAL, default_culture):
        if values.get(key) not in (None, ""):
            return str(values[key])
    return next((str(v) for v in values.values() if v not in (None, "")), "")


def attribute_row(version_pk: int, name: str, culture: int, value: Any) -> dict[str, Any]:
    return {"version_pk": version_pk, "name": name, "culture": culture, **encoded(value)}


def encoded(value: Any) -> dict[str, Any]:
    exact, text, number = encode_value(value)
    return {"value_json": exact, "value_text": text, "value_num": number}


def link_rows(version_pk: int, context: str, target_pks: Sequence[int],
              target_version_pks: Sequence[int | None] | None = None) -> list[dict[str, Any]]:
    versions = target_version_pks or [None] * len(target_pks)
    return [{"version_pk": version_pk, "context": context, "position": i, "target_pk": pk,
             "target_version_pk": version_pk_of_target}
            for i, (pk, version_pk_of_target) in enumerate(zip(target_pks, versions,
                                                                strict=True))]


class Link(NamedTuple):
    """One related link as read (plain values, so bulk writes never leave stale ORM
    objects behind)."""

    context: str
    target_pk: int
    target_version_pk: int | None


@dataclass(frozen=True, slots=True)
class PageRequest:
    facet: str
    view: str
    condition: ColumnElement[bool] | None
    page: int
    page_size: int
