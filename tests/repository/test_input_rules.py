"""docs/contract.md, "Limits and robustness", input rules: valid Unicode only, numbers within 64-bit range, culture
keys of ASCII digits, attribute values up to 100,000 characters, 20,000 predecessor links
per diagram. Each refusal is a 4xx envelope naming the rule, with nothing written, and the
same on SQLite and PostgreSQL (issue 7: each of these was a 500 or a backend difference)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from renderer.contract import MAX_CULTURE_ID, RenderInputError
from renderer.model import parse_diagram
from repository.errors import InvalidInput, TooLarge
from repository.input_rules import MAX_INTEGER, MIN_INTEGER, load_json, parse_culture_id
from repository.store.models import AttributeValue, Element, Shape
from repository.wire import (
    MAX_ATTRIBUTE_VALUE_LENGTH,
    MAX_PREDECESSOR_LINKS,
    parse_content_body,
    parse_update_body,
)
from tests.repository.conftest import FACETS, TENANT, Api, assert_error
from tests.repository.standin import DRAFT, ORDER

UPDATE = FACETS + "/processes/views/detail/elements"
CONTENT = FACETS + f"/processes/views/diagram/elements/{DRAFT}/content"
LIST = FACETS + "/processes/views/list/elements"
MAINTAIN = "/_sysadmin/_admin/_api/rest/maintain"


def rows(api: Api) -> tuple[int, int, int]:
    """Elements, attribute values and shapes stored: any write changes one of them."""
    with api.app.extensions["elrepo.sessions"]() as session:
        return tuple(session.scalar(select(func.count()).select_from(table))
                     for table in (Element, AttributeValue, Shape))


@pytest.fixture
def unchanged(api: Api) -> Iterator[None]:
    """The test's refusals leave the database as it was."""
    before = rows(api), api.element(DRAFT)
    yield
    assert (rows(api), api.element(DRAFT)) == before


def rename(name_json: str) -> bytes:
    """An update of DRAFT's English name, the value spliced in as raw JSON text."""
    return ('{"count": 1, "elements": [{"id": "%s", "attributes": {"name": {"1033": %s}}}]}'
            % (DRAFT, name_json)).encode()


def new_shape(attributes_json: str) -> bytes:
    return ('{"values": [{"shapeInfo": {"index": 0, "predecessors": []}, '
            '"element": {"type": "task", "attributes": %s}}]}' % attributes_json).encode()


def post_update(api: Api, raw: bytes) -> Any:
    return api.post_raw(UPDATE, raw, role="editor")


def post_content(api: Api, raw: bytes) -> Any:
    return api.post_raw(CONTENT, raw, role="editor")


# --- valid Unicode: lone surrogates and NUL --------------------------------------------

BAD_TEXT = [r'"\ud800"', r'"tail \udfff"', r'"a\u0000b"']


@pytest.mark.usefixtures("unchanged")
def test_invalid_unicode_in_a_name_is_400_on_update_and_content_create(api: Api) -> None:
    for text in BAD_TEXT:
        body = assert_error(post_update(api, rename(text)), 400)
        assert "Unicode" in body["message"]
        assert_error(post_content(api, new_shape('{"name": {"1033": %s}}' % text)), 400)


@pytest.mark.usefixtures("unchanged")
def test_invalid_unicode_anywhere_in_a_body_is_400(api: Api) -> None:
    for raw in [
        # in a key the parser would otherwise ignore, at the top and deep inside
        b'{"count": 0, "elements": [], "x\\ud800": 1}',
        ('{"count": 1, "elements": [{"id": "%s", "attributes": {"files": {"127": '
         '[{"name": "a\\u0000", "nested": [["\\udbff"]]}]}}}]}' % DRAFT).encode(),
        ('{"count": 1, "elements": [{"id": "%s\\u0000"}]}' % DRAFT).encode(),
    ]:
        assert_error(post_update(api, raw), 400)


def test_a_surrogate_pair_is_valid_text(api: Api) -> None:
    response = post_update(api, rename(r'"\ud83d\ude00 ok"'))
    assert response.status_code == 200, response.get_json()
    assert api.element(DRAFT)["attributes"]["name"]["1033"] == "\U0001F600 ok"


