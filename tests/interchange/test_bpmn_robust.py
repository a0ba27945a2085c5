"""Files real tools write that are odd but drawable (issue 19, "Reading", causes 1-5): read,
rendered and laid out with exit 0 and a warning line each; a file with nothing to draw
(cause 6) stays refused."""
from __future__ import annotations

from pathlib import Path

import pytest

from interchange import read_bpmn
from interchange.parsing import BPMNDI_NS, parse_bpmn
from interchange.reader import MAX_WARNINGS
from repository.cli import main
from tests.conftest import FIXTURES

ROBUST = FIXTURES / "bpmn" / "robust"

#: file → (the warnings the reader gives, each a part of one line; flows kept, by id)
EXPECTED: dict[str, tuple[list[str], set[str]]] = {
    "extension-ids.adonis.bpmn": ([], {"Flow_1", "Flow_2"}),
    # the process's own data input and output are drawn: the associations to them resolve
    "data-associations.camunda.bpmn": ([], {"Read_Invoice", "Write_Receipt", "Write_Ledger", "Book_Flow", "Flow_3",
                                            "Flow_4", "Flow_5"}),
    "dangling-flows.aris.bpmn": ([
        "messageFlow 'Message_Lost' at line 10 refers to 'Bank_Task_Not_Exported', an element not in the "
        "file: left out",
        "sequenceFlow 'Flow_7' at line 22 refers to 'Lane_Desk', a lane, which is not drawn: left out",
    ], {"Message_Pay", "Flow_6"}),
    "cross-scope-flows.signavio.bpmn": ([
        "sequenceFlow 'sid-flow-out-of-sub' at line 20 leaves its sub-process: 'sid-end-a' is in another one",
        "sequenceFlow 'sid-flow-to-b' at line 25 leaves its process: 'sid-pay' is in another one",
    ], {"sid-flow-inner", "sid-flow-out-of-sub", "sid-flow-1", "sid-flow-2", "sid-flow-to-b", "sid-flow-3"}),
    "encoding.latin1-declared-utf8.bpmn": (["bytes not in the declared encoding at line 4: read as latin-1"],
                                           {"Flow_8"}),
    # issue 19, found trying modelling tools' files: bpmn-moddle reads what nothing can refer to
    "ids-missing-and-repeated.bpmn": ([
        "task 'Task_ids' at line 16 repeats the id of the task at line 14: left out",
        "BPMNShape 'Start_ids' at line 24 repeats the id of the startEvent at line 13: left out",
        "lane at line 11 has no id: left out",
        "task at line 15 has no id: left out",
        "textAnnotation at line 18 has no id: left out",
        "sequenceFlow at line 20 has no id: left out",
    ], {"Flow_ids_1"}),
    "lanes-without-pool.bpmn": ([], {"Flow_l1", "Flow_l2", "Flow_l3"}),
    "event-definition-refs.mid.bpmn": ([], {"Flow_r1", "Flow_r2"}),
    "encoding.utf16-declared-utf8.bpmn": (["the declared encoding 'utf-16' is unknown or not the file's: read as "
                                           "UTF-8"], {"Flow_utf16"}),
    "namespace-uri.trisotech.bpmn": ([
        "namespace problem at line 5 (xmlns:trisofeed: 'http://www.trisotech.com/2015/triso feed' is not a "
        "valid URI",
    ], {"Flow_9"}),
}


