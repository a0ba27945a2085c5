"""The layouts on the graphs the renderer's builders make from real diagrams: the demo
tenant, the corpus fixtures and a dense generated process. What each strategy
guarantees is checked on the ``Layout`` it returns, together with what the builder put
into the graph and the scene (satellites, matrix marks, entity lines).

The same guarantees on graphs built by hand are in tests/layouts/."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checks.generate import dag_fixture
from layouts.base import LayoutOptions
from layouts.geometry import Layout
from layouts.graph import LayoutGraph
from layouts.keys import LAYOUT_KEYS
from layouts.registry import get_strategy
from renderer.api import BUILDERS
from renderer.culture import ENGLISH, Cultures
from renderer.model import parse_diagram
from renderer.scene import Scene, ShapeView
from renderer.svg import write_svg
from renderer.text import load_font
from tests.conftest import FIXTURES, load_fixture
from tests.demo_fixtures import demo_fixtures
from tests.geometry_checks import (
    edges_through_shapes,
    endpoint_problems,
    entity_label_problems,
    lane_violations,
    matrix_tiling_problems,
    nesting_problems,
    non_orthogonal_segments,
    overlapping_pairs,
    satellite_problems,
    within_canvas,
)
from tests.layouts.graphs import dense_cyclic
from tests.layouts.test_flow_properties import flow_graphs

ELEMENT_LAYOUTS = ("detailed", "graphic", "processMatrix", "customerMatrix", "entityRelationship")
CORPUS = sorted((FIXTURES / "corpus").glob("*.json"))
DEMO = demo_fixtures()
CASES: dict[str, Any] = {**{f"demo/{k}": v for k, v in DEMO.items()},
                         **{f"corpus/{p.stem}": load_fixture(p) for p in CORPUS}}
IN_ENGLISH = Cultures(requested=ENGLISH, default=ENGLISH)


def laid_out(fixture: Any, key: str) -> tuple[LayoutGraph, Scene, Layout]:
    graph, scene = BUILDERS[key](parse_diagram(fixture), IN_ENGLISH, load_font(), key)
    return graph, scene, get_strategy(key).layout(graph, LayoutOptions())


# --------------------------------------------------------------------------- all keys
@pytest.mark.parametrize("key", ELEMENT_LAYOUTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_element_layout_keeps_its_invariants(case: str, key: str) -> None:
    graph, scene, layout = laid_out(CASES[case], key)
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in graph.nodes)
    assert set(scene.shapes) == {n.id for n in layout.nodes}
    assert edges_through_shapes(layout) == []
    assert non_orthogonal_segments(layout) == []
    assert endpoint_problems(layout) == []
    assert within_canvas(layout)
    assert overlapping_pairs(layout, nesting=key == "graphic") == []
    assert get_strategy(key).layout(graph, LayoutOptions()) == layout


@pytest.mark.parametrize("key", LAYOUT_KEYS)
def test_every_layout_draws_a_dense_generated_process_completely(key: str) -> None:
    fixture = dag_fixture("dense", dense_cyclic(), lanes=3, related=2, hierarchy=True)
    graph, _, layout = laid_out(fixture, key)
    assert sorted(n.id for n in layout.nodes) == sorted(n.id for n in graph.nodes)
    assert overlapping_pairs(layout, nesting=key == "graphic") == [] and within_canvas(layout)
    assert non_orthogonal_segments(layout) == []
    if "Swimlane" in key:
        assert lane_violations(layout, {n.id: str(n.lane) for n in graph.nodes}) == []


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=flow_graphs(), key=st.sampled_from(["horizontal", "vertical"]))
def test_the_same_layout_gives_the_same_svg(graph: LayoutGraph, key: str) -> None:
    layout = get_strategy(key).layout(graph, LayoutOptions())
    scene = Scene("d", key, {n.id: ShapeView(n.id, n.id, n.kind, ("label",)) for n in graph.nodes})
    assert write_svg(get_strategy(key).layout(graph, LayoutOptions()), scene) == write_svg(layout, scene)


# --------------------------------------------------------------------------- detailed
@pytest.mark.parametrize("case", sorted(CASES))
def test_detailed_keeps_the_whole_flow_and_puts_satellites_beside_their_task(case: str) -> None:
    graph, _, layout = laid_out(CASES[case], "detailed")
    flow, _ = BUILDERS["vertical"](parse_diagram(CASES[case]), IN_ENGLISH, load_font(), "vertical")
    assert [(e.source, e.target) for e in layout.edges][:len(flow.edges)] == [(e.source, e.target) for e in flow.edges]
    assert satellite_problems(graph, layout) == []


def test_demo_tasks_get_their_inputs_outputs_org_units_systems_and_documents() -> None:
    graph, scene, _ = laid_out(DEMO["order-to-cash"], "detailed")
    task = next(s for s in parse_diagram(DEMO["order-to-cash"]).shapes
                if s.element.text("name", IN_ENGLISH) == "Post incoming payment")
    satellites = [scene.shapes[n.id] for n in graph.nodes if n.parent == task.shape_id]
    assert [v.type for v in satellites] == ["inOut", "inOut", "orgUnit", "system"]
    assert [v.lines for v in satellites][:2] == [("Payment advice",), ("Invoice",)]
    inputs = [e for e in graph.edges if e.target == task.shape_id and e.key.startswith("sat:")]
    assert len(inputs) == 2  # inputs flow into the task, the rest point away from it


# --------------------------------------------------------------------------- graphic
def test_graphic_nests_the_process_house_below_each_header() -> None:
    graph, _, layout = laid_out(DEMO["house"], "graphic")
    roles = [n.role for n in graph.nodes]
    assert [roles.count(role) for role in ("container", "band", "chain", "chevron")] == [1, 2, 1, 5]
    assert nesting_problems(graph, layout) == []
    assert 0.75 < layout.width / layout.height < 2.0
    assert [layout.nodes[0].id] == [parse_diagram(DEMO["house"]).id]  # frames drawn before what they hold


def test_graphic_of_an_element_without_children_is_one_box() -> None:
    graph, _, layout = laid_out(load_fixture(FIXTURES / "corpus" / "gateway.loop-back.json"), "graphic")
    assert [n.role for n in graph.nodes] == ["leaf"] and len(layout.nodes) == 1


# --------------------------------------------------------------------------- matrices
@pytest.mark.parametrize("key", ["processMatrix", "customerMatrix"])
@pytest.mark.parametrize("case", ["demo/order-to-cash", "demo/house", "corpus/lane.cross-lane-sequence-flow"])
def test_matrix_cells_tile_the_grid_under_their_headers(case: str, key: str) -> None:
    graph, scene, layout = laid_out(CASES[case], key)
    assert matrix_tiling_problems(graph, layout) == []
    assert set(scene.cell_marks) <= {(c.row_id, c.column_id) for c in layout.cells}
    marks = set("".join(scene.cell_marks.values()).replace("/", "")) if key == "processMatrix" else \
        {m for v in scene.cell_marks.values() for m in v.split("/")}
    assert marks <= {mark for mark, _ in scene.legend} | set("".join(m for m, _ in scene.legend))


def house_marks(key: str) -> tuple[Scene, dict[str, str]]:
    """The scene of the demo house's matrix and its element ids by English name."""
    _, scene, _ = laid_out(DEMO["house"], key)
    elements = parse_diagram(DEMO["house"]).elements.values()
    return scene, {e.text("name", IN_ENGLISH): e.id for e in elements}


