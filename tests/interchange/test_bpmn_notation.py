"""BPMN's notation in the SVG (interchange/notation.py, docs/interchange.md "Notation in the
SVG"): each construct drawn as bpmn-js draws it, at the geometry `elrepo layout` writes,
with the overlays of the SVG contract; `elrepo render FILE.bpmn`, `render_any` and the
render endpoint of an imported model draw it."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from lxml import etree
from pytest_regressions.file_regression import FileRegressionFixture

from interchange import BPMN_LAYOUT_KEYS, BpmnImport, bpmn_positions, read_bpmn
from interchange.drawing import draw_bpmn_import, is_bpmn_diagram, render_any
from interchange.kept import BPMN_TYPE
from interchange.notation import DASH_DOT, DASHED, DOTTED
from layouts.geometry import Box, Point
from renderer.api import render
from renderer.culture import DEFAULT_CULTURE
from renderer.measure import FONT_SIZE
from renderer.text import load_font
from repository.cli import main
from repository.cli.common import session_on
from repository.fixtures import diagram_fixture
from repository.store import Store, find_tenant
from tests.conftest import FIXTURES, ROOT
from tests.interchange.conftest import CORPUS
from tests.interchange.test_repository_roundtrip import TENANT, viewer
from tests.renderer.test_golden import same_svg

SVG = "{http://www.w3.org/2000/svg}"
BPMN = FIXTURES / "bpmn"
ALL_MARKERS = BPMN / "notation" / "all-markers.bpmn"
#: the flow names the corpus held when this test was written; each must be drawn
CORPUS_NAMED_SEQUENCE_FLOWS = 118
ROUNDING = 0.01
GOLDEN = ROOT / "golden" / "bpmn"
#: (file under tests/fixtures/bpmn, layout key): the README's message flows, and one of each kind
GOLDEN_CASES = [("collaboration.message-flows", "horizontalSwimlane"), ("boundary-event.simple", "horizontal"),
                ("nested-lanes", "verticalSwimlane"), ("sub-process.mixed", "vertical"),
                ("group.members-from-di", "horizontal"), ("notation/all-markers", "horizontalSwimlane")]


#: a file read, its SVG parsed and as text
Drawn = tuple[BpmnImport, etree._Element, str]


def drawn(path: Path, key: str = "horizontal") -> Drawn:
    imported = read_bpmn(path.read_bytes())
    svg = draw_bpmn_import(imported, key, DEFAULT_CULTURE)
    return imported, etree.fromstring(svg.encode()), svg


@pytest.fixture(scope="module")
def markers() -> Drawn:
    return drawn(ALL_MARKERS)


def node_group(root: etree._Element, bpmn_id: str) -> etree._Element:
    found = [g for g in root.iter(f"{SVG}g") if g.get("data-bpmn-id") == bpmn_id]
    assert len(found) == 1, bpmn_id
    return found[0]


def connector(root: etree._Element, bpmn_id: str) -> etree._Element:
    found = [p for p in root.iter(f"{SVG}path") if p.get("class") in ("connector", "flow")
             and p.get("data-bpmn-id") == bpmn_id]
    assert len(found) == 1, bpmn_id
    return found[0]


def classes(element: etree._Element) -> set[str]:
    return {str(g.get("class")) for g in element.iter(f"{SVG}g")}


def overlays(root: etree._Element) -> dict[str, etree._Element]:
    return {str(rect.get("data-guid")): rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "overlay"}


def box_of(element: etree._Element) -> Box:
    return Box(*(float(element.get(name) or "nan") for name in ("x", "y", "width", "height")))


def texts(root: etree._Element) -> list[str]:
    return [" ".join(text.itertext()) for text in root.iter(f"{SVG}text")]


def route_points(path: etree._Element) -> list[Point]:
    """The points of an ``M H V L`` path."""
    tokens = str(path.get("d")).split()
    points: list[Point] = []
    index = 0
    while index < len(tokens):
        command = tokens[index]
        if command in ("M", "L"):
            points.append((float(tokens[index + 1]), float(tokens[index + 2])))
            index += 3
        elif command == "H":
            points.append((float(tokens[index + 1]), points[-1][1]))
            index += 2
        else:
            assert command == "V", command
            points.append((points[-1][0], float(tokens[index + 1])))
            index += 2
    return points


def distance_to_route(point: Point, route: list[Point]) -> float:
    def to_segment(a: Point, b: Point) -> float:
        (ax, ay), (bx, by), (px, py) = a, b, point
        length = (bx - ax) ** 2 + (by - ay) ** 2
        t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / length))
        return math.hypot(px - ax - t * (bx - ax), py - ay - t * (by - ay))

    return min(to_segment(a, b) for a, b in zip(route, route[1:]))


# ---- events ----------------------------------------------------------------------------

def test_boundary_events_sit_on_their_hosts_border_dashed_when_non_interrupting(markers: Drawn) -> None:
    _, root, _ = markers
    host = box_of(overlays(root)["Review"])
    for event, dashed in (("Reminder", True), ("Failed", False)):
        circles = [c for c in node_group(root, event) if c.tag == f"{SVG}circle"]
        cx, cy = float(circles[0].get("cx") or "nan"), float(circles[0].get("cy") or "nan")
        # on the border facing what it leads to: the upper or lower one here
        assert min(abs(cy - host.bottom), abs(cy - host.y)) <= ROUNDING and host.x <= cx <= host.right, event
        assert all(bool(c.get("stroke-dasharray")) == dashed for c in circles[:2]), event


def test_each_event_definition_has_its_marker_a_throw_filled(markers: Drawn) -> None:
    imported, root, _ = markers
    events = [node for node in imported.model.nodes if node.event_definitions]
    assert len(events) >= 10
    for node in events:
        kind = "multiple" if len(node.event_definitions) > 1 else node.event_definitions[0]
        group = node_group(root, node.id)
        assert f"marker-{kind}" in classes(group), node.id
    throw = next(g for g in node_group(root, "Escalate").iter(f"{SVG}g") if g.get("class") == "marker-escalation")
    catch = next(g for g in node_group(root, "Condition").iter(f"{SVG}g") if g.get("class") == "marker-conditional")
    assert throw[0].get("fill") != catch[0].get("fill") == "#ffffff"


def test_start_end_and_intermediate_events_differ_in_their_rims(markers: Drawn) -> None:
    _, root, _ = markers

    def rims(bpmn_id: str) -> list[str]:
        return [str(c.get("stroke-width")) for c in node_group(root, bpmn_id) if c.tag == f"{SVG}circle"]

    assert rims("Start") == ["2"] and rims("End") == ["4"] and rims("Condition") == ["1.5", "1.5"]


# ---- gateways and activities -----------------------------------------------------------

def test_gateways_are_diamonds_with_their_marks(markers: Drawn) -> None:
    _, root, _ = markers
    for gateway, circles, strokes in (("Complex", 0, 4), ("Inclusive", 1, 0), ("EventBased", 2, 0)):
        group = node_group(root, gateway)
        assert group[0].tag == f"{SVG}polygon" and len(str(group[0].get("points")).split()) == 4
        assert sum(1 for c in group if c.tag == f"{SVG}circle") == circles, gateway
        assert sum(1 for p in group if p.tag == f"{SVG}path") == strokes, gateway


def test_each_task_kind_and_activity_marker_is_drawn(markers: Drawn) -> None:
    _, root, _ = markers
    expected = {"Review": {"marker-userTask", "marker-loop"}, "Compute": {"marker-serviceTask", "marker-parallel"},
                "Send": {"marker-sendTask", "marker-sequential"}, "Receive": {"marker-receiveTask"},
                "Pack": {"marker-manualTask"}, "Script": {"marker-scriptTask"},
                "Rule": {"marker-businessRuleTask", "marker-compensation"},
                "AdHoc": {"marker-collapsed", "marker-adHoc"}}
    for node, wanted in expected.items():
        group = node_group(root, node)
        found = classes(group) | {str(p.get("class")) for p in group.iter(f"{SVG}path")}
        assert wanted <= found, (node, found)
    assert node_group(root, "Call")[0].get("stroke-width") == "5"
    transaction = [r for r in node_group(root, "Booking") if r.tag == f"{SVG}rect"]
    assert len(transaction) == 2  # the double border


def test_collapsed_and_expanded_sub_processes() -> None:
    imported, root, _ = drawn(BPMN / "sub-process.mixed.bpmn")
    geometry = bpmn_positions(imported.model, "horizontal")
    for node in imported.model.nodes:
        if node.tag != "subProcess":
            continue
        group = node_group(root, node.id)
        assert ("marker-collapsed" in classes(group)) == (node.id not in geometry.expanded), node.id
        assert (node_group(root, node.id)[0].get("stroke-dasharray") == DOTTED) == \
            ("eventSubProcess" in node.markers), node.id


# ---- flows -----------------------------------------------------------------------------

def test_default_and_conditional_flows_are_marked_at_their_source(markers: Drawn) -> None:
    _, root, _ = markers
    assert connector(root, "Flow_Default").get("marker-start") == "url(#default-start)"
    assert connector(root, "Flow_Cond").get("marker-start") == "url(#condition-start)"
    assert connector(root, "Flow_1").get("marker-start") is None
    assert connector(root, "Flow_1").get("marker-end") == "url(#sequence-end)"


def test_message_flows_are_dashed_from_a_circle_to_an_open_arrow(markers: Drawn) -> None:
    _, root, _ = markers
    for flow in ("Message_Pay", "Message_Ack"):
        path = connector(root, flow)
        assert path.get("stroke-dasharray") == DASHED
        assert (path.get("marker-start"), path.get("marker-end")) == ("url(#message-start)", "url(#message-end)")
    ends = {marker.get("id"): marker[0] for marker in root.iter(f"{SVG}marker")}
    assert ends["message-start"].tag == f"{SVG}circle" and ends["message-end"].get("fill") == "#ffffff"


def test_associations_are_dotted_data_associations_with_an_open_arrow(markers: Drawn) -> None:
    _, root, _ = markers
    for flow, arrow in (("Association_Note", None), ("Read_Store", "url(#data-end)"),
                        ("Write_Invoice", "url(#data-end)")):
        path = connector(root, flow)
        assert path.get("stroke-dasharray") == DOTTED and path.get("marker-end") == arrow, flow


LABEL_REACH = 40.0  # a flow's name is this close to its flow, at its nearest corner


def test_every_named_flow_has_its_name_beside_it(markers: Drawn) -> None:
    imported, root, _ = markers
    named = [flow for flow in imported.model.flows if flow.names]
    assert len(named) >= 5
    labels = {text.get("data-flow-id"): text for text in root.iter(f"{SVG}text") if text.get("class") == "flow-label"}
    font = load_font()
    for flow in named:
        label = labels[flow.id]
        lines = list(label.itertext())
        assert " ".join(lines) == next(iter(flow.names.values()))
        x, y = float(label.get("x") or label[0].get("x") or "nan"), float(label.get("y") or label[0].get("y") or "nan")
        width, top = max(font.text_width(line, FONT_SIZE) for line in lines), y - FONT_SIZE
        height = len(lines) * font.line_height(FONT_SIZE)
        corners = [(x, top), (x + width, top), (x, top + height), (x + width, top + height)]
        # beside it: the layout puts a name at the first free spot along its flow, above the
        # nodes when the gap between them is narrower than the name (all-markers' "otherwise")
        assert min(distance_to_route(corner, route_points(connector(root, flow.id))) for corner in corners) \
            < LABEL_REACH, flow.id


def test_every_named_sequence_flow_of_the_corpus_is_drawn(shared_dir: Path) -> None:
    named = labelled = 0
    for path in CORPUS:
        imported, root, _ = drawn(path)
        labels = {text.get("data-flow-id") for text in root.iter(f"{SVG}text") if text.get("class") == "flow-label"}
        flows = [flow.id for flow in imported.model.flows if flow.tag == "sequenceFlow" and flow.names]
        named += len(flows)
        labelled += sum(1 for flow in flows if flow in labels)
    assert labelled == named >= CORPUS_NAMED_SEQUENCE_FLOWS


# ---- pools, lanes, data, annotations, groups -------------------------------------------

def test_a_black_box_pool_is_an_empty_band_with_its_name(markers: Drawn) -> None:
    _, root, _ = markers
    pool = next(g for g in root.iter(f"{SVG}g") if g.get("data-pool-id") == "Pool_Bank")
    band = box_of(pool[0])
    assert [child.tag for child in pool] == [f"{SVG}rect", f"{SVG}text"] and pool[1].text == "Bank"
    assert not any(band.x < o.x + o.w / 2 < band.right and band.y < o.y + o.h / 2 < band.bottom
                   for o in map(box_of, overlays(root).values()))


def test_nested_lanes_lie_inside_their_parent_inside_the_pool() -> None:
    imported, root, _ = drawn(BPMN / "nested-lanes.bpmn", "horizontalSwimlane")
    lanes = {g.get("data-lane-id"): box_of(g[0]) for g in root.iter(f"{SVG}g") if g.get("class") == "lane"}
    pool = next(box_of(g[0]) for g in root.iter(f"{SVG}g") if g.get("data-pool-id") == "Pool_Shop")
    for lane in imported.model.lanes:
        outer = lanes[lane.parent] if lane.parent else pool
        inner = lanes[lane.id]
        assert outer.x - ROUNDING <= inner.x and inner.right <= outer.right + ROUNDING, lane.id
        assert outer.y - ROUNDING <= inner.y and inner.bottom <= outer.bottom + ROUNDING, lane.id
        if lane.parent:
            assert inner.x > outer.x  # beside its parent's name strip
    assert {"Vertrieb", "Innendienst", "Aussendienst", "Buchhaltung", "Shop"} <= set(texts(root))


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_a_file_without_lanes_gets_no_invented_lane(key: str) -> None:
    for name in ("boundary-event.simple.bpmn", "collaboration.one-pool-without-lanes.bpmn"):
        _, root, svg = drawn(BPMN / name, key)
        assert "Unassigned" not in svg and "unassigned" not in svg, name


def test_data_store_cylinder_data_object_page_annotation_bracket_and_group(markers: Drawn) -> None:
    _, root, _ = markers
    store = node_group(root, "Store")
    assert [child.tag for child in store][:2] == [f"{SVG}path", f"{SVG}path"]
    assert " A " in str(store[0].get("d"))  # the can's rounded top and bottom
    page = node_group(root, "Invoice_Ref")
    assert page[0].tag == f"{SVG}polygon" and len(str(page[0].get("points")).split()) == 5  # the dog-ear
    bracket = node_group(root, "Note")
    assert bracket[0].tag == f"{SVG}path" and str(bracket[0].get("d")).count(" ") == 8  # open on the right
    assert 'Checked by <two> & "people"' in texts(root)
    groups = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "groups")
    assert [rect.get("stroke-dasharray") for rect in groups] == [DASH_DOT]


# ---- the contract ----------------------------------------------------------------------

def test_one_overlay_per_node_last_with_the_contracts_attributes(markers: Drawn) -> None:
    imported, root, _ = markers
    assert root[-1].get("class") == "overlays"
    assert root.get("data-diagram-id") == "Collaboration_1" and root.get("data-layout") == "horizontal"
    drawn_nodes = [node for node in imported.model.nodes if node.id in imported.shape_index]
    rects = list(root[-1])
    assert len(rects) == len(drawn_nodes) == len(overlays(root))
    for node in drawn_nodes:
        rect = overlays(root)[node.id]
        assert rect.get("fill") == "transparent"
        assert rect.get("data-shape-id") == f"shape-{imported.shape_index[node.id]}"
        assert rect.get("data-type") == node.shape_type and rect.get("data-diagram-id") == "Collaboration_1"


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_the_same_file_gives_the_same_bytes(key: str) -> None:
    assert drawn(ALL_MARKERS, key)[2] == drawn(ALL_MARKERS, key)[2]


def test_user_text_stays_text(markers: Drawn) -> None:
    _, root, svg = markers
    assert 'Orders <&"' in texts(root) and "approved <&>" in texts(root)
    assert "<order>" not in svg and "<&" not in svg


def test_no_two_nodes_overlap(markers: Drawn) -> None:
    _, root, _ = markers
    boxes = [(guid, box_of(rect)) for guid, rect in overlays(root).items()]
    for index, (one, a) in enumerate(boxes):
        for other, b in boxes[index + 1:]:
            apart = a.right <= b.x or b.right <= a.x or a.bottom <= b.y or b.bottom <= a.y
            on_border = {one, other} <= {"Review", "Reminder", "Failed"}  # boundary events on their host
            assert apart or on_border, (one, other)


# ---- dispatch --------------------------------------------------------------------------

def test_render_any_draws_bpmn_fixtures_in_bpmn_layouts_only() -> None:
    fixture = read_bpmn((BPMN / "collaboration.message-flows.bpmn").read_bytes()).fixture
    assert is_bpmn_diagram(fixture)
    assert "message-end" in render_any(fixture, "horizontal")
    assert render_any(fixture, "detailed") == render(fixture, "detailed")
    sub_process = {**fixture, "diagram": {**fixture["diagram"], "attributes": {BPMN_TYPE: {"127": "transaction"}}}}
    assert is_bpmn_diagram(sub_process)
    ours = {**fixture, "diagram": {**fixture["diagram"], "attributes": {}}}
    assert not is_bpmn_diagram(ours) and render_any(ours, "horizontal") == render(ours, "horizontal")


def test_elrepo_render_draws_a_bpmn_file_in_its_notation(tmp_path: Path) -> None:
    out = tmp_path / "out.svg"
    assert main(["render", str(ALL_MARKERS), "--layout", "verticalSwimlane", "-o", str(out)]) == 0
    assert out.read_text() == drawn(ALL_MARKERS, "verticalSwimlane")[2]


def test_the_render_endpoint_draws_an_imported_model_in_its_notation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'bpmn.db'}"
    assert main(["tenant", "create", *TENANT, "--db", db]) == 0
    assert main(["import", "--db", db, *TENANT, str(BPMN / "collaboration.message-flows.bpmn")]) == 0
    app, client, headers, diagrams = viewer(db, capsys)
    base = f"/acme/main/_api/rest/diagram/{diagrams[0]['id']}/render/1033"
    response = client.get(f"{base}/horizontal", headers=headers)
    assert response.status_code == 200
    root = etree.fromstring(response.data)
    assert {marker.get("id") for marker in root.iter(f"{SVG}marker")} >= {"message-start", "message-end"}
    assert root.get("data-diagram-id") == diagrams[0]["id"]
    with session_on(db, write=False) as session:
        tenant = find_tenant(session, *TENANT)
        assert tenant is not None
        store = Store(session, tenant)
        fixture = diagram_fixture(store, next(d for d in store.reads.diagrams() if d.id == diagrams[0]["id"]))
    stored = {value["element"]["id"]: value["shapeInfo"]["id"] for value in fixture["values"]}
    assert {guid: rect.get("data-shape-id") for guid, rect in overlays(root).items()} == stored
    swimlanes = etree.fromstring(client.get(f"{base}/horizontalSwimlane", headers=headers).data)
    units = {element["id"] for element in fixture["elements"] if element["type"] == "orgUnit"}
    lanes = {rect.get("data-lane-id") for rect in overlays(swimlanes).values()}
    assert len(lanes) == 2 and lanes <= units
    assert lanes <= {g.get("data-lane-id") for g in swimlanes.iter(f"{SVG}g") if g.get("class") == "lane"}
    ours = etree.fromstring(client.get(f"{base}/detailed", headers=headers).data)
    assert not any(marker.get("id") == "message-end" for marker in ours.iter(f"{SVG}marker"))
    app.extensions["elrepo.engine"].dispose()


@pytest.mark.parametrize(("name", "key"), GOLDEN_CASES, ids=[f"{name}-{key}" for name, key in GOLDEN_CASES])
def test_golden_notation(name: str, key: str, file_regression: FileRegressionFixture) -> None:
    """A change in the picture fails here; after looking at the new picture, ``--force-regen``."""
    svg = drawn(BPMN / f"{name}.bpmn", key)[2]
    file_regression.check(svg, fullpath=GOLDEN / f"{Path(name).name}.{key}.svg", check_fn=same_svg)


def test_elrepo_export_draws_imported_models_in_their_notation(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'bpmn.db'}"
    assert main(["tenant", "create", *TENANT, "--db", db]) == 0
    assert main(["import", "--db", db, *TENANT, str(BPMN / "collaboration.message-flows.bpmn")]) == 0
    out = tmp_path / "out"
    assert main(["export", "--db", db, *TENANT, "-o", str(out), "--layout", "horizontalSwimlane",
                 "--layout", "detailed"]) == 0
    drawn_by = {path.name.split(".")[-2]: etree.parse(str(path)).getroot() for path in out.glob("*.svg")}
    assert set(drawn_by) == {"horizontalSwimlane", "detailed"}
    for key, root in drawn_by.items():
        markers = {marker.get("id") for marker in root.iter(f"{SVG}marker")}
        assert ("message-end" in markers) == (key == "horizontalSwimlane"), key


def test_an_event_definition_bpmn_does_not_name_draws_the_event_without_marker() -> None:
    xml = b"""<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"><process id="p">
      <startEvent id="s"><fooEventDefinition/></startEvent><task id="t"/>
      <sequenceFlow id="f" sourceRef="s" targetRef="t"/></process></definitions>"""
    root = etree.fromstring(draw_bpmn_import(read_bpmn(xml), "horizontal", DEFAULT_CULTURE).encode())
    assert [child.tag for child in node_group(root, "s")] == [f"{SVG}circle"]
