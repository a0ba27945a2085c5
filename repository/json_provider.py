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


class OrjsonProvider(JSONProvider):
    """`app.json = OrjsonProvider(app)`."""

    mimetype = "application/json"

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return encode(obj).decode("utf-8")

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return decode(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        body = encode(self._prepare_response_obj(args, kwargs)) + b"\n"
        return Response(body, mimetype=self.mimetype)
