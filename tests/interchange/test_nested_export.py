"""The BPMN export draws an expanded sub-process with its own diagram's content inside it
(repository.fixtures.nested_fixture, interchange/export.py), so the message flows between
its inside and the pools outside come back; the nesting and the shapes gathered are
bounded, on HTTP with the render error envelope (400, 413)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from checks.di_quality import measure_di
from interchange import read_bpmn
from interchange.di_metrics import read_planes
from interchange.fixture import scope_nodes
from interchange.parsing import parse_bpmn_xml
from repository import fixtures
from repository.cli import main
from tests.interchange.test_repository_roundtrip import TENANT, viewer

MODEL = "process.application-processing.bpmn"


@pytest.fixture
def model_file(shared_dir: Path) -> Path:
    (path,) = (shared_dir / "corpus").glob(f"*/bpmn/{MODEL}")
    return path


@pytest.fixture
def db(tmp_path: Path, model_file: Path) -> str:
    url = f"sqlite:///{tmp_path / 'nested.db'}"
    assert main(["tenant", "create", *TENANT, "--db", url]) == 0
    assert main(["import", "--db", url, *TENANT, str(model_file)]) == 0
    return url


@pytest.fixture
def http(db: str, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[FlaskClient, dict[str, str], str]]:
    """A client, its headers and the URL of the process level's BPMN export."""
    app, client, headers, diagrams = viewer(db, capsys)
    (process,) = [element for element in diagrams if element["type"] == "mainProcess"]
    yield client, headers, f"/acme/main/_api/rest/diagram/{process['id']}/bpmn/1033/horizontalSwimlane"
    app.extensions["elrepo.engine"].dispose()


def test_the_sub_process_is_drawn_expanded_round_its_content_with_every_message_flow(
        http: tuple[FlaskClient, dict[str, str], str], model_file: Path) -> None:
    client, headers, url = http
    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    original = read_bpmn(model_file.read_bytes()).model
    exported = read_bpmn(response.data).model
    sub_processes = [node.id for node in original.nodes if node.expandable and scope_nodes(original, node.id)]
    assert sub_processes
    parent_of = {node.id: node.parent for node in original.nodes}  # text annotations too
    assert {node.id: node.parent for node in exported.nodes} == parent_of
    crossing = {flow.id for flow in original.flows if flow.tag == "messageFlow"
                and {parent_of.get(flow.source), parent_of.get(flow.target)} & set(sub_processes)}
    assert len(crossing) == 8
    assert crossing <= {flow.id for flow in exported.flows if flow.tag == "messageFlow"}
    quality = measure_di(response.data)
    assert (quality.overlaps, quality.sequence_flows_through_shapes, quality.message_flows_through_shapes,
            quality.lane_violations) == (0, 0, 0, 0)
    assert quality.message_flows_drawn == quality.message_flows_total == len(
        [flow for flow in original.flows if flow.tag == "messageFlow"])
    (plane,) = read_planes(parse_bpmn_xml(response.data))
    for node in exported.nodes:
        if node.parent:  # laid out inside its sub-process's box
            box, outer = plane.shapes[node.id], plane.shapes[node.parent]
            assert outer.x <= box.x and box.right <= outer.right, node.id
            assert outer.y <= box.y and box.bottom <= outer.bottom, node.id


def test_nesting_deeper_than_the_bound_is_400(http: tuple[FlaskClient, dict[str, str], str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    client, headers, url = http
    monkeypatch.setattr(fixtures, "MAX_NESTING", 0)
    refused = client.get(url, headers=headers)
    body = refused.get_json()
    assert refused.status_code == 400 and "output" not in body
    assert "nest more than 0 deep" in body["message"]


def test_more_shapes_than_the_bound_is_413(http: tuple[FlaskClient, dict[str, str], str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    client, headers, url = http
    assert client.get(url, headers=headers).status_code == 200
    monkeypatch.setattr(fixtures, "MAX_SHAPES", 20)
    refused = client.get(url, headers=headers)
    body = refused.get_json()
    assert refused.status_code == 413 and "output" not in body
    assert "more than 20 shapes" in body["message"]


def test_the_cli_export_refuses_too_deep_a_nesting_in_one_line(db: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(fixtures, "MAX_NESTING", 0)
    assert main(["export", "--db", db, *TENANT, "-o", str(tmp_path / "out"), "--format", "bpmn"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("elrepo: sub-processes with content nest more than 0 deep")
