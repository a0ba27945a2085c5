"""BPMN's meaning through the repository (issue 19, item 2; docs/interchange.md, "What is
kept" and "Round trip"): `elrepo import` then `elrepo export --format bpmn` gives back every
element's id, tag and name, every flow's id, tag, ends and name, and what they mean beyond
their tag: event definitions, non-interrupting events, activity markers, default flows,
conditions, process names and isExecutable; the export stays valid BPMN for bpmn-moddle;
importing a changed file again drops what the file no longer says; a diagram is named
after its process or pool, after its file only when nothing is named; `elrepo layout`
rewrites the diagram interchange alone."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from interchange import read_bpmn
from interchange.export import EVENT_DEFINITIONS, MARKERS
from interchange.kept import kept_counts
from interchange.model import BpmnModel
from interchange.parsing import BPMNDI_NS, MODEL_NS
from repository.cli import main
from repository.openapi import document
from repository.store import Store, find_tenant
from repository.store.base import current_version_pk
from repository.store.db import make_engine, session_factory
from tests.interchange.conftest import CORPUS, FIXTURE_FILES, ReadWithModdle
from tests.interchange.test_repository_roundtrip import TENANT, drawn_ids, export, viewer
from tests.interchange.test_repository_roundtrip import db as db  # the same databases

MEANING_FILE = next(path for path in FIXTURE_FILES if path.name == "meaning.events-markers-conditions.bpmn")


def meaning(model: BpmnModel) -> dict[str, set[tuple[Any, ...]]]:
    """What a round trip keeps of a whole file: every node (text annotations with their
    text) and every flow, at every level, every group with its members and name, and every
    process."""
    return {
        "nodes": {(node.id, node.tag, tuple(sorted(node.names.values())), node.event_definitions,
                   node.interrupting, node.markers) for node in model.nodes},
        "flows": {(flow.id, flow.tag, flow.source, flow.target, tuple(sorted(flow.names.values())), flow.default,
                   flow.condition) for flow in model.flows},
        "groups": {(group.id, tuple(sorted(group.members)), tuple(sorted(group.names.values())))
                   for group in model.groups},
        "processes": {(process, tuple(sorted(model.process_names.get(process, {}).values())),
                       model.executable.get(process)) for process in model.processes},
    }


def assert_meaning_kept(files: list[Path], db: str, out: Path) -> list[Path]:
    """Imports ``files``, exports the tenant and finds each file's meaning again in the
    export of its process level; returns the exported files."""
    assert main(["import", "--db", db, *TENANT, *map(str, files)]) == 0
    exported = export(db, out)
    for path in files:
        original = read_bpmn(path.read_bytes()).model
        assert meaning(original) in [meaning(model) for model in exported[drawn_ids(original, None)]], path.name
    return sorted(out.glob("*.bpmn"))


def test_the_meaning_fixture_says_everything_a_round_trip_keeps() -> None:
    """So that the round trips below compare every kind, not only what happens to be there."""
    model = read_bpmn(MEANING_FILE.read_bytes()).model
    assert {kind for node in model.nodes for kind in node.event_definitions} == EVENT_DEFINITIONS
    assert {marker for node in model.nodes for marker in node.markers} == MARKERS
    assert {node.tag for node in model.nodes if not node.interrupting} == {"boundaryEvent", "startEvent"}
    assert [flow.id for flow in model.flows if flow.default] == ["Flow_NotCovered"]
    assert [flow.condition for flow in model.flows if flow.condition] == ["${covered && amount < 10000}"]
    assert (dict(model.process_names), dict(model.executable)) == ({"Process_Claims": {127: "Handle a claim"}},
                                                                   {"Process_Claims": True})


@pytest.mark.slow  # 20 to 45 s on the loaded 2-core machine
def test_every_fixture_keeps_its_meaning_through_the_repository(
        db: str, tmp_path: Path, read_with_moddle: ReadWithModdle) -> None:
    exported = assert_meaning_kept(FIXTURE_FILES, db, tmp_path / "out")
    assert [answer["warnings"] for answer in read_with_moddle(exported)] == [[] for _ in exported]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_every_corpus_file_keeps_its_meaning_through_the_repository(
        db: str, tmp_path: Path, shared_dir: Path, read_with_moddle: ReadWithModdle) -> None:
    assert CORPUS
    exported = assert_meaning_kept(CORPUS, db, tmp_path / "out")
    assert [answer["warnings"] for answer in read_with_moddle(exported)] == [[] for _ in exported]


def semantic(xml: bytes) -> list[tuple[str, dict[str, str], str]]:
    """Every element of the model but its diagram interchange: tag, attributes, text."""
    root = etree.fromstring(xml)
    return [(element.tag, dict(element.attrib), (element.text or "").strip())
            for child in root if child.tag != f"{{{BPMNDI_NS}}}BPMNDiagram"
            for element in child.iter() if isinstance(element.tag, str)]


@pytest.mark.parametrize("path", [*FIXTURE_FILES, *CORPUS], ids=lambda path: path.name)
def test_elrepo_layout_rewrites_the_diagram_interchange_alone(path: Path, tmp_path: Path) -> None:
    laid_out = tmp_path / path.name
    assert main(["layout", str(path), "-o", str(laid_out)]) == 0
    assert semantic(laid_out.read_bytes()) == semantic(path.read_bytes())
    before, after = meaning(read_bpmn(path.read_bytes()).model), meaning(read_bpmn(laid_out.read_bytes()).model)
    # A group's members are the nodes its box holds: our layout draws the box round the
    # members the file's boxes gave, and may have other nodes inside it (docs/interchange.md).
    assert {name: value for name, value in after.items() if name != "groups"} == \
        {name: value for name, value in before.items() if name != "groups"}
    assert {group[0] for group in after["groups"]} == {group[0] for group in before["groups"]}


def test_importing_again_drops_what_the_file_no_longer_says(db: str, tmp_path: Path) -> None:
    assert main(["import", "--db", db, *TENANT, str(MEANING_FILE)]) == 0
    changed = tmp_path / MEANING_FILE.name
    root = etree.fromstring(MEANING_FILE.read_bytes())
    for element in list(root.iter(f"{{{MODEL_NS}}}timerEventDefinition", f"{{{MODEL_NS}}}standardLoopCharacteristics",
                                  f"{{{MODEL_NS}}}conditionExpression")):
        parent = element.getparent()
        assert parent is not None
        parent.remove(element)
    for element in root.iter():
        for attribute in ("cancelActivity", "default", "isExecutable"):
            element.attrib.pop(attribute, None)
    changed.write_bytes(etree.tostring(root))
    assert main(["import", "--db", db, *TENANT, str(changed)]) == 0
    assert_meaning_kept([changed], db, tmp_path / "out")
    model = read_bpmn(changed.read_bytes()).model
    node = model.node("Boundary_Remind")
    assert node is not None and (node.event_definitions, node.interrupting) == ((), True)
    assert not any(flow.default or flow.condition for flow in model.flows) and model.executable == {}


def diagram_names(db: str) -> dict[str, str]:
    """Each process-level diagram's name by the BPMN id it keeps."""
    engine = make_engine(db)
    try:
        with session_factory(engine)() as session:
            tenant = find_tenant(session, *TENANT)
            assert tenant is not None
            store = Store(session, tenant)
            diagrams = [diagram for diagram in store.reads.diagrams() if diagram.type == "mainProcess"]
            kept = store.reads.attributes([current_version_pk(diagram) for diagram in diagrams])
            return {kept[current_version_pk(diagram)]["bpmnId"][127]: store.reads.name_of(diagram, 1033)
                    for diagram in diagrams}
    finally:
        engine.dispose()


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_diagram_is_named_after_its_process_or_pool_else_its_file_in_words(db: str, tmp_path: Path) -> None:
    files = {name: next(path for path in FIXTURE_FILES if path.name == name) for name in (
        MEANING_FILE.name, "collaboration.one-pool-without-lanes.bpmn", "lane.cross-lane-sequence-flow.bpmn")}
    assert main(["import", "--db", db, *TENANT, *map(str, files.values())]) == 0
    assert diagram_names(db) == {"Process_Claims": "Handle a claim", "Collaboration_Customer": "Customer",
                                 "Collaboration_1nusplv": "Cross lane sequence flow"}  # not the file's name
    # the file's name stays the diagram's: it does not become the process's
    exported = [model for models in export(db, tmp_path / "out").values() for model in models]
    process_names = {process: dict(names) for model in exported for process, names in model.process_names.items()}
    assert process_names["Process_Claims"] == {127: "Handle a claim"}
    assert {"Process_1", "Process_Customer"} & set(process_names) == set()


