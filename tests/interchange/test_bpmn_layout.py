"""Laid-out BPMN: complete DI from our engine, everything else of the file preserved."""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from interchange import BPMN_LAYOUT_KEYS, BpmnError, bpmn_positions, layout_bpmn, read_bpmn
from interchange.di_metrics import overlaps
from interchange.drawing import draw_bpmn_import
from interchange.parsing import BPMNDI_NS, DC_NS, DI_NS, MODEL_NS
from interchange.positions import marker_band
from layouts.geometry import Box
from renderer.culture import DEFAULT_CULTURE
from renderer.measure import FONT_SIZE
from tests.conftest import attribute
from tests.geometry_checks import segment_enters

BPMN = Path(__file__).parent.parent / "fixtures" / "bpmn"
FILES = sorted(BPMN.glob("*.bpmn"))
CASES = [(path, key) for path in FILES for key in BPMN_LAYOUT_KEYS]

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def laid_out() -> dict[tuple[str, str], bytes]:
    return {(path.name, key): layout_bpmn(path.read_bytes(), key) for path, key in CASES}


# Keyed by bpmnElement, which a DI element may lack (None).
ByElement = dict[str | None, etree._Element]


def di(output: bytes) -> tuple[etree._Element, ByElement, ByElement]:
    root = etree.fromstring(output)
    shapes = {s.get("bpmnElement"): s for s in root.iter(f"{{{BPMNDI_NS}}}BPMNShape")}
    edges = {e.get("bpmnElement"): e for e in root.iter(f"{{{BPMNDI_NS}}}BPMNEdge")}
    return root, shapes, edges


def bounds(shape: etree._Element) -> tuple[float, float, float, float]:
    box = shape.find(f"{{{DC_NS}}}Bounds")
    assert box is not None, shape.get("bpmnElement")
    x, y, width, height = (float(attribute(box, name)) for name in ("x", "y", "width", "height"))
    return x, y, width, height


def inside(inner: tuple[float, ...], outer: tuple[float, ...]) -> bool:
    return (outer[0] - 0.01 <= inner[0] and inner[0] + inner[2] <= outer[0] + outer[2] + 0.01
            and outer[1] - 0.01 <= inner[1] and inner[1] + inner[3] <= outer[1] + outer[3] + 0.01)


def without_di(data: bytes) -> bytes:
    root = etree.fromstring(data)
    for diagram in root.findall(f"{{{BPMNDI_NS}}}BPMNDiagram"):
        root.remove(diagram)
    for element in root.iter():
        element.tail = None
        if len(element):
            element.text = None
    return bytes(etree.tostring(root, method="c14n"))


