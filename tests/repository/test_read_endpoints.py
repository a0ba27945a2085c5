"""Seed endpoints 1, 7-11 and 13: views, attributes, related, info, configuration,
reporting."""

from __future__ import annotations

import pytest

from tests.repository.conftest import FACETS, TENANT, Api, assert_error
from tests.repository.standin import BIKE, CATEGORY, CREDIT, ERP, HOUSE, ORDER, SALES

ELEMENT = FACETS + "/processes/views/detail/elements/" + ORDER
TREE_ELEMENT = FACETS + "/processes/views/tree/elements/" + ORDER


def test_views_of_processes_and_of_another_facet(api: Api) -> None:
    body = api.get(FACETS + "/processes/views", **{"api-version": "4.0"}).get_json()
    assert [v["name"] for v in body["values"]] == ["list", "tree", "detail", "diagram",
                                                   "reporting"]
    assert body["count"] == 5
    tree = body["values"][1]
    assert tree["isHierarchical"] is True
    assert tree["elements"] == TENANT + "/_api/rest/facets/processes/views/tree/elements"
    assert tree["displayNames"] == {"1031": "Baum", "1033": "Tree"}
    products = api.get(FACETS + "/products/views").get_json()["values"]
    assert [v["name"] for v in products] == ["list", "tree", "detail"]


def test_views_of_unknown_facet_is_404(api: Api) -> None:
    assert_error(api.get(FACETS + "/nothing/views"), 404)


def test_attributes_list_and_select(api: Api) -> None:
    body = api.get(ELEMENT + "/attributes", **{"api-version": "1.0"}).get_json()
    assert body["values"]["name"] == {"1031": "Auftragsabwicklung", "1033": "Order to cash"}
    assert body["count"] == len(body["values"])
    selected = api.get(ELEMENT + "/attributes", **{"$select": "name,version"}).get_json()
    assert set(selected["values"]) == {"name", "version"} and selected["count"] == 2


def test_attribute_get_and_unknown_attribute(api: Api) -> None:
    body = api.get(ELEMENT + "/attributes/priority").get_json()
    assert body == {"count": 1, "values": {"priority": {"127": 3}}}
    assert_error(api.get(ELEMENT + "/attributes/nothing"), 404)


def test_attributes_wrong_api_version_is_400(api: Api) -> None:
    assert_error(api.get(ELEMENT + "/attributes", **{"api-version": "4.0"}), 400)


@pytest.mark.parametrize("method", ["get", "post"])
def test_related_get_by_get_and_post(api: Api, method: str) -> None:
    response = getattr(api, method)(ELEMENT + "/related/executedBy")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["count"] == 1 and [r["id"] for r in body["values"]["executedBy"]] == [SALES]
    assert "attributes" not in body["values"]["executedBy"][0]


def test_related_get_expanded(api: Api) -> None:
    body = api.get(ELEMENT + "/related/hasOutput", **{"$expandRelated": "hasOutput"}).get_json()
    product = body["values"]["hasOutput"][0]
    assert product["id"] == BIKE and product["attributes"]["name"]["1033"] == "Bike"
    assert "related" in product


def test_related_known_but_empty_context_and_unknown_context(api: Api) -> None:
    assert api.get(ELEMENT + "/related/owner").get_json() == {"count": 1, "values": {"owner": []}}
    assert_error(api.get(ELEMENT + "/related/noSuchContext"), 404)


def test_info_reports_exactly_the_callers_permissions(api: Api) -> None:
    expected = {
        "viewer": ["ShowElement", "OpenElement"],
        "analyzer": ["ShowElement", "OpenElement"],
        "editor": ["NewElement", "EditElement", "DeleteElement", "ShowElement", "OpenElement"],
        "architect": ["NewElement", "EditElement", "DeleteElement", "ShowElement",
                      "OpenElement"],
        "approver": ["ShowElement", "ApproveElement", "OpenElement"],
        "administrator": ["NewElement", "EditElement", "DeleteElement", "ShowElement",
                          "ApproveElement", "OpenElement"],
    }
    for role, permissions in expected.items():
        info = api.get(ELEMENT + "/info", role=role).get_json()["values"][0]
        assert info["permissions"] == permissions, role
        assert info["hasEditPermission"] is ("EditElement" in permissions)
        assert info["isReadOnly"] is ("EditElement" not in permissions)


