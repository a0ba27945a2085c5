"""/openapi.json is exactly as strict as the server (issue 18): for edge values of each
parameter and body field, the document's schema accepts a value if and only if the
server's own check does. schemathesis (tests/repository/test_schemathesis.py) finds the
same against a live server; these name each rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from repository.api import parameters
from repository.errors import RepositoryError
from repository.input_rules import check_text, load_json, parse_culture_id
from repository.openapi import document
from repository.store.filters import compile_filter
from repository.wire import parse_content_body, parse_update_body


def accepted_by_server(check: Callable[[Any], object], value: Any) -> bool:
    try:
        check(value)
    except RepositoryError:
        return False
    return True


def accepted_by_document(schema: dict[str, Any], value: Any) -> bool:
    root = {**schema, "components": document()["components"]}
    return jsonschema.Draft202012Validator(
        root, format_checker=None).is_valid(value)


CULTURES = ["0", "1", "01", "1033", "127", "2147483647", "2147483648", "9999999999",
            "21474836470", "-1", "+1", " 1", "1 ", "1.0", "1e3", "\u0661\u0662", ""]


@pytest.mark.parametrize("culture", CULTURES)
def test_a_culture_id_in_a_path_is_documented_as_the_server_reads_it(culture: str) -> None:
    schema = parameters.PATH["culture_id"].schema
    assert accepted_by_document(schema, culture) is accepted_by_server(
        lambda text: parse_culture_id(text, "cultureId"), culture)


FILTERS = ["", " ", "name eq 'x'", "x", "id -eq 'a'", "x" * 8001,
           "name eq '" + "x" * 7985 + "'"]


@pytest.mark.parametrize("text", FILTERS, ids=range(len(FILTERS)))
def test_filter_length_is_documented(text: str) -> None:
    """Length is the document's rule; the grammar is its format (docs/service.md)."""
    schema = parameters.FILTER.schema
    assert schema["format"] == parameters.FILTER_FORMAT
    if accepted_by_server(compile_filter, text):
        assert accepted_by_document(schema, text)
    elif not 1 <= len(text) <= schema["maxLength"]:
        assert not accepted_by_document(schema, text)


RESOURCES = ["", "attributes", "attributes,related", " attributes , children ", ",,",
             "attributes,", "Attributes", "attributes;related", "nope", "attributes,nope",
             "\u00a0attributes\u3000", "\x1cattributes", "attributes\x00"]


@pytest.mark.parametrize("value", RESOURCES)
def test_resources_are_documented_as_the_server_reads_them(value: str) -> None:
    from repository.serialize import RESOURCES as NAMES

    def server(text: str) -> None:
        check_text(text, "$resources")
        if not {p.strip() for p in text.split(",") if p.strip()} <= NAMES:
            raise RepositoryError("refused")
    assert accepted_by_document(parameters.RESOURCES.schema, value) is accepted_by_server(
        server, value)


IF_MATCH = ["*", ' * ', '"7"', 'W/"7"', '"7", "8"', '"7",W/"x"', "", "7", '"a b"', '"7"x',
            '"7",', "**"]


@pytest.mark.parametrize("value", IF_MATCH)
def test_if_match_is_documented_as_the_server_reads_it(value: str) -> None:
    from flask import Flask

    from repository.api.common import if_match

    def server(header: str) -> None:
        with Flask(__name__).test_request_context(headers={"If-Match": header}):
            if_match()
    assert accepted_by_document(parameters.IF_MATCH.schema, value) is accepted_by_server(
        server, value)


@pytest.mark.parametrize("value", ["true", "false", "TRUE", "False", "", "1", "yes"])
def test_ignore_warnings_is_documented_as_the_server_reads_it(value: str) -> None:
    def server(text: str) -> None:
        if text.lower() not in ("true", "false"):
            raise RepositoryError("refused")
    assert accepted_by_document(parameters.IGNORE_WARNINGS.schema, value) is (
        accepted_by_server(server, value))


def element(**fields: Any) -> dict[str, Any]:
    return {"elements": [fields]}