@pytest.mark.parametrize(("path", "key"), CASES, ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_every_node_pool_lane_and_flow_gets_di(path: Path, key: str, laid_out: dict[tuple[str, str], bytes]) -> None:
    output = laid_out[(path.name, key)]
    model = read_bpmn(path.read_bytes()).model
    root, shapes, edges = di(output)
    assert len(root.findall(f"{{{BPMNDI_NS}}}BPMNDiagram")) == 1  # any earlier DI replaced
    band_ids = [p.id for p in model.pools] + [lane.id for lane in model.lanes]
    for element_id in [n.id for n in model.nodes] + band_ids:
        x, y, w, h = bounds(shapes[element_id])
        assert w > 0 and h > 0 and x >= 0 and y >= 0
    for flow in model.flows:
        if flow.tag == "association" and not (model.node(flow.source) or model.node(flow.target)):
            continue
        assert len(edges[flow.id].findall(f"{{{DI_NS}}}waypoint")) >= 2, flow.id
    horizontal = "false" if key.startswith("vertical") else "true"
    assert all(shapes[band_id].get("isHorizontal") == horizontal for band_id in band_ids)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_model_ids_extensions_and_documentation_are_preserved(
        path: Path, laid_out: dict[tuple[str, str], bytes]) -> None:
    original = path.read_bytes()
    output = laid_out[(path.name, "horizontal")]
    assert without_di(output) == without_di(original)
    assert read_bpmn(output).model == read_bpmn(original).model


def test_output_uses_the_omg_namespaces_and_declares_missing_prefixes() -> None:
    bare = (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
            b'<process id="p"><startEvent id="s"/><task id="t" name="Do"/><sequenceFlow id="f" sourceRef="s" '
            b'targetRef="t"/></process></definitions>')
    root, shapes, edges = di(layout_bpmn(bare))
    assert root.tag == f"{{{MODEL_NS}}}definitions"
    plane = root.find(f"{{{BPMNDI_NS}}}BPMNDiagram/{{{BPMNDI_NS}}}BPMNPlane")
    assert plane is not None and plane.get("bpmnElement") == "p"
    assert set(shapes) == {"s", "t"} and set(edges) == {"f"}


def test_nodes_lie_in_their_lane_and_lanes_in_their_pool(laid_out: dict[tuple[str, str], bytes]) -> None:
    model = read_bpmn((BPMN / "nested-lanes.bpmn").read_bytes()).model
    for key in BPMN_LAYOUT_KEYS:
        _, shapes, _ = di(laid_out[("nested-lanes.bpmn", key)])
        for node in model.nodes:
            if node.lane and not node.attached_to:
                assert inside(bounds(shapes[node.id]), bounds(shapes[node.lane])), (key, node.id)
        for lane in model.lanes:
            assert inside(bounds(shapes[lane.id]), bounds(shapes[lane.parent or "Pool_Shop"])), (key, lane.id)
        shop, customer = bounds(shapes["Pool_Shop"]), bounds(shapes["Pool_Customer"])
        assert not inside(customer, shop) and customer[2] > 0


def test_boundary_events_sit_on_their_hosts_border(laid_out: dict[tuple[str, str], bytes]) -> None:
    for name, event, host in (("nested-lanes.bpmn", "Timeout", "Check"),
                              ("boundary-event.simple.bpmn", None, None)):
        model = read_bpmn((BPMN / name).read_bytes()).model
        pairs = [(event, host)] if event else [(n.id, n.attached_to) for n in model.nodes if n.attached_to]
        assert pairs
        for key in BPMN_LAYOUT_KEYS:
            _, shapes, edges = di(laid_out[(name, key)])
            for event_id, host_id in pairs:
                ex, ey, ew, eh = bounds(shapes[event_id])
                hx, hy, hw, hh = bounds(shapes[host_id])
                cx, cy = ex + ew / 2, ey + eh / 2
                if key.startswith("horizontal"):  # centre on the lower or upper border, within it
                    assert min(abs(cy - hy - hh), abs(cy - hy)) == pytest.approx(0, abs=0.01)
                    assert hx <= cx <= hx + hw
                else:  # on the right or left border: across the flow, clear of the flow's way out
                    assert min(abs(cx - hx - hw), abs(cx - hx)) == pytest.approx(0, abs=0.01)
                    assert hy <= cy <= hy + hh
                for flow in model.flows:
                    if flow.source == event_id:
                        first = edges[flow.id].find(f"{{{DI_NS}}}waypoint")
                        assert first is not None, flow.id
                        point = (float(attribute(first, "x")), float(attribute(first, "y")))
                        assert point in [pytest.approx(side, abs=0.01) for side in
                                         ((cx, ey + eh), (cx, ey), (ex + ew, cy), (ex, cy))]


def test_expanded_sub_process_holds_its_content(laid_out: dict[tuple[str, str], bytes]) -> None:
    model = read_bpmn((BPMN / "sub-process.mixed.bpmn").read_bytes()).model
    _, shapes, _ = di(laid_out[("sub-process.mixed.bpmn", "horizontal")])
    nested = [node for node in model.nodes if node.parent]
    assert nested
    for node in nested:
        assert shapes[str(node.parent)].get("isExpanded") == "true"
        assert inside(bounds(shapes[node.id]), bounds(shapes[str(node.parent)]))


def test_unknown_layout_key_is_a_bpmn_error() -> None:
    with pytest.raises(BpmnError, match="unknown BPMN layout 'graphic'"):
        layout_bpmn((BPMN / "boundary-event.simple.bpmn").read_bytes(), "graphic")


def test_output_is_deterministic() -> None:
    data = (BPMN / "nested-lanes.bpmn").read_bytes()
    assert layout_bpmn(data, "verticalSwimlane") == layout_bpmn(data, "verticalSwimlane")


def test_message_flows_to_a_pool_pass_no_flow_node(laid_out: dict[tuple[str, str], bytes]) -> None:
    """They leave the node's border and go round what lies between it and the pool;
    only the sub-processes the node sits in are crossed."""
    checked = 0
    for path, key in CASES:
        model = read_bpmn(path.read_bytes()).model
        pools = {pool.id for pool in model.pools}
        _, shapes, edges = di(laid_out[(path.name, key)])
        for flow in model.flows:
            if flow.tag != "messageFlow" or not {flow.source, flow.target} & pools:
                continue
            node_end = model.node(flow.target if flow.source in pools else flow.source)
            around = {flow.source, flow.target}
            while node_end is not None and node_end.parent:
                around.add(node_end.parent)
                node_end = model.node(node_end.parent)
            route = waypoints(edges[flow.id])
            for node in model.nodes:
                if node.id not in around:
                    x, y, width, height = bounds(shapes[node.id])
                    box = Box(x, y, width, height)
                    assert not any(segment_enters(p, q, box) for p, q in zip(route, route[1:])), \
                        (path.name, key, flow.id, node.id)
            checked += 1
    assert checked >= 2 * len(BPMN_LAYOUT_KEYS)


def waypoints(edge: etree._Element) -> list[tuple[float, float]]:
    return [(float(attribute(point, "x")), float(attribute(point, "y")))
            for point in edge.findall(f"{{{DI_NS}}}waypoint")]


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_groups_frame_the_members_their_old_box_held(key: str, laid_out: dict[tuple[str, str], bytes]) -> None:
    model = read_bpmn((BPMN / "group.members-from-di.bpmn").read_bytes()).model
    assert [(group.id, group.members) for group in model.groups] == [
        ("Group_Review", ("Task_Read", "Task_Comment")), ("Group_Elsewhere", ())]
    _, shapes, _ = di(laid_out[("group.members-from-di.bpmn", key)])
    review, elsewhere = bounds(shapes["Group_Review"]), bounds(shapes["Group_Elsewhere"])
    for node in model.nodes:
        assert inside(bounds(shapes[node.id]), review) is (node.id in ("Task_Read", "Task_Comment")), node.id
        assert not overlap(bounds(shapes[node.id]), elsewhere), node.id


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


# A host with two boundary events on its lower border: a loop comes back into it from the lane
# below, and its outflow leaves downwards in the vertical layouts, where the events sit.
HOST_WITH_BOUNDARY_EVENTS = b"""<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
 id="d" targetNamespace="t">
 <process id="p">
  <laneSet id="ls">
   <lane id="Desk"><flowNodeRef>Start</flowNodeRef><flowNodeRef>Host</flowNodeRef><flowNodeRef>Late</flowNodeRef>
    <flowNodeRef>Fail</flowNodeRef><flowNodeRef>Again</flowNodeRef><flowNodeRef>Done</flowNodeRef>
    <flowNodeRef>TooLate</flowNodeRef><flowNodeRef>Failed</flowNodeRef></lane>
   <lane id="Store"><flowNodeRef>Retry</flowNodeRef></lane>
  </laneSet>
  <startEvent id="Start"/>
  <task id="Host" name="Check stock"/>
  <boundaryEvent id="Late" attachedToRef="Host"><timerEventDefinition/></boundaryEvent>
  <boundaryEvent id="Fail" attachedToRef="Host"><errorEventDefinition/></boundaryEvent>
  <exclusiveGateway id="Again"/>
  <task id="Retry" name="Reorder"/>
  <endEvent id="Done"/>
  <endEvent id="TooLate"/>
  <endEvent id="Failed"/>
  <sequenceFlow id="In" sourceRef="Start" targetRef="Host"/>
  <sequenceFlow id="Out" sourceRef="Host" targetRef="Again"/>
  <sequenceFlow id="ToRetry" sourceRef="Again" targetRef="Retry"/>
  <sequenceFlow id="Back" sourceRef="Retry" targetRef="Host"/>
  <sequenceFlow id="ToDone" sourceRef="Again" targetRef="Done"/>
  <sequenceFlow id="L" sourceRef="Late" targetRef="TooLate"/>
  <sequenceFlow id="F" sourceRef="Fail" targetRef="Failed"/>
 </process>
</definitions>"""


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_flows_into_and_out_of_a_host_keep_clear_of_its_boundary_events(key: str) -> None:
    """The engine draws its routes before the boundary events move onto their host's
    border; a route into or out of the host then uses a port no event covers and runs
    around the events, as every other route does."""
    _, shapes, edges = di(layout_bpmn(HOST_WITH_BOUNDARY_EVENTS, key))
    host = Box(*bounds(shapes["Host"]))
    events = [Box(*bounds(shapes[event])) for event in ("Late", "Fail")]
    for flow in ("In", "Out", "Back", "ToRetry", "ToDone", "L", "F"):
        route = waypoints(edges[flow])
        assert all(p[0] == q[0] or p[1] == q[1] for p, q in zip(route, route[1:])), (flow, route)
        assert not any(segment_enters(p, q, event) for p, q in zip(route, route[1:]) for event in events), \
            (flow, route)
    for flow, at_host in (("In", -1), ("Back", -1), ("Out", 0)):
        x, y = waypoints(edges[flow])[at_host]
        on_side = min(abs(y - host.y), abs(y - host.bottom)) < 0.01 or min(abs(x - host.x), abs(x - host.right)) < 0.01
        assert on_side and inside((x, y, 0.0, 0.0), (host.x, host.y, host.w, host.h)), (flow, (x, y))
        assert not any(event.x < x < event.right and event.y < y < event.bottom for event in events), (flow, (x, y))


DEFAULT_SHORT_BRANCH = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p">
    <startEvent id="start"/>
    <exclusiveGateway id="split" default="to_quick"/>
    <task id="check_a"/><task id="check_b"/><task id="check_c"/>
    <task id="quick"/>
    <exclusiveGateway id="join"/>
    <endEvent id="end"/>
    <sequenceFlow id="f0" sourceRef="start" targetRef="split"/>
    <sequenceFlow id="f1" sourceRef="split" targetRef="check_a"/>
    <sequenceFlow id="f2" sourceRef="check_a" targetRef="check_b"/>
    <sequenceFlow id="f3" sourceRef="check_b" targetRef="check_c"/>
    <sequenceFlow id="f4" sourceRef="check_c" targetRef="join"/>
    <sequenceFlow id="to_quick" sourceRef="split" targetRef="quick"/>
    <sequenceFlow id="f5" sourceRef="quick" targetRef="join"/>
    <sequenceFlow id="f6" sourceRef="join" targetRef="end"/>
  </process>
</definitions>"""


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_the_happy_path_follows_the_default_flow(key: str) -> None:
    """The modeller's default branch runs on the main line, though the other is longer."""
    _, shapes, _ = di(layout_bpmn(DEFAULT_SHORT_BRANCH, key))

    def centre(node: str) -> tuple[float, float]:
        x, y, width, height = bounds(shapes[node])
        return x + width / 2, y + height / 2

    across = 0 if key.startswith("vertical") else 1
    line = centre("split")[across]
    assert [centre(node)[across] for node in ("start", "quick", "join", "end")] == pytest.approx([line] * 4)
    assert centre("check_b")[across] != pytest.approx(line)


COLLAPSED_HOST_WITH_NAMED_EVENTS = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
 <escalation id="esc"/><message id="msg"/>
 <process id="p">
  <startEvent id="Start"/>
  <subProcess id="Host" name="Check the claimed damage"/>
  <boundaryEvent id="Raise" name="Escalation raised by the assessor" attachedToRef="Host">
   <escalationEventDefinition escalationRef="esc"/>
  </boundaryEvent>
  <boundaryEvent id="Note" name="Note received from the customer" attachedToRef="Host" cancelActivity="false">
   <messageEventDefinition messageRef="msg"/>
  </boundaryEvent>
  <task id="Pay"/><task id="Escalate"/><task id="Record"/>
  <endEvent id="Paid"/><endEvent id="Escalated"/>
  <sequenceFlow id="f1" sourceRef="Start" targetRef="Host"/>
  <sequenceFlow id="f2" sourceRef="Host" targetRef="Pay"/>
  <sequenceFlow id="f3" sourceRef="Pay" targetRef="Paid"/>
  <sequenceFlow id="f4" sourceRef="Raise" targetRef="Escalate"/>
  <sequenceFlow id="f5" sourceRef="Escalate" targetRef="Escalated"/>
  <sequenceFlow id="f6" sourceRef="Note" targetRef="Record"/>
  <sequenceFlow id="f7" sourceRef="Record" targetRef="Paid"/>
 </process>
</definitions>"""


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_boundary_events_leave_the_hosts_marker_and_names_visible(key: str) -> None:
    """Two named boundary events on a collapsed sub-process: neither covers the host's
    [+] marker, their names lie over neither each other nor the host, and the host's
    name ends above its marker."""
    imported = read_bpmn(COLLAPSED_HOST_WITH_NAMED_EVENTS)
    host_node = imported.model.node("Host")
    assert host_node is not None
    geometry = bpmn_positions(imported.model, key)
    host = geometry.shapes["Host"]
    band = marker_band(host_node, host, expanded=False)
    assert band is not None
    names = [geometry.labels[event] for event in ("Raise", "Note")]
    assert not any(overlaps(geometry.shapes[event], band) for event in ("Raise", "Note")), band
    assert not overlaps(*names), names
    assert not any(overlaps(name, host) for name in names), (names, host)
    drawn = etree.fromstring(draw_bpmn_import(imported, key, DEFAULT_CULTURE).encode())
    group = next(g for g in drawn.iter(f"{SVG}g") if g.get("data-bpmn-id") == "Host")
    marker = group.find(f"{SVG}g[@class='marker-collapsed']/{SVG}polygon")
    assert marker is not None
    marker_top = min(float(point.split(",")[1]) for point in str(marker.get("points")).split())
    baselines = [float(str(tspan.get("y"))) for tspan in group.iter(f"{SVG}tspan")]
    assert baselines and max(baselines) + FONT_SIZE / 4 <= marker_top, (baselines, marker_top)
