"""BPMN into the repository and back (docs/interchange.md): `elrepo import` of every
fixture followed by `elrepo export --format bpmn` gives back the same ids, types, names,
flows, pools and lanes, on SQLite and (when ELREPO_TEST_DATABASE_URL is set) PostgreSQL;
importing again updates instead of duplicating; a bad file writes nothing and the others
go on; the HTTP BPMN export answers the same XML under the render endpoint's rules."""
from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from lxml import etree
from sqlalchemy import func, select

from checks.di_quality import measure_di
from interchange import BPMN_LAYOUT_KEYS, diagram_to_bpmn, read_bpmn
from interchange.fixture import scope_nodes
from interchange.model import ANNOTATION, BpmnModel
from interchange.parsing import BPMNDI_NS, MODEL_NS
from repository.app import create_app
from repository.cli import main
from repository.demo import load_demo
from repository.fixtures import diagram_fixture
from repository.store import Store
from repository.store.db import create_schema, make_engine, session_factory
from repository.store.models import Element
from tests.conftest import FIXTURES
from tests.interchange.conftest import ReadWithModdle
from tests.repository.conftest import in_schema, postgres_schema

BPMN_FILES = sorted((FIXTURES / "bpmn").glob("*.bpmn"))
TENANT = ["acme", "main"]
INNER = ("nodes", "flows", "boundary events")  # what a sub-process's own diagram keeps


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database URL of the parametrized backend with the tenant acme/main."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'bpmn.db'}"
        assert main(["tenant", "create", *TENANT, "--db", url]) == 0
        yield url
        return
    with postgres_schema("bpmn") as (server, schema):
        url = in_schema(server, schema)
        assert main(["tenant", "create", *TENANT, "--db", url]) == 0
        yield url


def summary(model: BpmnModel, scope: str | None) -> dict[str, set[tuple[Any, ...]]]:
    """What a round trip keeps of one scope (the process level, or a sub-process); the
    process level's message flows include those with an end inside a sub-process."""
    nodes = {node.id: node for node in scope_nodes(model, scope) if node.kind != ANNOTATION}
    ends = set(nodes) | ({pool.id for pool in model.pools} if scope is None else set())
    return {
        "nodes": {(node.id, node.tag, tuple(sorted(node.names.values()))) for node in nodes.values()},
        "flows": {(flow.id, flow.tag, flow.source, flow.target, tuple(flow.names.values()))
                  for flow in model.flows if flow.source in ends and flow.target in ends
                  or scope is None and flow.tag == "messageFlow"},
        "boundary events": {(node.id, node.attached_to) for node in nodes.values() if node.attached_to},
        "lanes": {(node.id, node.lane) for node in nodes.values() if node.kind != "data"},
        "lane tree": {(lane.id, lane.process, lane.parent, tuple(lane.names.values())) for lane in model.lanes}
        if scope is None else set(),
        "pools": {(pool.id, pool.process, tuple(pool.names.values())) for pool in model.pools}
        if scope is None else set(),
    }


def export(db: str, out: Path, *options: str) -> dict[frozenset[str], list[BpmnModel]]:
    """Every exported diagram's model, by the ids of the nodes it draws (files made with
    the same tool may share them)."""
    assert main(["export", "--db", db, *TENANT, "-o", str(out), "--format", "bpmn", *options]) == 0
    models: dict[frozenset[str], list[BpmnModel]] = {}
    for path in sorted(out.glob("*.bpmn")):
        model = read_bpmn(path.read_bytes()).model
        models.setdefault(drawn_ids(model, None), []).append(model)
    return models


def sub_processes(model: BpmnModel) -> list[str]:
    return [node.id for node in model.nodes if node.expandable and scope_nodes(model, node.id)]


def whole(model: BpmnModel, scopes: list[str]) -> list[Any]:
    """The process level's summary and what each of ``scopes`` keeps inside it."""
    return [summary(model, None), *([summary(model, scope)[key] for key in INNER] for scope in scopes)]


def assert_round_trip(files: list[Path], db: str, out: Path) -> int:
    """Import, export, and every file's process level found again among the exports with
    every expanded sub-process's content inside it, and that content also exported as a
    diagram of its own; returns how many sub-processes there were."""
    assert main(["import", "--db", db, *TENANT, *map(str, files)]) == 0
    exported = export(db, out)
    count = 0
    for path in files:
        original = read_bpmn(path.read_bytes()).model
        scopes = sub_processes(original)
        candidates = [whole(model, scopes) for model in exported[drawn_ids(original, None)]]
        assert whole(original, scopes) in candidates, path.name
        for scope in scopes:
            kept = summary(original, scope)
            inner = [summary(model, None) for model in exported[drawn_ids(original, scope)]]
            assert [kept[key] for key in INNER] in [[each[key] for key in INNER] for each in inner], \
                (path.name, scope)
        count += len(scopes)
    return count