def test_http_export_says_what_it_holds_per_kind(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19, item 5: the `X-Bpmn-Kept` header counts the answer's nodes, flows... and
    meaning as `elrepo import` counts the file's, in the form openapi.json declares."""
    assert main(["import", "--db", db, *TENANT, str(MEANING_FILE)]) == 0
    app, client, headers, diagrams = viewer(db, capsys)
    diagram = next(diagram for diagram in diagrams if diagram["attributes"]["name"]["127"] == "Handle a claim")
    response = client.get(f"/acme/main/_api/rest/diagram/{diagram['id']}/bpmn/1033/horizontal", headers=headers)
    app.extensions["elrepo.engine"].dispose()
    assert response.status_code == 200
    said = response.headers["X-Bpmn-Kept"]
    assert said == ("nodes=26; flows=18; pools=0; lanes=0; groups=0; eventDefinitions=12; nonInterrupting=2; "
                    "markers=5; defaultFlows=1; conditions=1; processNames=1; executableFlags=1")
    assert dict(entry.split("=") for entry in said.split("; ")) \
        == {kind: str(count) for kind, count in kept_counts(read_bpmn(MEANING_FILE.read_bytes()).model).items()}
    declared = document()["components"]["headers"]["X-Bpmn-Kept"]["schema"]
    assert re.fullmatch(declared["pattern"], said)
