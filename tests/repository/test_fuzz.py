"""Property: no request, however malformed, gets a 500 or a traceback."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.repository.conftest import FACETS, TENANT, Api, assert_error, sqlite_only
from tests.repository.standin import DRAFT, ORDER

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

FILTER_TOKENS = st.sampled_from([
    "name", "type", "state", "id", "facetName", "attributes/name/1033", "priority", "eq",
    "-eq", "ne", "gt", "-le", "in", "and", "OR", "not", "(", ")", ",", "'x'", "'O''Brien'",
    "3", "-1.5", "true", "null", "contains(", "startswith(", "isnull(", "/", "'", "%", "_",
    "\\", "\u00e9", "1e5", "--", "eq eq", "'\x00'", "9223372036854775808",
    "attributes/name/2147483648", "(1, 'x', null)",
])
# Any code point, NUL and lone surrogates included (docs/contract.md, "Limits and robustness": refused with 400).
ANY_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=20)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False) | ANY_TEXT,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["count", "elements", "values", "id", "type",
                                       "attributes", "related", "children", "content",
                                       "shapeInfo", "element", "index", "predecessors",
                                       "name", "1033", "127", "shapeId", "versionId"])
                      | ANY_TEXT,
                      children, max_size=5),
    max_leaves=25)


def never_500(response: Any) -> None:
    assert response.status_code < 500, response.data[:500]
    if response.status_code >= 400:
        assert_error(response, response.status_code, render="/_api/rest/diagram/" in response.request.path)


@sqlite_only
@FUZZ
@given(tokens=st.lists(FILTER_TOKENS, max_size=12))
def test_any_filter_is_answered_or_refused_cleanly(api: Api, tokens: list[str]) -> None:
    never_500(api.get(FACETS + "/processes/views/list/elements",
                      **{"$filter": " ".join(tokens)}))


@sqlite_only
@FUZZ
@given(body=JSON)
def test_any_update_body_is_answered_or_refused_cleanly(api: Api, body: Any) -> None:
    never_500(api.post_raw(FACETS + "/processes/views/detail/elements", json.dumps(body).encode(),
                           role="editor"))


@sqlite_only
@FUZZ
@given(body=JSON)
def test_any_content_body_is_answered_or_refused_cleanly(api: Api, body: Any) -> None:
    never_500(api.post_raw(FACETS + f"/processes/views/diagram/elements/{DRAFT}/content",
                           json.dumps(body).encode(), role="editor"))


@sqlite_only
@FUZZ
@given(segments=st.lists(st.text(alphabet=st.characters(codec="utf-8"), min_size=1,
                                 max_size=12), min_size=1, max_size=4),
       params=st.dictionaries(st.sampled_from(["$page", "$pageSize", "$resources", "$select",
                                               "$expandRelated", "$pageSelectionKey",
                                               "api-version", "ignoreWarnings"]),
                              st.text(max_size=10), max_size=3))
def test_any_path_and_parameters_are_answered_or_refused_cleanly(
        api: Api, segments: list[str], params: dict[str, str]) -> None:
    for base in (f"{FACETS}/processes/views/detail/elements/{ORDER}",
                 f"{TENANT}/_api/release/{DRAFT}/transitions"):
        path = base + "/" + "/".join(quote(segment, safe="") for segment in segments)
        never_500(api.get(path, **params))
        never_500(api.post(path, **params))