def element_count(db: str) -> int:
    engine = make_engine(db)
    try:
        with session_factory(engine)() as session:
            return int(session.scalar(select(func.count()).select_from(Element)) or 0)
    finally:
        engine.dispose()


def test_import_then_export_gives_back_ids_flows_pools_and_lanes(db: str, tmp_path: Path) -> None:
    assert assert_round_trip(BPMN_FILES, db, tmp_path / "out") > 0


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_every_corpus_file_comes_back_from_the_repository(db: str, tmp_path: Path, shared_dir: Path,
                                                          read_with_moddle: ReadWithModdle) -> None:
    """Many of them share process and element ids (Process_1, StartEvent_1): the file name
    keeps them apart."""
    files = sorted(shared_dir.glob("corpus/*/bpmn/*.bpmn"))
    assert files
    assert_round_trip(files, db, tmp_path / "out")
    exported = sorted((tmp_path / "out").glob("*.bpmn"))
    for path in exported:  # sub-processes expanded round their content, laid out clean
        quality = measure_di(path.read_bytes())
        assert (quality.overlaps, quality.sequence_flows_through_shapes, quality.message_flows_through_shapes,
                quality.lane_violations, quality.message_flows_total - quality.message_flows_drawn) \
            == (0, 0, 0, 0, 0), path.name
    assert [answer["warnings"] for answer in read_with_moddle(exported)] == [[] for _ in exported]


def test_the_corpus_round_trip_compares_everything_but_the_documented_limits(shared_dir: Path) -> None:
    """What ``assert_round_trip`` compares of each corpus file: every node and flow but text
    annotations and their associations (not stored; docs/interchange.md, Limits), message
    flows with an end inside an expanded sub-process included, and the lane of every node
    in a lane."""
    for path in sorted(shared_dir.glob("corpus/*/bpmn/*.bpmn")):
        model = read_bpmn(path.read_bytes()).model
        scopes: list[str | None] = [None, *sub_processes(model)]
        kept = [summary(model, scope) for scope in scopes]
        compared = {entry[0] for each in kept for key in ("nodes", "flows") for entry in each[key]}
        annotations = {node.id for node in model.nodes if node.kind == ANNOTATION}
        left_out = {node.id for node in model.nodes if node.id not in compared} - annotations
        left_out |= {flow.id for flow in model.flows if flow.id not in compared
                     and not annotations & {flow.source, flow.target}}
        assert left_out == set(), path.name
        assert {node.id for node in model.nodes if node.lane} <= {node for node, _ in kept[0]["lanes"]}, path.name


def drawn_ids(model: BpmnModel, scope: str | None) -> frozenset[str]:
    return frozenset(node.id for node in scope_nodes(model, scope) if node.kind != ANNOTATION)


@pytest.mark.slow  # 20 to 45 s on the loaded 2-core machine
def test_importing_again_updates_the_same_elements(db: str, tmp_path: Path) -> None:
    assert main(["import", "--db", db, *TENANT, *map(str, BPMN_FILES)]) == 0
    count = element_count(db)
    assert main(["import", "--db", db, *TENANT, *map(str, BPMN_FILES)]) == 0
    assert element_count(db) == count
    changed = tmp_path / BPMN_FILES[0].name
    changed.write_bytes(BPMN_FILES[0].read_bytes().replace(b' name="', b' name="New ', 1))
    assert main(["import", "--db", db, *TENANT, str(changed)]) == 0
    assert element_count(db) == count
    models = [model for same in export(db, tmp_path / "out").values() for model in same]
    names = [name for model in models for node in model.nodes for name in node.names.values()]
    names += [name for model in models for pool in model.pools for name in pool.names.values()]
    assert any(name.startswith("New ") for name in names)