def test_process_matrix_of_the_house_marks_every_context() -> None:
    scene, by_name = house_marks("processMatrix")
    assert scene.cell_marks[(by_name["Order to cash"], by_name["Sales"])] == "ER"
    assert scene.cell_marks[(by_name["Credit check"], by_name["Management board"])] == "I"
    assert scene.legend == (("E", "executed by"), ("R", "responsible"), ("C", "contributes"), ("I", "informed"))


def test_customer_matrix_marks_inputs_and_outputs() -> None:
    scene, by_name = house_marks("customerMatrix")
    assert scene.cell_marks[(by_name["Plan to produce"], by_name["Custom gearbox"])] == "In/Out"
    assert scene.cell_marks[(by_name["On-site maintenance"], by_name["Repair service"])] == "Out"


def test_a_matrix_with_hundreds_of_rows_stays_readable() -> None:
    long_name = "Check and approve the incoming supplier invoice against order and goods receipt " * 2
    units = [{"id": f"u{i}", "type": "orgUnit", "facetName": "organization",
              "attributes": {"name": {"1033": f"Department number {i} of the extended organization"}}}
             for i in range(12)]
    values = [{"shapeInfo": {"index": i, "predecessors": [i - 1] if i else []},
               "element": {"type": "task", "attributes": {"name": {"1033": f"{i} {long_name}"}},
                           "related": {"executedBy": [{"id": f"u{i % 12}"}]}}} for i in range(400)]
    fixture = {"diagram": {"id": "big", "type": "mainProcess"}, "elements": units, "values": values}
    graph, scene, layout = laid_out(fixture, "processMatrix")
    font = load_font()
    assert overlapping_pairs(layout) == []
    assert len(layout.cells) == 400 * 12 and len({n.box.h for n in layout.nodes if n.id not in
                                                  {u["id"] for u in units}}) == 1
    for node in layout.nodes:
        view = scene.shapes[node.id]
        assert 1 <= len(view.lines) <= 4
        assert all(font.text_width(line, scene.font_size) <= node.box.w - 8 for line in view.lines)
        assert len(view.lines) * font.line_height(scene.font_size) <= node.box.h


