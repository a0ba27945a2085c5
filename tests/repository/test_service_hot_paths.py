"""The service's hot paths: JSON through orjson (the same JSON as the standard library),
a fixed number of statements per listing page whatever its size and resources, answers
no larger than asked, and the tenant's content generation that keys the render cache."""

from __future__ import annotations

import json

from repository.jsonio import decode, encode
from repository.store.generation import seed
from tests.repository.conftest import FACETS, Api, recorded_statements
from tests.repository.standin import CREDIT, ORDER

LIST = FACETS + "/processes/views/list/elements"
VERSIONS = FACETS + "/processes/views/detail/elements/{}/versions"
ALL_RESOURCES = "attributes,related,children,content,displayNames,rootPath,stereotype"


def test_json_is_the_standard_librarys_in_utf8(api: Api) -> None:
    response = api.get(LIST, **{"$resources": ALL_RESOURCES})
    assert response.mimetype == "application/json" and response.data.endswith(b"\n")
    body = json.loads(response.data)
    assert body == response.get_json() and body["count"] == len(body["elements"]) > 5
    assert "Bonitätsprüfung".encode() in response.data  # UTF-8, not \u escapes
    assert encode(body) == json.dumps(body, ensure_ascii=False,
                                      separators=(",", ":")).encode()


def test_integers_beyond_64_bits_still_encode_and_decode() -> None:
    value = {"big": 2 ** 70, "list": [-(2 ** 65)], "text": "ä"}
    assert decode(encode(value)) == value
    assert decode(json.dumps(value)) == value


def test_a_listing_page_takes_the_same_statements_for_2_or_100_elements(api: Api) -> None:
    counts = []
    for size in ("2", "100"):
        with recorded_statements(api.app) as seen:
            response = api.get(LIST, **{"$resources": ALL_RESOURCES, "$pageSize": size})
        assert response.status_code == 200
        counts.append(len(seen))
    assert len(response.get_json()["elements"]) > 2
    assert counts[0] == counts[1]


def test_select_on_versions_carries_only_what_it_names(api: Api) -> None:
    selected = api.get(VERSIONS.format(ORDER), **{"$select": "version"}).get_json()
    assert selected["count"] >= 1
    for version in selected["elements"]:
        assert set(version["attributes"]) == {"version"}
        assert version["related"] == {}
        assert not {"content", "children", "displayNames"} & set(version)
    asked = api.get(VERSIONS.format(ORDER), **{"$select": "version,content"}).get_json()
    assert all(len(v["content"]) == 7 for v in asked["elements"])
    explicit = api.get(VERSIONS.format(ORDER), **{"$select": "version",
                                                  "$resources": "attributes,content"})
    assert all(len(v["content"]) == 7 for v in explicit.get_json()["elements"])
    full = api.get(VERSIONS.format(ORDER)).get_json()
    assert {"content", "children", "displayNames"} <= set(full["elements"][0])


def test_every_write_moves_the_content_generation_forward(api: Api) -> None:
    with api.store() as store:
        before = store.reads.content_generation()
    response = api.post(FACETS + "/processes/views/detail/elements/", {
        "count": 1, "elements": [{"id": CREDIT, "attributes": {"name": {"1033": "Vetting"}}}]},
        role="editor")
    assert response.status_code == 200, response.get_json()
    with api.store() as store:
        after = store.reads.content_generation()
    assert after > before
    assert before == 0 or after == before + 1  # a row counts up; a new one starts at seed()
    assert after <= seed()
