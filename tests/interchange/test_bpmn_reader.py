"""Reading BPMN 2.0: types, lanes, languages, unknown elements, and hostile input."""
from __future__ import annotations

from pathlib import Path

import pytest

from interchange import MAX_BPMN_BYTES, BpmnError, bpmn_to_fixture, read_bpmn
from renderer.api import render

BPMN = Path(__file__).parent.parent / "fixtures" / "bpmn"
HEAD = (b'<?xml version="1.0"?>\n<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
        b'id="D" targetNamespace="t">')


def nested() -> bytes:
    return (BPMN / "nested-lanes.bpmn").read_bytes()


def test_flow_nodes_map_to_our_shape_types_with_deepest_lane_and_language() -> None:
    model = read_bpmn(nested()).model
    nodes = {node.id: node for node in model.nodes}
    assert {i: nodes[i].shape_type for i in ("Start", "Check", "Timeout", "Split", "Send_Invoice", "End")} == {
        "Start": "evStart", "Check": "task", "Timeout": "evIntermediate", "Split": "ruleXor",
        "Send_Invoice": "task", "End": "evEnd"}
    assert nodes["Timeout"].attached_to == "Check"
    assert nodes["Check"].lane == "Lane_Inside"  # the child lane, not its parent
    assert dict(nodes["Check"].names) == {1031: "Bestellung prüfen"}  # xml:lang="de" of the process
    assert [(lane.id, lane.parent) for lane in model.lanes] == [
        ("Lane_Sales", None), ("Lane_Inside", "Lane_Sales"), ("Lane_Field", "Lane_Sales"), ("Lane_Billing", None)]
    assert dict(model.lanes[3].names) == {1033: "Buchhaltung"}
    assert [(pool.id, pool.process) for pool in model.pools] == [("Pool_Shop", "Process_Shop"), ("Pool_Customer", "")]
    assert nodes["Store_Orders"].shape_type == "inOut" and nodes["Note_1"].kind == "annotation"


def test_unknown_elements_are_listed_not_fatal() -> None:
    assert [(u.tag, u.id) for u in read_bpmn(nested()).model.unknown] == [
        ("futureElement", "Unknown_1"), ("choreographyTask", "Unknown_2")]


def test_fixture_has_lanes_as_org_units_and_renders() -> None:
    imported = read_bpmn(nested())
    fixture = imported.fixture
    values = fixture["values"]
    check = values[imported.shape_index["Check"]]
    assert check["element"]["related"] == {"executedBy": [{"id": "Lane_Inside"}]}
    assert check["shapeInfo"]["predecessors"] == [imported.shape_index["Start"], imported.shape_index["Visit"]]
    timeout = values[imported.shape_index["Timeout"]]
    assert timeout["shapeInfo"]["predecessors"] == [imported.shape_index["Check"]]  # beside its host
    units = {unit["id"]: unit for unit in fixture["elements"]}
    assert units["Pool_Shop"]["children"] == [{"id": "Lane_Sales"}, {"id": "Lane_Billing"}]
    assert units["Lane_Sales"]["children"] == [{"id": "Lane_Inside"}, {"id": "Lane_Field"}]
    svg = render(fixture, "horizontalSwimlane")
    assert 'data-lane-id="Lane_Inside"' in svg and 'data-lane-id="Lane_Billing"' in svg


@pytest.mark.parametrize("path", sorted(BPMN.glob("*.bpmn")), ids=lambda p: p.stem)
def test_every_test_file_renders_as_a_fixture(path: Path) -> None:
    assert render(bpmn_to_fixture(path.read_bytes()), "horizontal").startswith("<svg")


BILLION_LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
                  b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
                  b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
                  b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">&lol3;</definitions>')
EXTERNAL_ENTITY = (b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
                   b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="x">'
                   b'<process id="p"><task id="t" name="&secret;"/></process></definitions>')


@pytest.mark.parametrize(("data", "message"), [
    (BILLION_LAUGHS, "DOCTYPE"),
    (EXTERNAL_ENTITY, "DOCTYPE"),
    (BILLION_LAUGHS.replace(b'version="1.0"', b'version="1.0" encoding="UTF-16"').decode().encode("utf-16"), "DOCTYPE"),
    (b"this is not XML", "not well-formed XML at line 1"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"/>', "not a BPMN 2.0 file: the root element is 'svg'"),
    (HEAD + b"</bpmn:definitions>", "no process and no collaboration"),
    (HEAD + b'<bpmn:process id="p">\n<bpmn:sequenceFlow id="f" sourceRef="a" targetRef="b"/>'
     b"</bpmn:process></bpmn:definitions>", "sequenceFlow 'f' at line 3 refers to 'a', an element not in the file: "
     "left out; nothing drawable remains"),
    (b'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE d [<!ENTITY e "x">]>\n<d caf\xe9="&e;"/>', "DOCTYPE"),
    (HEAD + b'<bpmn:process id="p">\n<bpmn:task id="a"></bpmn:process></bpmn:definitions>',
     "not well-formed XML at line 3"),
], ids=["billion-laughs", "external-entity", "utf16-doctype", "not-xml", "not-bpmn", "empty", "nothing-drawable",
        "latin1-doctype", "unclosed-tag"])
def test_bad_input_is_one_line_bpmn_error(data: bytes, message: str) -> None:
    with pytest.raises(BpmnError) as raised:
        read_bpmn(data)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_oversized_input_is_refused_before_parsing() -> None:
    with pytest.raises(BpmnError, match="too large"):
        read_bpmn(HEAD + b" " * MAX_BPMN_BYTES + b"</bpmn:definitions>")


def test_external_entity_is_never_read() -> None:
    with pytest.raises(BpmnError) as raised:
        read_bpmn(EXTERNAL_ENTITY)
    assert "root:" not in str(raised.value)