def test_info_fields(api: Api) -> None:
    info = api.get(ELEMENT + "/info", **{"api-version": "1.0"}).get_json()["values"][0]
    assert info["id"] == ORDER and info["elementTypeName"] == "mainProcess"
    assert info["hasDiagram"] is True and info["name"] == "Order to cash"
    assert info["rootPath"] == [HOUSE, CATEGORY]
    assert info["uid"] == "_" + ORDER
    assert info["typeColor"].startswith("#") and len(info["typeColor"]) == 7
    hierarchical = api.get(TREE_ELEMENT + "/info").get_json()["values"][0]
    assert hierarchical["uid"] == f"{CATEGORY}_{ORDER}"


def test_info_of_a_shape_element_names_its_shape(api: Api) -> None:
    content = api.element(ORDER)["content"]
    info = api.get(FACETS + f"/processes/views/detail/elements/{CREDIT}/info").get_json()["values"][0]
    assert info["shapeId"] == content[4]["shapeId"] and info["hasDiagram"] is False


def test_config_all_types_of_the_facet_and_one_type_case_insensitive(api: Api) -> None:
    all_types = api.get(FACETS + "/processes/views/list/config").get_json()
    keys = [t["key"] for t in all_types["values"]]
    assert "mainProcess" in keys and "evStart" in keys and all_types["count"] == len(keys)
    one = api.get(FACETS + "/processes/views/list/config/mainprocess",
                  **{"api-version": "1.0"}).get_json()
    assert one["count"] == 1 and one["values"][0]["key"] == "mainProcess"
    properties = {p["key"]: p for p in one["values"][0]["properties"]}
    maturity = properties["processMaturity"]["attribute"]
    assert maturity["dataType"] == "SelectionValue"
    assert [v["key"] for v in maturity["selectableValues"]][:2] == ["defined", "implemented"]
    # words, not keys, in both cultures (issue 23)
    assert properties["processMaturity"]["displayNames"] == {"1031": "Prozessreife", "1033": "Process maturity"}
    assert maturity["selectableValues"][4]["displayNames"] == {"1031": "gemessen", "1033": "measured"}
    assert properties["executedBy"]["related"]["relatedTypes"] == ["orgUnit"]
    assert properties["executedBy"]["related"]["facet"] == "organization"
    assert {layout["key"] for layout in one["values"][0]["layouts"]} == {"detailed", "graphic"}
    assert one["values"][0]["layouts"][0]["displayNames"]["1031"] == "Detailliert"


def test_config_unknown_type_is_404(api: Api) -> None:
    assert_error(api.get(FACETS + "/processes/views/list/config/product"), 404)
    assert_error(api.get(FACETS + "/processes/views/list/config/nothing"), 404)


def test_reporting_facet_and_element_use_reporting_uris(api: Api) -> None:
    facet = api.get(FACETS + "/it/reporting", **{"api-version": "4.0"}).get_json()
    assert [e["id"] for e in facet["values"]] == [ERP] and facet["count"] == 1
    assert facet["values"][0]["expandUri"] == TENANT + f"/_api/rest/facets/it/reporting/{ERP}"
    one = api.get(FACETS + f"/processes/reporting/{ORDER}").get_json()["values"][0]
    assert {"attributes", "children", "content", "related"} <= set(one)
    assert one["related"]["executedBy"][0]["expandUri"].endswith(
        f"/facets/organization/reporting/{SALES}")


def test_reporting_unknown_element_and_facet_are_404(api: Api) -> None:
    assert_error(api.get(FACETS + "/processes/reporting/nope"), 404)
    assert_error(api.get(FACETS + "/nope/reporting"), 404)