def test_a_matrix_without_columns_is_its_row_headers() -> None:
    graph, _, layout = laid_out(load_fixture(FIXTURES / "corpus" / "gateway.nested.json"), "customerMatrix")
    assert layout.cells == () and {n.role for n in graph.nodes} == {"row"} and layout.nodes


# --------------------------------------------------------------------------- entity-relationship
@pytest.mark.parametrize("case", sorted(CASES))
def test_entity_labels_sit_on_their_routes_and_cover_no_shape(case: str) -> None:
    _, scene, layout = laid_out(CASES[case], "entityRelationship")
    labelled = {(route.key, route.target) for route in layout.edges if route.label is not None}
    assert all((route.key, route.target) in labelled for route in layout.edges)  # every relation has a label
    assert entity_label_problems(layout) == []
    assert {route.key for route in layout.edges} <= set(scene.edge_labels)


def test_entities_list_name_type_and_version() -> None:
    fixture = {"diagram": {"id": "d", "type": "mainProcess"},
               "elements": [{"id": "o", "type": "orgUnit", "attributes": {
                   "name": {"1033": "Sales"}, "version": {"127": 3}, "state1": {"127": "released"}}}],
               "values": [{"shapeInfo": {"index": 0, "predecessors": []},
                           "element": {"type": "task", "attributes": {"name": {"1033": "Quote"}},
                                       "related": {"executedBy": [{"id": "o"}]}}},
                          {"shapeInfo": {"index": 1, "predecessors": [0]},
                           "element": {"type": "evEnd", "attributes": {"name": {"1033": "Done"}}}}]}
    graph, scene, layout = laid_out(fixture, "entityRelationship")
    assert scene.shapes["o"].lines == ("Sales", "\u00abOrg unit\u00bb", "v3 \u00b7 released")
    assert [n.id for n in layout.nodes] == ["d", "o"]  # the diagram element and what its shapes relate to
    assert [(e.source, e.target) for e in layout.edges] == [("d", "o")]
    assert scene.edge_labels[layout.edges[0].key] == ("executed by",)
