"""Swimlane layouts: lanes from org units, every shape inside its lane, crossings no
higher than the flow layout's plus the edges that must change lane; goldens."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pytest_regressions.file_regression import FileRegressionFixture

from layouts.base import LayoutOptions
from layouts.readability import crossings
from layouts.registry import get_strategy
from layouts.steps.lanes import UNASSIGNED_LANE, order_lanes, reached_lanes
from renderer.api import lay_out, render
from renderer.culture import ENGLISH, Cultures
from renderer.flow import swimlane_graph
from renderer.measure import FONT_SIZE
from renderer.model import parse_diagram
from renderer.text import load_font
from tests.conftest import FIXTURES, ROOT, load_fixture
from tests.demo_fixtures import DIAGRAM_KEYS, demo_fixture
from tests.geometry_checks import edges_through_shapes, lane_violations, overlapping_pairs
from tests.renderer.test_golden import same_svg

IN_ENGLISH = Cultures(requested=ENGLISH, default=ENGLISH)
LANE_CASE = "lane.cross-lane-sequence-flow"
LANE_FIXTURES = {LANE_CASE: load_fixture(FIXTURES / "corpus" / f"{LANE_CASE}.json")}
CASES: dict[str, Any] = {**{f"demo/{key}": demo_fixture(key) for key in DIAGRAM_KEYS}, **LANE_FIXTURES}
PAIRS = [("horizontal", "horizontalSwimlane"), ("vertical", "verticalSwimlane")]


def laid_out(fixture: Any, key: str) -> Any:
    return lay_out(parse_diagram(fixture), key, IN_ENGLISH, LayoutOptions(), load_font())


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
    flow_graph = replace(graph, nodes=tuple(replace(n, lane=None) for n in graph.nodes), lanes=())
    flow = get_strategy(flow_key).layout(flow_graph, LayoutOptions())
    lane_changes = sum(1 for e in graph.edges if lane_of[e.source] != lane_of[e.target])
    assert crossings(layout) <= crossings(flow) + lane_changes


WORK = {"task", "subProcess"}


def test_tasks_go_to_their_org_unit_and_events_and_gateways_join_a_neighbour() -> None:
    fixture = demo_fixture("order-to-cash")
    graph, scene, _ = laid_out(fixture, "horizontalSwimlane")
    diagram = parse_diagram(fixture)
    by_index = {shape.index: shape for shape in diagram.shapes}
    neighbours: dict[int, set[int]] = {shape.index: set(shape.predecessors) for shape in diagram.shapes}
    for shape in diagram.shapes:
        for predecessor in shape.predecessors:
            neighbours[predecessor].add(shape.index)
    for shape in diagram.shapes:
        units = shape.element.related.get("executedBy", ())
        lane = scene.shapes[shape.shape_id].lane_id
        if units:
            names = {unit: diagram.elements[unit].text("name", IN_ENGLISH) for unit in units}
            assert lane == min(units, key=lambda unit: (names[unit].casefold(), unit))
        elif shape.element.type in WORK:
            assert lane == UNASSIGNED_LANE
        else:
            assert lane in {scene.shapes[by_index[n].shape_id].lane_id for n in neighbours[shape.index]}
    assert UNASSIGNED_LANE not in scene.lanes  # every task of the demo has an org unit


def unassigned_fixture() -> dict[str, Any]:
    """Start (no unit) → A (Sales) → gateway (no unit) → B (no unit) → C (Finance) → end."""
    units = [{"id": f"u-{name}", "type": "orgUnit", "attributes": {"name": {"1033": name}}}
             for name in ("Sales", "Finance")]
    steps = [("evStart", None), ("task", "u-Sales"), ("ruleXor", None), ("task", None), ("task", "u-Finance"),
             ("evEnd", None)]
    values = [{"shapeInfo": {"index": i, "predecessors": [i - 1] if i else []},
               "element": {"type": kind, "attributes": {"name": {"1033": f"Step {i}"}},
                           "related": {"executedBy": [{"id": unit}]} if unit else {}}}
              for i, (kind, unit) in enumerate(steps)]
    return {"diagram": {"id": "d", "type": "mainProcess"}, "elements": units, "values": values}


def test_unassigned_is_only_for_tasks_and_comes_last_in_the_graph() -> None:
    graph, scene, _ = laid_out(unassigned_fixture(), "horizontalSwimlane")
    lanes = {node.id: node.lane for node in graph.nodes}
    assert [lanes[f"shape-{i}"] for i in range(6)] == [
        "u-Sales", "u-Sales", "u-Sales", UNASSIGNED_LANE, "u-Finance", "u-Finance"]
    assert [lane.id for lane in graph.lanes] == ["u-Sales", "u-Finance", UNASSIGNED_LANE]
    assert scene.lanes[UNASSIGNED_LANE].lines == ("Unassigned",)
    assert "Nicht zugeordnet" in render(unassigned_fixture(), "horizontalSwimlane", culture=1031)


def test_lane_order_follows_the_main_path_from_the_start() -> None:
    # lanes 0..3 in first-appearance order; the start is in lane 2, the path runs 2 → 0 → 3,
    # lane 1 hangs off lane 3 only; lane 0 is pinned last
    node_lane = [2, 0, 3, 1]
    edges = [(0, 1), (1, 2), (2, 3)]
    assert reached_lanes(node_lane, edges) == [2, 0, 3, 1]
    assert order_lanes(4, node_lane, edges) == [2, 0, 3, 1]
    assert order_lanes(4, node_lane, edges, last=0) == [2, 3, 1, 0]  # the path's order, less lane 0
    # a lane off the main path (lane 3, linked twice to lane 1) goes where its edges are
    # shortest: beside lane 1, not after the path's lanes
    side = [0, 1, 2, 2, 3, 1]
    side_edges = [(0, 1), (1, 2), (2, 3), (1, 4), (4, 5)]
    assert order_lanes(4, side, side_edges) == [0, 1, 3, 2]


def test_many_lanes_keep_the_main_path_order() -> None:
    count = 12
    node_lane = [11 - i for i in range(count)]  # the path visits the lanes backwards
    edges = [(i, i + 1) for i in range(count - 1)]
    assert order_lanes(count, node_lane, edges) == list(reversed(range(count)))


def parallel_fixture(lane_name: str, branches: int) -> dict[str, Any]:
    """Start → AND split → ``branches`` tasks side by side → AND join → end, all in one lane."""
    unit = {"id": "u-1", "type": "orgUnit", "attributes": {"name": {"1033": lane_name}}}
    join = branches + 2
    steps = [("evStart", []), ("ruleAnd", [0]), *[("task", [1])] * branches, ("ruleAnd", list(range(2, join))),
             ("evEnd", [join])]
    values = [{"shapeInfo": {"index": i, "predecessors": predecessors},
               "element": {"type": kind, "attributes": {"name": {"1033": f"Step {i}"}},
                           "related": {"executedBy": [{"id": "u-1"}]}}}
              for i, (kind, predecessors) in enumerate(steps)]
    return {"diagram": {"id": "d", "type": "mainProcess"}, "elements": [unit], "values": values}


def lane_name_room(key: str, fixture: dict[str, Any], lane_id: str) -> tuple[tuple[str, ...], float, float]:
    """The lane's name lines as drawn, the length along its header less the padding at
    both ends, and the header's thickness."""
    _, scene, layout = laid_out(fixture, key)
    header = next(lane.header for lane in layout.lanes if lane.id == lane_id)
    padding = LayoutOptions().edge_spacing
    return scene.lanes[lane_id].lines, max(header.w, header.h) - 2 * padding, min(header.w, header.h)