UPDATES: list[Any] = [
    element(type="process"),
    element(type="not a name"),
    element(type=None, id="x"),
    element(id=""),
    element(id="x" * 65),
    element(id="x" * 64),
    element(attributes={"name": {"1033": "x"}}),
    element(attributes={"name": {"0": "x"}}),
    element(attributes={"name": {"01": "x"}}),
    element(attributes={"name": {"2147483648": "x"}}),
    element(attributes={"bad name": {"1033": "x"}}),
    element(attributes={"name": {"1033": "x" * 100_001}}),
    element(attributes={"name": {"1033": 2**63}}),
    element(attributes={"name": {"1033": -(2**63)}}),
    element(attributes={"name": {"1033": 1.5}}),
    element(attributes={"name": {"1033": {"a": 1}}}),
    element(attributes={"name": {"1033": [{"file": "a"}, "b"]}}),
    element(attributes={"name": {"1033": [1]}}),
    element(attributes={"name": {"1033": "nul\x00"}}),
    element(related={"executedBy": [{"id": "x"}]}),
    element(related={"executedBy": [{}]}),
    element(related={"executedBy": {"id": "x"}}),
    element(children=[{"id": "x"}]),
    element(content=[{"shapeId": "s"}, {"id": "e", "predecessors": ["s"]}]),
    element(content=[{}]),
    element(content=[{"shapeId": None, "id": None}]),
    element(content=[{"id": "e", "predecessors": [1]}]),
    {"elements": [], "other": "nul\x00"},
    {"elements": [], "other": {"deep": ["x", 2**63]}},
    {"elements": [], "nul\x00": 1},
    {"elements": [{"id": "x", "nul\x00": 1}]},
    {"elements": [1]},
    {"elements": {}},
    {},
    [],
]


@pytest.mark.parametrize("body", UPDATES, ids=range(len(UPDATES)))
def test_an_update_body_is_documented_as_the_server_reads_it(body: Any) -> None:
    schema = document()["components"]["schemas"]["UpdateBody"]
    assert accepted_by_document(schema, body) is accepted_by_server(
        lambda raw: parse_update_body(load_json(_json(raw))), body)


def item(index: int, **fields: Any) -> dict[str, Any]:
    return {"shapeInfo": {"index": index, **fields.pop("info", {})}, **fields}


CONTENTS: list[Any] = [
    {"values": []},
    {"values": [item(0, element={"type": "task"})]},
    {"values": [item(0, element={"id": "x"})]},
    {"values": [item(0, element={})]},
    {"values": [item(0)]},
    {"values": [item(0, element=None)]},
    {"values": [item(0, info={"id": "s"})]},
    {"values": [item(0, info={"id": "s"}, element={"type": "task"})]},
    {"values": [item(0, info={"id": "s"}, element=None)]},
    {"values": [item(0, info={"predecessors": 0}, element={"type": "task"})]},
    {"values": [item(0, info={"predecessors": ""}, element={"type": "task"})]},
    {"values": [item(0, info={"predecessors": "x"}, element={"type": "task"})]},
    {"values": [item(0, info={"predecessors": [True]}, element={"type": "task"})]},
    {"values": [item(0, element={"type": "task", "related": []})]},
    {"values": [item(0, element={"type": "task", "related": "x"})]},
    {"values": [item(0, element={"type": "task", "attributes": []})]},
    {"values": [item(True, element={"type": "task"})]},
    {"values": [{"shapeInfo": {}, "element": {"type": "task"}}]},
]


@pytest.mark.parametrize("body", CONTENTS, ids=range(len(CONTENTS)))
def test_a_content_body_is_documented_as_the_server_reads_it(body: Any) -> None:
    schema = document()["components"]["schemas"]["ContentBody"]
    assert accepted_by_document(schema, body) is accepted_by_server(
        lambda raw: parse_content_body(load_json(_json(raw))), body)


def _json(value: Any) -> bytes:
    import json
    return json.dumps(value).encode()