def test_every_robust_file_has_its_expectation() -> None:
    assert {path.name for path in ROBUST.glob("*.bpmn")} == {*EXPECTED, "no-process.bpmn"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_odd_but_drawable_files_are_read_with_warnings(name: str) -> None:
    warnings, flows = EXPECTED[name]
    model = read_bpmn((ROBUST / name).read_bytes()).model
    assert len(model.warnings) == len(warnings)
    for given, expected in zip(model.warnings, warnings, strict=True):
        assert expected in given and "\n" not in given
    assert {flow.id for flow in model.flows} == flows


def test_extension_ids_are_not_bpmn_ids_but_a_bpmn_element_repeating_one_is_left_out() -> None:
    data = (ROBUST / "extension-ids.adonis.bpmn").read_bytes()
    assert [node.id for node in read_bpmn(data).model.nodes] == ["Start_1", "Task_1", "End_1"]
    repeated = read_bpmn(data.replace(b'<semantic:endEvent id="End_1"', b'<semantic:endEvent id="Task_1"')).model
    assert [node.id for node in repeated.nodes] == ["Start_1", "Task_1"]
    assert repeated.warnings == ("endEvent 'Task_1' at line 20 repeats the id of the task at line 15: left out",
                                 "sequenceFlow 'Flow_2' at line 22 refers to 'End_1', an element not in the file: "
                                 "left out")


def test_elements_without_an_id_or_repeating_one_leave_the_rest_drawn() -> None:
    model = read_bpmn((ROBUST / "ids-missing-and-repeated.bpmn").read_bytes()).model
    assert [(node.id, dict(node.names)) for node in model.nodes] == [
        ("Start_ids", {127: "Parcel arrived"}), ("Task_ids", {127: "Scan parcel"}), ("End_ids", {127: "Parcel booked"})]
    assert [lane.id for lane in model.lanes] == ["Lane_Desk"]
    assert {node.id: node.lane for node in model.nodes}["Task_ids"] is None  # its lane had no id


def test_data_associations_resolve_a_data_object_to_its_reference() -> None:
    model = read_bpmn((ROBUST / "data-associations.camunda.bpmn").read_bytes()).model
    ledger = next(flow for flow in model.flows if flow.id == "Write_Ledger")
    assert (ledger.source, ledger.target) == ("Post", "Ledger")  # the data object's reference, a scope up
    assert "Read_Implicit" not in {flow.id for flow in model.flows}  # no sourceRef: implicit, not a warning


@pytest.mark.parametrize("declared", ["ISO8859_1", "x-MacRoman", "UTF-32"])
def test_a_declared_encoding_unknown_or_not_the_files_is_read_as_utf8(declared: str) -> None:
    """Java tools write Java's names of encodings; bpmn-moddle falls back to UTF-8 for any."""
    data = (ROBUST / "encoding.utf16-declared-utf8.bpmn").read_bytes()
    model = read_bpmn(data.replace(b'encoding="utf-16"', f'encoding="{declared}"'.encode())).model
    assert model.warnings == (f"the declared encoding {declared!r} is unknown or not the file's: read as UTF-8",)
    assert dict(next(node for node in model.nodes if node.id == "Task_utf16").names) == {127: "Prüfen"}


def test_utf16_with_its_byte_order_mark_is_read_without_a_warning() -> None:
    text = (ROBUST / "encoding.utf16-declared-utf8.bpmn").read_text(encoding="utf-8")
    model = read_bpmn(text.encode("utf-16")).model
    assert model.warnings == () and len(model.nodes) == 2


def test_an_event_definition_named_by_reference_gives_its_kind() -> None:
    """Before, MID Innovator's timer, message and terminate events were drawn and kept plain."""
    model = read_bpmn((ROBUST / "event-definition-refs.mid.bpmn").read_bytes()).model
    assert {node.id: node.event_definitions for node in model.nodes} == {
        "Start_refs": ("timer",), "Task_refs": (), "End_refs": ("message",)}  # an unknown reference says nothing


def test_latin1_bytes_keep_their_text() -> None:
    model = read_bpmn((ROBUST / "encoding.latin1-declared-utf8.bpmn").read_bytes()).model
    assert dict(next(node for node in model.nodes if node.id == "Task_5").names) == {127: "Prüfen"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_render_and_layout_exit_0_with_one_warning_line_each(name: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = ROBUST / name
    warnings = EXPECTED[name][0]
    svg, laid_out = tmp_path / "out.svg", tmp_path / "out.bpmn"
    assert main(["render", str(path), "--layout", "horizontalSwimlane", "-o", str(svg)]) == 0
    assert main(["layout", str(path), "-o", str(laid_out)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 * len(warnings)
    for line, expected in zip(lines, warnings * 2, strict=True):
        assert line.startswith(f"elrepo: {path}: warning: ") and expected in line
    assert svg.read_text(encoding="utf-8").startswith("<svg")
    tree = parse_bpmn(laid_out.read_bytes()).tree  # as elrepo reads it again (the Trisotech URI stays)
    drawn = {edge.get("bpmnElement") for edge in tree.iter(f"{{{BPMNDI_NS}}}BPMNEdge")}
    assert drawn <= EXPECTED[name][1]  # no edge for a flow left out


@pytest.mark.parametrize("command", [["render", "--layout", "horizontal"], ["layout", "-o", "out.bpmn"]])
def test_a_file_without_process_is_still_refused(command: list[str], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = ROBUST / "no-process.bpmn"
    arguments = [command[0], str(path), *[str(tmp_path / a) if a.endswith(".bpmn") else a for a in command[1:]]]
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert error == f"elrepo: {path}: the BPMN file holds no process and no collaboration\n"
    assert not (tmp_path / "out.bpmn").exists()


def test_import_takes_every_odd_file_and_says_its_warnings(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'robust.db'}"
    assert main(["tenant", "create", "acme", "main", "--db", db]) == 0
    files = [ROBUST / name for name in sorted(EXPECTED)]
    capsys.readouterr()
    assert main(["import", "--db", db, "acme", "main", *map(str, files)]) == 0
    lines = capsys.readouterr().err.splitlines()
    warned = [line for line in lines if ": warning: " in line]
    assert len(warned) == sum(len(EXPECTED[path.name][0]) for path in files)
    for path in files:
        for expected in EXPECTED[path.name][0]:
            assert any(line.startswith(f"elrepo: {path}: warning: ") and expected in line for line in warned)
    assert lines[-1] == f"Imported {len(files)} of {len(files)} file(s) into acme/main"


def test_a_process_with_lanes_and_no_pool_is_imported_with_its_lanes(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Its org unit has the process's BPMN id, as its diagram has: before, both got one
    element id and the import was refused ("The type of '…' is 'orgUnit' and cannot change")."""
    db, out = f"sqlite:///{tmp_path / 'lanes.db'}", tmp_path / "out"
    assert main(["tenant", "create", "acme", "main", "--db", db]) == 0
    assert main(["import", "--db", db, "acme", "main", str(ROBUST / "lanes-without-pool.bpmn")]) == 0
    assert main(["export", "--db", db, "acme", "main", "-o", str(out), "--format", "bpmn"]) == 0
    capsys.readouterr()
    [exported] = out.glob("*.bpmn")
    model = read_bpmn(exported.read_bytes()).model
    assert model.processes == ("Process_lanes",) and not model.pools
    assert {node.id: node.lane for node in model.nodes} == {
        "Start_lanes": "Lane_Counter", "Accept": "Lane_Counter", "Shelve": "Lane_Store", "End_lanes": None}


def test_black_box_pools_stay_drawable_when_their_message_flow_is_left_out() -> None:
    data = (b'<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"><collaboration id="c">'
            b'<participant id="a"/><participant id="b"/><messageFlow id="m" sourceRef="a" targetRef="x"/>'
            b'</collaboration></definitions>')
    model = read_bpmn(data).model
    assert [pool.id for pool in model.pools] == ["a", "b"] and model.flows == ()
    assert model.warnings == ("messageFlow 'm' at line 1 refers to 'x', an element not in the file: left out",)


def test_qname_references_with_the_target_namespace_prefix_resolve() -> None:
    """IBM Process Designer writes `attachedToRef` (a QName in BPMN's schema) with the
    prefix of the file's target namespace; the boundary events were dropped unsaid."""
    xml = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:ex="http://example.com/ex" targetNamespace="http://example.com/ex" id="D">
  <bpmn:collaboration id="C">
    <bpmn:participant id="P" processRef="ex:Process_1"/>
    <bpmn:participant id="Other"/>
    <bpmn:messageFlow id="M" sourceRef="ex:Task" targetRef="ex:Other"/>
  </bpmn:collaboration>
  <bpmn:process id="Process_1">
    <bpmn:task id="Task"/>
    <bpmn:boundaryEvent id="Timer" attachedToRef="ex:Task"/>
    <bpmn:endEvent id="End"/>
    <bpmn:sequenceFlow id="F" sourceRef="Timer" targetRef="End"/>
  </bpmn:process>
</bpmn:definitions>"""
    model = read_bpmn(xml).model
    timer = model.node("Timer")
    assert timer is not None and timer.attached_to == "Task" and not model.warnings
    assert [pool.process for pool in model.pools] == ["Process_1", ""]
    assert {(flow.id, flow.source, flow.target) for flow in model.flows} == {("M", "Task", "Other"),
                                                                             ("F", "Timer", "End")}


def test_a_file_of_many_faults_gets_a_screenful_of_warnings_and_a_count_of_the_rest() -> None:
    tasks = "".join(f'<task name="Task {n}"/>' for n in range(MAX_WARNINGS + 1000))
    data = ('<?xml version="1.0" encoding="UTF-8"?><definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"'
            f' id="d" targetNamespace="t"><process id="p"><startEvent id="s"/>{tasks}</process></definitions>')
    warnings = read_bpmn(data.encode()).model.warnings
    assert len(warnings) == MAX_WARNINGS + 1
    assert all("has no id: left out" in warning for warning in warnings[:-1])
    assert warnings[-1] == "1,000 more warnings like these"