def test_nul_in_a_query_path_or_header_is_400_on_every_endpoint(api: Api) -> None:
    for path, params in [
        ("/openapi.json", {"x": "\x00"}),
        (LIST, {"$filter": "name eq 'a\x00b'"}),
        (LIST, {"$pageSelectionKey": "mp\x00order"}),
        (LIST, {"$select": "name\x00"}),
        (f"{UPDATE}/a%00b", {}),
        (f"{UPDATE}/{ORDER}/attributes/na%00me", {}),
        (f"{TENANT}/_api/release/a%00b/transitions", {}),
        (f"{MAINTAIN}/demo%00.default", {}),
    ]:
        body = assert_error(api.get(path, **params), 400)
        assert "NUL" in body["message"], path
    assert_error(api.client.get("/openapi.json", headers={"X-Note": "a\x00"}), 400)


# --- tokens --------------------------------------------------------------------------

def test_a_non_ascii_service_token_is_401(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELREPO_SERVICE_AUTH_TOKEN", "service-secret")
    for presented in ("s\u00e9rvice-secret", "\u00ff" * 14):
        response = api.client.get(MAINTAIN, headers={"service-auth-token": presented})
        assert_error(response, 401)


def test_a_non_ascii_bearer_token_is_401(api: Api) -> None:
    assert_error(api.get(LIST, token="t\u00f6ken"), 401)


# --- numbers -------------------------------------------------------------------------

@pytest.mark.usefixtures("unchanged")
def test_a_number_outside_64_bit_range_is_400(api: Api) -> None:
    for number in ["1" * 5000, "-" + "9" * 5000, str(2**63), str(-2**63 - 1), "1e999",
                   "-1e999", "NaN", "Infinity"]:
        body = assert_error(post_update(api, rename(number)), 400)
        assert str(2**63 - 1) in body["message"] or "finite" in body["message"], number


@pytest.mark.usefixtures("unchanged")
def test_a_huge_integer_anywhere_in_a_content_body_is_400(api: Api) -> None:
    raw = b'{"values": [{"shapeInfo": {"index": 1' + b"0" * 5000 + b'}, "element": {"id": "x"}}]}'
    assert_error(post_content(api, raw), 400)


def test_both_ends_of_the_64_bit_range_are_stored(api: Api) -> None:
    for number in (2**63 - 1, -2**63):
        response = post_update(api, rename(str(number)))
        assert response.status_code == 200, response.get_json()
        assert api.element(DRAFT)["attributes"]["name"]["1033"] == number


def test_a_filter_number_outside_range_is_400(api: Api) -> None:
    for expression in [
        "attributes/name/9223372036854775808 eq 'x'",
        "attributes/name/" + "9" * 5000 + " eq 'x'",
        "attributes/name/\u0661\u0660\u0663\u0663 eq 'x'",  # Arabic-Indic digits
        "attributes/name/0 eq 'x'",
        "priority eq 9223372036854775808",
        "priority eq -9223372036854775809",
        "priority gt " + "9" * 5000,
        "priority gt " + "9" * 400 + ".5",
    ]:
        assert_error(api.get(LIST, **{"$filter": expression}), 400)


def test_filter_numbers_at_the_ends_of_the_range_are_answered(api: Api) -> None:
    for expression in ("priority lt 9223372036854775807", "priority gt -9223372036854775808",
                       f"attributes/name/{MAX_CULTURE_ID} eq 'x'"):
        response = api.get(LIST, **{"$filter": expression})
        assert response.status_code == 200, response.get_json()


# --- culture keys --------------------------------------------------------------------

@pytest.mark.usefixtures("unchanged")
def test_a_culture_key_that_is_not_ascii_digits_in_range_is_400(api: Api) -> None:
    for culture in ["\u00b2", "\u0661\u0660\u0663\u0663", "0", "01033", "", " 1033", "+1033",
                    "-1", str(MAX_CULTURE_ID + 1), "9" * 5000]:
        raw = json.dumps({"count": 1, "elements": [{"id": DRAFT, "attributes": {
            "name": {culture: "x"}}}]}).encode()
        body = assert_error(post_update(api, raw), 400)
        assert str(MAX_CULTURE_ID) in body["message"], culture


@pytest.mark.parametrize(("text", "expected"), [("1033", 1033), ("127", 127), ("1", 1),
                                                (str(MAX_CULTURE_ID), MAX_CULTURE_ID)])
def test_parse_culture_id_accepts_ascii_digits_in_range(text: str, expected: int) -> None:
    assert parse_culture_id(text, "cultureId") == expected


@pytest.mark.parametrize("text", ["\u00b2", "\u0661", "0", "007", "1033 ", "2147483648", "x"])
def test_parse_culture_id_names_where_and_the_range(text: str) -> None:
    with pytest.raises(InvalidInput, match=r"cultureId.*1\.\.2147483647"):
        parse_culture_id(text, "cultureId")


# --- attribute values up to 100,000 characters ---------------------------------------

@pytest.mark.usefixtures("unchanged")
def test_an_attribute_value_over_the_limit_is_413(api: Api) -> None:
    for value in [
        "x" * (MAX_ATTRIBUTE_VALUE_LENGTH + 1),
        "x" * 5_000_000,
        [{"name": "a.pdf", "data": "x" * (MAX_ATTRIBUTE_VALUE_LENGTH // 2)}] * 2,
    ]:
        body = assert_error(post_update(api, rename(json.dumps(value))), 413)
        assert f"{MAX_ATTRIBUTE_VALUE_LENGTH:,}" in body["message"]
    long_name = json.dumps("x" * (MAX_ATTRIBUTE_VALUE_LENGTH + 1))
    assert_error(post_content(api, new_shape('{"name": {"1033": %s}}' % long_name)), 413)


def test_an_attribute_value_at_the_limit_is_stored(api: Api) -> None:
    value = "\u00e9" * MAX_ATTRIBUTE_VALUE_LENGTH
    assert post_update(api, rename(json.dumps(value))).status_code == 200
    assert api.element(DRAFT)["attributes"]["name"]["1033"] == value


# --- predecessor links per diagram ---------------------------------------------------

def dense_content(links: int) -> dict[str, Any]:
    """Two items, the second listing the first `links` times: the limit counts links as
    sent, so the body stays small."""
    return {"values": [{"shapeInfo": {"index": 0}, "element": {"type": "task"}},
                       {"shapeInfo": {"index": 1, "predecessors": [0] * links},
                        "element": {"type": "task"}}]}


@pytest.mark.usefixtures("unchanged")
def test_content_create_over_the_link_limit_is_413(api: Api) -> None:
    response = api.post(CONTENT, dense_content(MAX_PREDECESSOR_LINKS + 1), role="editor")
    body = assert_error(response, 413)
    assert f"{MAX_PREDECESSOR_LINKS:,}" in body["message"]


@pytest.mark.usefixtures("unchanged")
def test_an_update_whose_content_is_over_the_link_limit_is_413(api: Api) -> None:
    shapes = [c["shapeId"] for c in api.element(ORDER)["content"]]
    per_entry = MAX_PREDECESSOR_LINKS // len(shapes) + 1
    content = [{"shapeId": s, "predecessors": shapes[:1] * per_entry} for s in shapes]
    body = {"count": 1, "elements": [{"id": ORDER, "content": content}]}
    assert_error(api.post(UPDATE, body, role="editor"), 413)


def complete_content(shapes: int) -> dict[str, Any]:
    """Every shape follows every earlier one: shapes * (shapes - 1) / 2 distinct links."""
    return {"values": [{"shapeInfo": {"index": i, "predecessors": list(range(i))},
                        "element": {"type": "task"}} for i in range(shapes)]}


def test_an_append_that_takes_the_diagram_over_the_link_limit_is_413(api: Api) -> None:
    first = api.post(CONTENT, complete_content(150), role="editor")  # 11,175 links
    assert first.status_code == 200, first.get_json()
    before = rows(api)
    body = assert_error(api.post(CONTENT, complete_content(150), role="editor"), 413)
    assert "22,350" in body["message"] and f"{MAX_PREDECESSOR_LINKS:,}" in body["message"]
    assert rows(api) == before


def test_the_link_limit_is_inclusive() -> None:
    items = parse_content_body(dense_content(MAX_PREDECESSOR_LINKS))
    assert len(items[1].predecessors) == MAX_PREDECESSOR_LINKS
    with pytest.raises(TooLarge):
        parse_content_body(dense_content(MAX_PREDECESSOR_LINKS + 1))
    entries = [{"shapeId": "s", "predecessors": ["p"] * MAX_PREDECESSOR_LINKS}]
    assert parse_update_body({"elements": [{"id": ORDER, "content": entries}]})


# --- the render contract: the service refuses what the renderer could not draw --------

def shape(index: Any, predecessors: Any = (), **element: Any) -> dict[str, Any]:
    return {"shapeInfo": {"index": index, "predecessors": list(predecessors)},
            "element": element or {"type": "task"}}


@pytest.mark.parametrize("values", [
    [shape(1)],
    [shape(0), shape(0)],
    [shape(0, [0])],
    [shape(0), shape(1, [5])],
    [shape("0")],
    [shape(0, "0")],
    [shape(0, [True])],
    [{"shapeInfo": {"index": 0}, "element": {"attributes": {}}}],
])
def test_content_create_and_the_renderer_refuse_alike(values: list[dict[str, Any]]) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_content_body({"values": values})
    with pytest.raises(RenderInputError) as not_drawn:
        parse_diagram({"diagram": {"id": "d"}, "values": values})
    assert str(refused.value) == str(not_drawn.value)


# --- the parser itself ---------------------------------------------------------------

def test_load_json_refuses_what_json_loads_would_crash_on_or_accept() -> None:
    assert load_json(b'{"a": [1, -2.5, "\\ud83d\\ude00"]}') == {"a": [1, -2.5, "\U0001F600"]}
    assert load_json(b'\xef\xbb\xbf{"bom": 1}') == {"bom": 1}
    for raw in (b"1" * 5000, b'["\\ud800"]', b'{"\\u0000": 1}', b"NaN", b"1e400",
                '{"utf16": 1}'.encode("utf-16")):
        with pytest.raises(InvalidInput):
            load_json(raw)


SCALARS = (st.none() | st.booleans() | st.integers(min_value=-2**66, max_value=2**66)
           | st.sampled_from([MIN_INTEGER - 1, MIN_INTEGER, MAX_INTEGER, MAX_INTEGER + 1])
           | st.floats() | st.text(alphabet=st.characters(exclude_categories=()), max_size=6))
DOCUMENTS = st.recursive(SCALARS, lambda children: st.lists(children, max_size=3)
                         | st.dictionaries(st.text(max_size=3), children, max_size=3),
                         max_leaves=12)


def breaks_a_rule(value: Any) -> bool:
    """The rules, restated plainly: what load_json must refuse."""
    if isinstance(value, str):
        return any((ord(c) < 0x20 and c not in "\t\n\r") or 0xD800 <= ord(c) <= 0xDFFF
                   or c in "\ufffe\uffff" for c in value)
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not MIN_INTEGER <= value <= MAX_INTEGER
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(breaks_a_rule(v) for v in value)
    if isinstance(value, dict):
        return any(breaks_a_rule(k) or breaks_a_rule(v) for k, v in value.items())
    return False


@settings(max_examples=300, deadline=None)
@given(document=DOCUMENTS)
def test_load_json_refuses_exactly_the_documents_that_break_a_rule(document: Any) -> None:
    """load_json skips its exact walk for bodies whose raw text cannot break a rule: that
    screen must have no false negatives."""
    raw = json.dumps(document).encode()  # escapes NUL, surrogates; writes NaN, Infinity
    try:
        load_json(raw)
    except InvalidInput:
        assert breaks_a_rule(document)
    else:
        assert not breaks_a_rule(document)
