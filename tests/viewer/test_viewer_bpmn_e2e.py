"""The element panel of an imported BPMN diagram in a real headless Chromium (issue 19,
item 2): the diagram and a shape list no attribute the import keeps (`bpmnFlows` was
thousands of characters of "[object Object]"), a line "BPMN" says them instead."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from interchange.kept import KEPT_ATTRIBUTES
from repository.cli import main
from tests.conftest import FIXTURES
from tests.viewer.conftest import DIAGRAM, PANEL_NAME, Viewer
from tests.viewer.live import LiveService, serve
from tests.viewer.test_viewer_e2e import call

MEANING_FILE = FIXTURES / "bpmn" / "meaning.events-markers-conditions.bpmn"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    """The demo service with the fixture imported into its tenant."""
    database = tmp_path_factory.mktemp("viewer-bpmn") / "viewer.db"
    with serve(database) as service:
        assert main(["import", "--db", f"sqlite:///{database}", "demo", "default", str(MEANING_FILE)]) == 0
        yield service


def imported(live: LiveService, bpmn_id: str) -> dict[str, Any]:
    """The imported element that keeps this BPMN id."""
    listing = call(live, "rest/facets/processes/views/detail/elements?$resources=attributes&$pageSize=1000")
    element: dict[str, Any] = next(element for element in listing["elements"]
                                   if element["attributes"].get("bpmnId", {}).get("127") == bpmn_id)
    return element


def panel_attributes(viewer: Viewer) -> dict[str, str]:
    terms = viewer.page.locator("[data-testid=attributes] dt").all_text_contents()
    descriptions = viewer.page.locator("[data-testid=attributes] dd").all_text_contents()
    return dict(zip(terms, descriptions, strict=True))


def test_the_panel_says_what_an_import_kept_in_one_line(viewer: Viewer) -> None:
    diagram = imported(viewer.live, "Process_Claims")
    boundary = imported(viewer.live, "Boundary_Remind")
    viewer.sign_in()
    viewer.open(diagram["id"])
    viewer.page.wait_for_selector(f"{PANEL_NAME} >> text='Handle a claim'")
    shown = panel_attributes(viewer)
    assert shown["BPMN"] == "process, executable, 14 flows (id Process_Claims)"
    assert set(shown) & KEPT_ATTRIBUTES == set()
    viewer.shot("diagram")
    viewer.page.click(f"{DIAGRAM} rect.overlay[data-guid='{boundary['id']}']")
    viewer.page.wait_for_selector(f"{PANEL_NAME} >> text='2 days'")
    shown = panel_attributes(viewer)
    assert shown["BPMN"] == "boundary event, timer, non-interrupting (id Boundary_Remind)"
    assert set(shown) & KEPT_ATTRIBUTES == set()
    assert not any("[object" in text or "{" in text for text in shown.values())
    viewer.shot("boundary-event")
    assert viewer.problems == []
