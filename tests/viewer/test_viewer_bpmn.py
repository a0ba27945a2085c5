"""The element panel's attributes of imported BPMN (repository/viewer/bpmn.js), run in Node
without a browser: no attribute an import keeps (interchange/kept.py) is listed as raw
text, a line "BPMN" says them instead; checked on a hand-made element and on every element
of imported files as the viewer fetches them. Skips without `node`."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from interchange.kept import KEPT_ATTRIBUTES
from repository.app import create_app
from repository.cli import main
from repository.viewer import CATALOG_ASSET
from tests.conftest import FIXTURES

BPMN_JS = Path(str(resources.files("repository.viewer") / "bpmn.js"))
TENANT = ["acme", "main"]
# The panel's `pick` (page.js) with the page's default culture 1033.
PICK = "(values) => values?.['1033'] ?? values?.['127'] ?? Object.values(values ?? {})[0]"


def panel_rows(elements: list[dict[str, Any]], kept_names: list[str]) -> list[list[list[Any]]]:
    """`panelAttributes` of each element's attributes, as the panel lists them."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (Debian package `nodejs`)")
    script = (f"import {{ panelAttributes }} from {json.dumps(BPMN_JS.as_uri())};"
              "const [elements, kept] = JSON.parse(process.argv[1]);"
              f"console.log(JSON.stringify(elements.map((e) => panelAttributes(e.attributes, kept, {PICK}))));")
    done = subprocess.run([node, "--input-type=module", "-e", script, json.dumps([elements, kept_names])],
                          capture_output=True, text=True, timeout=120, check=True)
    rows: list[list[list[Any]]] = json.loads(done.stdout)
    return rows


def test_kept_attributes_become_one_readable_line() -> None:
    boundary = {"attributes": {
        "name": {"127": "2 days"}, "description": {"1033": "Reminds"}, "bpmnId": {"127": "Boundary_Remind"},
        "bpmnType": {"127": "boundaryEvent"}, "bpmnEventDefinitions": {"127": ["timer"]},
        "bpmnInterrupting": {"127": False}}}
    task = {"attributes": {"bpmnId": {"127": "Task_Pay"}, "bpmnType": {"127": "serviceTask"},
                           "bpmnMarkers": {"127": ["sequential", "compensation"]}}}
    diagram = {"attributes": {"bpmnId": {"127": "Process_1"}, "bpmnType": {"127": "process"},
                              "bpmnExecutable": {"127": True}, "bpmnFile": {"127": "order.bpmn"},
                              "bpmnFlows": {"127": [{"id": "Flow_1"}, {"id": "Flow_2"}]}}}
    plain = {"attributes": {"name": {"1033": "Task"}, "version": {"127": "1.0"}}}
    assert panel_rows([boundary, task, diagram, plain], sorted(KEPT_ATTRIBUTES)) == [
        [["BPMN", "boundary event, timer, non-interrupting (id Boundary_Remind)"], ["description", "Reminds"]],
        [["BPMN", "service task, sequential multi-instance, compensation (id Task_Pay)"]],
        [["BPMN", "process, executable, 2 flows, from order.bpmn (id Process_1)"]],
        [["version", "1.0"]],
    ]


def test_no_imported_element_shows_a_kept_attribute_as_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every element of imported files as the viewer fetches it (detail view, the page's
    catalog): pools, lanes, the diagram with its hundreds of kept flows, every node."""
    database = f"sqlite:///{tmp_path / 'viewer.db'}"
    files = [FIXTURES / "bpmn" / name for name in ("meaning.events-markers-conditions.bpmn", "nested-lanes.bpmn")]
    assert main(["tenant", "create", *TENANT, "--db", database]) == 0
    assert main(["import", "--db", database, *TENANT, *map(str, files)]) == 0
    assert main(["token", "create", *TENANT, "--role", "viewer", "--db", database]) == 0
    headers = {"Authorization": f"Bearer {capsys.readouterr().out.strip().splitlines()[-1]}"}
    app = create_app({"DATABASE_URL": database})
    client = app.test_client()
    kept_names = client.get(f"/ui/{CATALOG_ASSET}").get_json()["keptAttributes"]
    assert kept_names == sorted(KEPT_ATTRIBUTES)
    elements = []
    for facet in ("processes", "organization"):
        listing = client.get(f"/acme/main/_api/rest/facets/{facet}/views/detail/elements",
                             query_string={"$resources": "attributes", "$pageSize": "1000"}, headers=headers)
        elements += listing.get_json()["elements"]
    app.extensions["elrepo.engine"].dispose()
    rows = panel_rows(elements, kept_names)
    shown = {name for element_rows in rows for name, _ in element_rows}
    assert shown & KEPT_ATTRIBUTES == set() and "BPMN" in shown
    lines = [value for element_rows in rows for name, value in element_rows if name == "BPMN"]
    assert len(lines) == len(elements)  # every one was imported
    assert "boundary event, timer, non-interrupting (id Boundary_Remind)" in lines
    assert "start event, signal, non-interrupting (id Start_Fraud)" in lines
    assert "process, executable, 14 flows (id Process_Claims)" in lines
    assert not any("[object" in str(value) or "{" in str(value) for element_rows in rows for _, value in element_rows)