@pytest.mark.parametrize("key", ["horizontalSwimlane", "verticalSwimlane"])
def test_a_long_lane_name_in_a_long_lane_is_one_line(key: str) -> None:
    name = "Customer service and after-sales support"
    fixture = parallel_fixture(name, 3)
    _, built = swimlane_graph(parse_diagram(fixture), IN_ENGLISH, load_font(), key)
    assert len(built.lanes["u-1"].lines) > 1  # wrapped before layout for the shortest lane
    lines, along, _ = lane_name_room(key, fixture, "u-1")
    assert lines == (name,)
    assert load_font().text_width(name, FONT_SIZE) <= along


@pytest.mark.parametrize("key", ["horizontalSwimlane", "verticalSwimlane"])
def test_a_lane_name_too_long_for_its_lane_wraps_within_it(key: str) -> None:
    name = "Customer service and after-sales support for key accounts in the northern region"
    fixture = unassigned_fixture()
    fixture["elements"][0]["attributes"]["name"]["1033"] = name
    lines, along, across = lane_name_room(key, fixture, "u-Sales")
    font = load_font()
    assert len(lines) > 1 and " ".join(lines) == name  # whole: the lane grew along the name
    assert all(font.text_width(line, FONT_SIZE) <= along for line in lines)
    assert len(lines) * font.line_height(FONT_SIZE) <= across


def test_lane_ids_and_bodies_follow_the_svg_contract() -> None:
    svg = render(demo_fixture("order-to-cash"), "verticalSwimlane")
    assert svg.count('class="lane"') == svg.count('class="lane-body"') > 3
    assert 'data-lane-id="unassigned"' not in svg  # every task of the demo has an org unit


@pytest.mark.parametrize("key", ["horizontalSwimlane", "verticalSwimlane"])
@pytest.mark.parametrize("case", ["demo/order-to-cash", "lane.cross-lane-sequence-flow"])
def test_golden_swimlanes(case: str, key: str, file_regression: FileRegressionFixture) -> None:
    svg = render(CASES[case], key)
    name = case.replace("/", ".")
    file_regression.check(svg, fullpath=ROOT / "golden" / key / f"{name}.svg", check_fn=same_svg)
