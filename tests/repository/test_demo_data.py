"""Consistency of the demo tenant's plain data (repository.demo_data)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from repository.demo_data import demo_id, demo_tenant

Element = dict[str, Any]

TENANT = demo_tenant()
BY_ID = {element["id"]: element for element in TENANT}
DIAGRAMS = [element for element in TENANT if "content" in element]

FACET_OF_TYPE = {
    "processHouse": "processes",
    "subCategory": "processes",
    "mainProcess": "processes",
    "subProcess": "processes",
    "user": "users",
    "orgUnit": "organization",
    "product": "products",
    "inOut": "inputsoutputs",
    "system": "it",
    "knowledgeStructureDocument": "knowledge",
}
VERSIONED_TYPES = {"mainProcess", "subProcess", *FACET_OF_TYPE} - {"processHouse", "subCategory", "user"}
SHAPE_TYPES = {"evStart", "evIntermediate", "evEnd", "task", "ruleXor", "ruleAnd", "condition",
               "processInterfacePlaceholder"}
ORG_CONTEXTS = ("executedBy", "responsible", "contributes", "informed")
# Related context -> the element types it may point at.
TARGET_TYPES = {
    **{context: {"orgUnit"} for context in ORG_CONTEXTS},
    "hasInput": {"product", "inOut"},
    "hasOutput": {"product", "inOut"},
    "usesSystem": {"system"},
    "guidelines": {"knowledgeStructureDocument"},
    "owner": {"user"},
    "author": {"user"},
    "reviewer": {"user"},
}
MATURITY_KEYS = {"defined", "implemented", "trained", "isLived", "isMeasured", "getsImproved"}
ROLE_FLAGS = ("roleViewer", "roleAnalyzer", "roleEditor", "roleArchitect", "roleApprover", "roleAdministrator")


def name(element: Element) -> str:
    english: str = element["attributes"]["name"]["1033"]
    return english


def shape_element(item: Element) -> Element:
    """The element a content item creates, or the existing element it references."""
    element = item["element"]
    return BY_ID[element["id"]] if "id" in element else element


def shape_type(item: Element) -> str:
    element_type: str = shape_element(item)["type"]
    return element_type


def lanes(item: Element) -> set[str]:
    return {ref["id"] for ref in shape_element(item).get("related", {}).get("executedBy", [])}


def successors(content: list[Element]) -> dict[int, set[int]]:
    result: dict[int, set[int]] = {i: set() for i in range(len(content))}
    for item in content:
        for predecessor in item["shapeInfo"]["predecessors"]:
            result[predecessor].add(item["shapeInfo"]["index"])
    return result


def has_cycle(content: list[Element]) -> bool:
    graph = successors(content)
    state: dict[int, str] = {}

    def visit(node: int) -> bool:
        state[node] = "open"
        for nxt in graph[node]:
            if state.get(nxt) == "open" or (nxt not in state and visit(nxt)):
                return True
        state[node] = "done"
        return False

    return any(node not in state and visit(node) for node in graph)


def reachable_from_starts(content: list[Element]) -> set[int]:
    graph = successors(content)
    seen = {i for i, item in enumerate(content) if shape_type(item) == "evStart"}
    stack = list(seen)
    while stack:
        for nxt in graph[stack.pop()] - seen:
            seen.add(nxt)
            stack.append(nxt)
    return seen


def all_named(element: Element) -> list[Element]:
    """The element plus the new elements its content creates."""
    created = [item["element"] for item in element.get("content", []) if "id" not in item["element"]]
    return [element, *created]


def test_deterministic_and_json_serializable() -> None:
    assert demo_tenant() == demo_tenant()
    assert json.loads(json.dumps(TENANT)) == TENANT


def test_ids_unique_and_stable() -> None:
    ids = [element["id"] for element in TENANT]
    assert len(ids) == len(set(ids))
    assert demo_id("process:order-to-cash") in BY_ID


def test_types_and_facets() -> None:
    for element in TENANT:
        assert FACET_OF_TYPE[element["type"]] == element["facetName"], name(element)
        assert set(element) <= {"id", "facetName", "type", "attributes", "related", "children", "content",
                                 "release", "pending_change"}


def test_references_are_defined_earlier_except_children() -> None:
    defined: set[str] = set()
    for element in TENANT:
        for context, refs in element["related"].items():
            for ref in refs:
                assert ref["id"] in defined, (name(element), context)
                assert BY_ID[ref["id"]]["type"] in TARGET_TYPES[context], (name(element), context)
        for item in element.get("content", []):
            related = item["element"].get("related", {})
            for context, refs in related.items():
                for ref in refs:
                    assert ref["id"] in defined, (name(element), context)
                    assert BY_ID[ref["id"]]["type"] in TARGET_TYPES[context], (name(element), context)
            if "id" in item["element"]:
                assert item["element"]["id"] in defined
                assert BY_ID[item["element"]["id"]]["type"] == "subProcess"
        defined.add(element["id"])
    for element in TENANT:
        for child in element["children"]:
            assert child["id"] in BY_ID, name(element)


def test_every_element_has_both_culture_names() -> None:
    for element in TENANT:
        for named in all_named(element):
            names = named["attributes"]["name"]
            assert names["1031"].strip() and names["1033"].strip(), named
    assert any(any(ch in element["attributes"]["name"]["1031"] for ch in "äöüÄÖÜß") for element in TENANT)


def test_process_hierarchy() -> None:
    (house,) = [element for element in TENANT if element["type"] == "processHouse"]
    categories = [BY_ID[ref["id"]] for ref in house["children"]]
    assert [category["type"] for category in categories] == ["subCategory"] * 3
    main_processes = [BY_ID[ref["id"]] for category in categories for ref in category["children"]]
    assert {process["type"] for process in main_processes} == {"mainProcess"}
    assert 8 <= len(main_processes) <= 12
    assert len(main_processes) == sum(element["type"] == "mainProcess" for element in TENANT)
    sub_children = [BY_ID[ref["id"]] for process in main_processes for ref in process["children"]]
    assert {process["type"] for process in sub_children} == {"subProcess"}
    assert len(sub_children) == sum(element["type"] == "subProcess" for element in TENANT)


def test_at_least_six_diagrams_one_large() -> None:
    assert len(DIAGRAMS) >= 6
    assert {diagram["type"] for diagram in DIAGRAMS} <= {"mainProcess", "subProcess"}
    assert any(35 <= len(diagram["content"]) <= 40 for diagram in DIAGRAMS)


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=name)
def test_diagram_shape(diagram: Element) -> None:
    content = diagram["content"]
    assert 8 <= len(content) <= 40
    for position, item in enumerate(content):
        info = item["shapeInfo"]
        assert info["index"] == position
        assert all(0 <= p < len(content) and p != position for p in info["predecessors"])
        assert len(set(info["predecessors"])) == len(info["predecessors"])
        if "id" not in item["element"]:
            assert item["element"]["type"] in SHAPE_TYPES
    types = Counter(shape_type(item) for item in content)
    assert types["ruleXor"] and types["ruleAnd"] and types["condition"] and types["task"]
    assert types["evStart"] == 1 and types["evEnd"] >= 1
    assert has_cycle(content)


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=name)
def test_diagram_flow_logic(diagram: Element) -> None:
    content = diagram["content"]
    graph = successors(content)
    assert reachable_from_starts(content) == set(range(len(content)))
    for i, item in enumerate(content):
        kind = shape_type(item)
        if kind == "evEnd":
            assert not graph[i]
        else:
            assert graph[i], (name(diagram), name(item["element"]) if "attributes" in item["element"] else i)
        if kind == "condition":
            assert any(shape_type(content[p]) == "ruleXor" for p in item["shapeInfo"]["predecessors"])
    splits = {shape_type(content[i]) for i in graph if len(graph[i]) > 1}
    assert {"ruleXor", "ruleAnd"} <= splits


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=name)
def test_diagram_lanes(diagram: Element) -> None:
    org_units = set().union(*(lanes(item) for item in diagram["content"]))
    assert 3 <= len(org_units) <= 6


def test_diagram_features_across_tenant() -> None:
    items = [item for diagram in DIAGRAMS for item in diagram["content"]]
    assert {shape_type(item) for item in items} >= SHAPE_TYPES | {"subProcess"}
    joins = {shape_type(item) for item in items if len(item["shapeInfo"]["predecessors"]) > 1}
    assert {"ruleXor", "ruleAnd"} <= joins
    assert any(not lanes(item) for item in items)
    assert any(shape_type(item) == "task" and len(lanes(item)) == 2 for item in items)
    assert any(sum(shape_type(item) == "evEnd" for item in diagram["content"]) >= 2 for diagram in DIAGRAMS)
    task_contexts = {context for item in items if shape_type(item) == "task"
                     for context in item["element"].get("related", {})}
    assert task_contexts >= {"executedBy", "hasInput", "hasOutput", "usesSystem", "guidelines"}


def test_process_level_contexts() -> None:
    processes = [element for element in TENANT if element["type"] in {"mainProcess", "subProcess"}]
    contexts = {context for process in processes for context in process["related"]}
    assert contexts >= {*ORG_CONTEXTS, "hasInput", "hasOutput", "owner", "author", "reviewer"}
    product_links = [
        ref for process in processes for context in ("hasInput", "hasOutput")
        for ref in process["related"].get(context, []) if BY_ID[ref["id"]]["type"] == "product"
    ]
    assert product_links
    for process in processes:
        assert process["attributes"]["description"]["1031"] and process["attributes"]["description"]["1033"]
        assert process["related"]["executedBy"] and process["related"]["owner"]
        maturity = process["attributes"].get("processMaturity")
        if maturity is not None:
            assert maturity["127"] in MATURITY_KEYS
    assert any("processMaturity" in process["attributes"] for process in processes)


def test_users_one_per_role() -> None:
    users = [element for element in TENANT if element["type"] == "user"]
    for user in users:
        assert user["attributes"]["firstName"]["127"] and user["attributes"]["lastName"]["127"]
        assert all(isinstance(user["attributes"][flag]["127"], bool) for flag in ROLE_FLAGS)
    for flag in ROLE_FLAGS:
        assert sum(user["attributes"][flag]["127"] for user in users) == 1, flag


def test_release_plan() -> None:
    releases = Counter(element.get("release", 0) for element in TENANT)
    assert set(releases) <= {0, 1, 2}
    assert releases[1] and releases[2] >= 2 and releases[0]
    for element in TENANT:
        if element.get("release"):
            assert element["type"] in VERSIONED_TYPES, name(element)
    pending = [element for element in TENANT if element.get("pending_change")]
    assert len(pending) == 1 and pending[0].get("release", 0) >= 1
    assert any(element.get("release") == 2 and element["type"] == "mainProcess" for element in TENANT)