def test_a_bad_file_is_one_line_writes_nothing_and_the_others_go_on(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_xml = tmp_path / "not-xml.bpmn"
    not_xml.write_bytes(b"not xml")
    good = BPMN_FILES[0]
    # The same file with a task that became a gateway under the same id: refused inside
    # the transaction, after the new elements of that file were written, so they must go too.
    original = FIXTURES / "bpmn" / "boundary-event.simple.bpmn"
    (tmp_path / "changed").mkdir()
    retyped = tmp_path / "changed" / original.name
    source = original.read_bytes()
    assert main(["import", "--db", db, *TENANT, str(original)]) == 0
    count = element_count(db)
    task = next(node for node in read_bpmn(source).model.nodes if node.tag.endswith("Task") or node.tag == "task")
    retyped_xml = etree.fromstring(source)
    element = next(e for e in retyped_xml.iter() if e.get("id") == task.id)
    element.tag = f"{{{MODEL_NS}}}exclusiveGateway"
    process = element.getparent()
    assert process is not None
    etree.SubElement(process, f"{{{MODEL_NS}}}task", id="Task_AddedInTheBadFile")
    retyped.write_bytes(etree.tostring(retyped_xml))
    capsys.readouterr()
    assert main(["import", "--db", db, *TENANT, str(not_xml), str(retyped), str(good)]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("elrepo: ")]
    errors = [line for line in said if ": imported " not in line]
    assert len(errors) == 2
    kept = [line for line in said if line not in errors]
    assert len(kept) == 1 and kept[0].startswith(f"elrepo: {good}: imported "), kept
    assert errors[0].startswith(f"elrepo: {not_xml}: not well-formed XML")
    assert errors[1].startswith(f"elrepo: {retyped}: ") and "cannot change" in errors[1]
    good_model = read_bpmn(good.read_bytes()).model
    good_elements = len(good_model.nodes) - sum(node.kind == ANNOTATION for node in good_model.nodes) \
        + len(good_model.pools) + len(good_model.lanes) + 1
    assert element_count(db) == count + good_elements


def test_an_unknown_tenant_or_bpmn_layout_key_is_refused(db: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--db", db, "nobody", "main", str(BPMN_FILES[0])]) == 2
    assert main(["export", "--db", db, *TENANT, "-o", str(tmp_path), "--format", "bpmn",
                 "--layout", "graphic"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors == ["elrepo: no tenant nobody/main; create it with: elrepo tenant create nobody main "
                      f"--db {shlex.quote(db)}",
                      f"elrepo: unknown BPMN layout key(s) graphic; layout keys: {', '.join(BPMN_LAYOUT_KEYS)}"]


def viewer(db: str, capsys: pytest.CaptureFixture[str]) -> tuple[Flask, FlaskClient, dict[str, str], list[Any]]:
    """An app on ``db``, its client, a viewer's headers and the process diagrams listed."""
    assert main(["token", "create", *TENANT, "--role", "viewer", "--db", db]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    app = create_app({"DATABASE_URL": db})
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    listing = client.get("/acme/main/_api/rest/facets/processes/views/diagram/elements", headers=headers)
    return app, client, headers, listing.get_json()["elements"]


def test_http_export_answers_bpmn_with_di(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model_file = FIXTURES / "bpmn" / "collaboration.message-flows.bpmn"
    assert main(["import", "--db", db, *TENANT, str(model_file)]) == 0
    app, client, headers, diagrams = viewer(db, capsys)
    diagram_id = diagrams[0]["id"]
    base = f"/acme/main/_api/rest/diagram/{diagram_id}/bpmn"
    response = client.get(f"{base}/1033/verticalSwimlane", headers=headers)
    assert response.status_code == 200 and response.mimetype == "application/xml"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    root = etree.fromstring(response.data)
    original = read_bpmn(model_file.read_bytes()).model
    assert summary(read_bpmn(response.data).model, None) == summary(original, None)
    drawn = {shape.get("bpmnElement") for shape in root.iter(f"{{{BPMNDI_NS}}}BPMNShape")}
    assert {node.id for node in original.nodes if node.kind != ANNOTATION} <= drawn
    for path, status in ((f"{base}/1033/graphic", 400), (f"{base}/x/horizontal", 400),
                         ("/acme/main/_api/rest/diagram/nope/bpmn/1033/horizontal", 404)):
        refused = client.get(path, headers=headers)
        body = refused.get_json()
        assert refused.status_code == status and "output" not in body and body["message"], path
    assert client.get(f"{base}/1033/horizontal").status_code == 401
    app.extensions["elrepo.engine"].dispose()


def test_http_export_keeps_a_lane_less_pools_nodes_and_flows_in_its_own_process(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19: message flows between a pool without lanes and a pool with lanes move
    no node into the other pool, and the lane-less pool's sequence flows stay sequence
    flows of its own process."""
    model_file = FIXTURES / "bpmn" / "collaboration.lane-less-pool-and-lanes.bpmn"
    assert main(["import", "--db", db, *TENANT, str(model_file)]) == 0
    app, client, headers, diagrams = viewer(db, capsys)
    response = client.get(f"/acme/main/_api/rest/diagram/{diagrams[0]['id']}/bpmn/1033/horizontalSwimlane",
                          headers=headers)
    assert response.status_code == 200
    root = etree.fromstring(response.data)

    def ids(parent: Any, tag: str) -> set[str]:
        return {str(child.get("id")) for child in parent.findall(f"{{{MODEL_NS}}}{tag}")}

    participants = {participant.get("id"): participant.get("processRef")
                    for participant in root.iter(f"{{{MODEL_NS}}}participant")}
    processes = {process.get("id"): process for process in root.iter(f"{{{MODEL_NS}}}process")}
    customer, supplier = processes[participants["Pool_Customer"]], processes[participants["Pool_Supplier"]]
    assert ids(customer, "startEvent") | ids(customer, "task") == {"Start_Customer", "Task_PlaceOrder",
                                                                    "Task_ReceiveGoods"}
    assert ids(customer, "sequenceFlow") == {"Flow_Customer_Start", "Flow_Customer_Wait"}
    assert ids(customer, "laneSet") == set()
    assert ids(supplier, "task") == {"Task_TakeOrder", "Task_ShipGoods"}
    assert ids(supplier, "sequenceFlow") == {"Flow_Supplier"}
    assert ids(next(root.iter(f"{{{MODEL_NS}}}collaboration")), "messageFlow") == {"Message_Order", "Message_Goods"}
    assert summary(read_bpmn(response.data).model, None) == summary(read_bpmn(model_file.read_bytes()).model, None)
    app.extensions["elrepo.engine"].dispose()


def test_http_export_keeps_a_single_pool_without_lanes(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19: the one pool of a file without lanes is imported (an org unit its nodes
    are executed by) and comes back as the participant of its collaboration."""
    model_file = FIXTURES / "bpmn" / "collaboration.one-pool-without-lanes.bpmn"
    assert main(["import", "--db", db, *TENANT, str(model_file)]) == 0
    app, client, headers, diagrams = viewer(db, capsys)
    response = client.get(f"/acme/main/_api/rest/diagram/{diagrams[0]['id']}/bpmn/1033/horizontal", headers=headers)
    assert response.status_code == 200
    root = etree.fromstring(response.data)
    assert [(collaboration.get("id"), [(participant.get("id"), participant.get("name"), participant.get("processRef"))
                                       for participant in collaboration.iter(f"{{{MODEL_NS}}}participant")])
            for collaboration in root.iter(f"{{{MODEL_NS}}}collaboration")] \
        == [("Collaboration_Customer", [("Pool_Customer", "Customer", "Process_Customer")])]
    assert summary(read_bpmn(response.data).model, None) == summary(read_bpmn(model_file.read_bytes()).model, None)
    app.extensions["elrepo.engine"].dispose()


@pytest.mark.slow  # 20 to 45 s on the loaded 2-core machine
def test_diagrams_never_imported_export_one_node_per_shape_and_a_flow_per_link() -> None:
    engine = make_engine("sqlite://")
    create_schema(engine)
    with session_factory(engine)() as session:
        tenant = load_demo(session)
        store = Store(session, tenant)
        diagrams = store.reads.diagrams()
        assert diagrams
        for diagram in diagrams:
            fixture = diagram_fixture(store, diagram)
            xml = diagram_to_bpmn(fixture, "horizontal", 1033, tenant.default_culture)
            assert diagram_to_bpmn(fixture, "horizontal", 1033, tenant.default_culture) == xml  # deterministic
            model = read_bpmn(xml).model
            made_ids = [f"Node_{value['element']['id']}" for value in fixture["values"]]
            assert [node.id for node in model.nodes] == made_ids
            links = sum(len(value["shapeInfo"]["predecessors"]) for value in fixture["values"])
            assert len(model.flows) == links, diagram.id
            units = {element["id"]: element for element in fixture["elements"]}
            for value, node in zip(fixture["values"], model.nodes, strict=True):
                lane = (value["element"]["related"].get("executedBy") or [{}])[0].get("id")
                assert node.lane == (f"Lane_{lane}" if lane in units else None), node.id
    engine.dispose()
