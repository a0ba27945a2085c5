"""Swimlane layouts: lanes from org units, every shape inside its lane, crossings no
higher than the flow layout's plus the edges that must change lane; goldens."""
from __future__ import annotations

from typing import Any

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from layouts.base import LayoutOptions
from layouts.registry import get_strategy
from renderer.api import render
from renderer.culture import ENGLISH, Cultures
from renderer.flow import UNASSIGNED_LANE, swimlane_graph
from renderer.model import parse_diagram
from renderer.text import load_font
from tests.conftest import FIXTURES, ROOT, load_fixture
from tests.demo_fixtures import DIAGRAM_KEYS, demo_fixture
from tests.geometry_checks import crossings, edges_through_shapes, lane_violations, overlapping_pairs
from tests.renderer.test_golden import same_svg

IN_ENGLISH = Cultures(requested=ENGLISH, default=ENGLISH)
LANE_CASE = "lane.cross-lane-sequence-flow"
LANE_FIXTURES = {LANE_CASE: load_fixture(FIXTURES / "corpus" / f"{LANE_CASE}.json")}
CASES: dict[str, Any] = {**{f"demo/{key}": demo_fixture(key) for key in DIAGRAM_KEYS}, **LANE_FIXTURES}
PAIRS = [("horizontal", "horizontalSwimlane"), ("vertical", "verticalSwimlane")]


def laid_out(fixture: Any, key: str) -> Any:
    graph, scene = swimlane_graph(parse_diagram(fixture), IN_ENGLISH, load_font(), key)
    strategy = get_strategy(key)
    return graph, scene, strategy.layout(graph, LayoutOptions())


@pytest.mark.parametrize(("flow_key", "key"), PAIRS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_swimlane_invariants_and_crossings(case: str, flow_key: str, key: str) -> None:
    fixture = CASES[case]
    graph, _, layout = laid_out(fixture, key)
    lane_of = {node.id: str(node.lane) for node in graph.nodes}
    assert overlapping_pairs(layout) == []
    assert edges_through_shapes(layout) == []
    assert lane_violations(layout, lane_of) == []
    assert sorted(lane.id for lane in layout.lanes) == sorted(set(lane_of.values()))
    flow_graph = graph.__class__(tuple(n.__class__(n.id, n.kind, n.width, n.height, n.label_width, n.label_height)
                                       for n in graph.nodes), graph.edges)
    flow = get_strategy(flow_key).layout(flow_graph, LayoutOptions())
    lane_changes = sum(1 for e in graph.edges if lane_of[e.source] != lane_of[e.target])
    assert crossings(layout) <= crossings(flow) + lane_changes


def test_lanes_come_from_executed_by_with_one_unassigned_lane() -> None:
    fixture = demo_fixture("order-to-cash")
    graph, scene, layout = laid_out(fixture, "horizontalSwimlane")
    diagram = parse_diagram(fixture)
    for shape in diagram.shapes:
        units = shape.element.related.get("executedBy", ())
        lane = scene.shapes[shape.shape_id].lane_id
        if not units:
            assert lane == UNASSIGNED_LANE
        else:
            names = {unit: diagram.elements[unit].text("name", IN_ENGLISH) for unit in units}
            assert lane == min(units, key=lambda unit: (names[unit].casefold(), unit))
    assert [lane.id for lane in layout.lanes].count(UNASSIGNED_LANE) == 1
    assert scene.lanes[UNASSIGNED_LANE].lines == ("Unassigned",)
    german = render(fixture, "horizontalSwimlane", culture=1031)
    assert "Nicht zugeordnet" in german


def test_lane_ids_and_bodies_follow_the_svg_contract() -> None:
    svg = render(demo_fixture("order-to-cash"), "verticalSwimlane")
    assert svg.count('class="lane"') == svg.count('class="lane-body"') > 3
    assert 'data-lane-id="unassigned"' in svg


@pytest.mark.parametrize("key", ["horizontalSwimlane", "verticalSwimlane"])
@pytest.mark.parametrize("case", ["demo/order-to-cash", "lane.cross-lane-sequence-flow"])
def test_golden_swimlanes(case: str, key: str, file_regression: FileRegressionFixture) -> None:
    svg = render(CASES[case], key)
    name = case.replace("/", ".")
    file_regression.check(svg, fullpath=ROOT / "golden" / key / f"{name}.svg", check_fn=same_svg)
