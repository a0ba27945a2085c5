"""Seed endpoint 16: the render endpoint wired to renderer.api.render."""

from __future__ import annotations

import pytest

from repository import catalog
from tests.repository.conftest import TENANT, Api, assert_error
from tests.repository.standin import BIKE, CREDIT, ERP, FINANCE, HOUSE, ORDER, SALES

RENDER = TENANT + "/_api/rest/diagram/{}/render/{}/{}"


def test_render_answers_svg_with_overlays(api: Api) -> None:
    response = api.get(RENDER.format(ORDER, 1033, "horizontal"), **{"api-version": "2.0"})
    assert response.status_code == 200, response.data[:300]
    assert response.mimetype == "image/svg+xml"
    svg = response.get_data(as_text=True)
    assert svg.lstrip().startswith("<svg") or svg.lstrip().startswith("<?xml")
    assert f'data-diagram-id="{ORDER}"' in svg
    for shape in api.element(ORDER)["content"]:
        assert f'data-shape-id="{shape["shapeId"]}"' in svg


@pytest.mark.parametrize("layout", catalog.LAYOUT_KEYS)
def test_every_layout_key_draws_the_order_diagram(api: Api, layout: str) -> None:
    response = api.get(RENDER.format(ORDER, 1031, layout))
    assert response.status_code == 200, response.data[:300]
    assert response.mimetype == "image/svg+xml"
    svg = response.get_data(as_text=True)
    assert f'data-layout="{layout}"' in svg and f'data-diagram-id="{ORDER}"' in svg


def test_unknown_layout_key_is_400_render_error(api: Api) -> None:
    body = assert_error(api.get(RENDER.format(ORDER, 1033, "spiral")), 400, render=True)
    assert "spiral" in body["message"] and "horizontal" in body["message"]


def test_bad_culture_is_400_and_unknown_diagram_404(api: Api) -> None:
    assert_error(api.get(RENDER.format(ORDER, "english", "horizontal")), 400, render=True)
    assert_error(api.get(RENDER.format("ghost", 1033, "horizontal")), 404, render=True)
    assert_error(api.get(RENDER.format(ORDER, 1033, "horizontal"), **{"api-version": "4.0"}),
                 400, render=True)


def test_fixture_holds_shapes_descendants_and_referenced_elements(api: Api) -> None:
    from repository.fixtures import diagram_fixture

    with api.store() as store:
        order = diagram_fixture(store, store.reads.element(ORDER))
        house = diagram_fixture(store, store.reads.element(HOUSE))
    assert order["diagram"]["id"] == ORDER
    assert [v["shapeInfo"]["index"] for v in order["values"]] == list(range(7))
    assert order["values"][1]["shapeInfo"]["predecessors"] == [0, 3]
    assert order["values"][4]["element"]["id"] == CREDIT
    assert order["values"][0]["element"]["related"]["executedBy"] == [{"id": SALES}]
    listed = {e["id"] for e in order["elements"]}
    assert {SALES, FINANCE, BIKE, ERP} <= listed
    assert ORDER not in listed
    assert order["diagram"]["attributes"]["name"]["1033"] == "Order to cash"
    assert [e["id"] for e in house["elements"]][:3] == ["cat-core", ORDER, "mp-hire"]
    category = house["elements"][0]
    assert category["children"] == [{"id": ORDER}, {"id": "mp-hire"}]
    assert house["values"] == []
