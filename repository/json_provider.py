"""Flask's JSON through orjson (`repository/jsonio.py`): listing pages are the service's
largest answers, and orjson encodes them several times faster than the standard library.

The output is the JSON Flask's default provider writes, compact, keys in insertion order,
ending in a newline, except that text is UTF-8 rather than `\\u` escapes (both are the
same JSON to every parser).
"""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.json.provider import JSONProvider

from repository.jsonio import decode, encode


def json_body(obj: Any) -> bytes:
    """The bytes of a JSON answer."""
    return encode(obj) + b"\n"


class OrjsonProvider(JSONProvider):
    """`app.json = OrjsonProvider(app)`."""

    mimetype = "application/json"

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return encode(obj).decode("utf-8")

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return decode(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        return Response(json_body(self._prepare_response_obj(args, kwargs)),
                        mimetype=self.mimetype)
