"""JSON through orjson, for the hot paths (listing pages, stored attribute values), with
the standard library for what orjson refuses: integers beyond 64 bits (JSON allows them)
and the types Flask's default JSON provider converts (dates as HTTP dates, decimals,
UUIDs, objects with `__html__`). No Flask here: the store decodes with it too.
"""

from __future__ import annotations

import dataclasses
import decimal
import json
import uuid
from datetime import date
from typing import Any

import orjson

__all__ = ["decode", "encode"]

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


def _default(value: Any) -> Any:
    """Flask's conversions for what JSON has no type for."""
    if isinstance(value, date):
        from werkzeug.http import http_date  # here: the store's CLI paths never need it

        return http_date(value)
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "__html__"):
        return str(value.__html__())
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def encode(value: Any) -> bytes:
    """Compact JSON as UTF-8."""
    try:
        return orjson.dumps(value, default=_default, option=_OPTIONS)
    except orjson.JSONEncodeError:  # e.g. an integer beyond 64 bits, which JSON allows
        return json.dumps(value, default=_default, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8")


def decode(text: str | bytes) -> Any:
    """JSON text → value; integers beyond 64 bits (which orjson refuses) included."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
