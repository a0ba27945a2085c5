"""Versions compared in the viewer (issue 22, item 4), in a real headless Chromium against
a live service with the demo: the approver of a pending release sees the diff against the
released version beside the transition buttons, in the page's culture; anyone may pick
two versions; a compare drawing's hatched ghosts keep their hatching in the page."""

from __future__ import annotations

from pathlib import Path

from tests.viewer.conftest import COMPARE, Viewer, axe_violations
from tests.viewer.test_viewer_e2e import CREDIT_CHECK, ORDER_TO_CASH, call
from tests.viewer.test_viewer_words import CAMEL_CASE

#: A compare drawing with removed shapes (hatched ghosts), as the renderer writes it.
GHOSTS_SVG = Path(__file__).parents[2] / "golden" / "compare" / "demo.credit-check.horizontal.svg"
HATCHED = "[fill='url(#change-removed-hatch)']"


def add_task_and_ask_for_review(viewer: Viewer, diagram_id: str = ORDER_TO_CASH) -> str:
    """A task appended after the diagram's last shape of its pending revision, and the
    revision sent to review: the added shape's id."""
    element = call(viewer.live, f"rest/facets/processes/views/detail/elements/{diagram_id}"
                                "?$resources=content")["elements"][0]
    last = element["content"][-1]["shapeId"]
    answer = call(viewer.live, f"rest/facets/processes/views/diagram/elements/{diagram_id}/content"
                               "?api-version=3.0", {"values": [
        {"shapeInfo": {"index": 0, "predecessors": [], "id": last}},
        {"shapeInfo": {"index": 1, "predecessors": [0]},
         "element": {"type": "task", "attributes": {"name": {"1033": "Archive the <b>order</b>"}}}}]})
    added: str = answer["values"][1]["id"]
    call(viewer.live, f"release/{diagram_id}/transitions/InProcessToInReview", {})
    return added


def test_the_approver_sees_what_the_pending_release_changes(viewer: Viewer) -> None:
    added = add_task_and_ask_for_review(viewer)
    page = viewer.page
    viewer.sign_in("approver")
    viewer.open(ORDER_TO_CASH)
    page.wait_for_selector("[data-testid=element-state] >> text='in review'")  # the state's display name
    # No step of review is the approver's (the contract: theirs are the moves into
    # released or expired); the panel says whose it is.
    page.wait_for_selector("[data-testid=transitions] >> text='No step of the workflow is open to your role "
                           "now. Next step by: Editor.'")
    drawing = page.wait_for_selector(f"{COMPARE} [data-testid=compare-drawing] svg")
    assert drawing is not None
    heading = page.text_content(f"{COMPARE} h4") or ""
    assert "Changes since the released version" in heading and "(released)" in heading
    marked = page.eval_on_selector_all(f"{COMPARE} rect.overlay[data-change]",
                                       "rects => rects.map(r => [r.dataset.shapeId, r.dataset.change])")
    assert marked == [[added, "added"]]
    changes = page.locator(f"{COMPARE} [data-testid=change-list] li").all_text_contents()
    assert "added: Archive the <b>order</b> (Task)" in changes  # user text shown as text
    assert page.locator(f"{COMPARE} b").count() == 0
    assert page.locator(f"{COMPARE} svg pattern#change-removed-hatch line").count() == 1  # hatching kept
    # Beside the transition buttons: right after them, in the release section.
    assert page.eval_on_selector("[data-testid=transitions]",
                                 "buttons => buttons.nextElementSibling.dataset.testid") == "compare"
    viewer.shot("pending-release-diff")
    # The same panel in German: the page's words and the catalog's, no internal key.
    viewer.open(ORDER_TO_CASH, culture=1031)
    page.wait_for_selector("[data-testid=element-state] >> text='in Prüfung'")
    page.wait_for_selector("[data-testid=transitions] >> text=/Nächster Schritt durch: Bearbeiter\\./")
    # The English comparison stays until the German one replaces it: wait for its heading.
    page.wait_for_selector(f"{COMPARE} h4 >> text=/Änderungen seit/")
    page.wait_for_selector(f"{COMPARE} [data-testid=compare-drawing] svg")
    heading = page.text_content(f"{COMPARE} h4") or ""
    assert "Änderungen seit der freigegebenen Version" in heading and "(freigegeben)" in heading
    lines = page.eval_on_selector_all(f"{COMPARE} [data-testid=change-list] li",
                                      "items => items.map(item => [item.dataset.change, item.textContent])")
    assert ["added", "hinzugefügt: Archive the <b>order</b> (Aufgabe)"] in lines
    assert ["changed", "geändert: das Diagramm: Grund der Überarbeitung"] in lines  # reasonForRevision
    assert [text for _, text in lines if CAMEL_CASE.search(text)] == []
    viewer.shot("pending-release-diff-german")
    assert viewer.problems == []


def test_picking_two_versions_shows_their_comparison(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in("viewer")
    viewer.open(ORDER_TO_CASH)
    pickers = page.locator("[data-testid=versions] input[data-compare-version]")
    pickers.first.wait_for()
    count = pickers.count()
    assert count >= 2
    pickers.nth(0).check()
    pickers.nth(count - 1).check()
    # The pending release's comparison may still be loading; the picked one replaces it.
    page.wait_for_selector(f"{COMPARE} h4 >> text=/Changes between the picked versions/")
    page.wait_for_selector(f"{COMPARE} [data-testid=compare-drawing] svg")
    assert page.locator(f"{COMPARE} [data-testid=change-list] li").count() >= 1
    viewer.shot("picked-versions")
    assert viewer.problems == []


def test_the_sanitizer_keeps_the_ghosts_hatching(viewer: Viewer) -> None:
    svg_text = GHOSTS_SVG.read_text(encoding="utf-8")
    viewer.sign_in()
    kept = viewer.in_module("diagram.js", f"""(() => {{
        const svg = module.sanitizeSvg(argument);
        document.querySelector('[data-testid=diagram]').replaceChildren(svg);
        return [svg.querySelectorAll('pattern#change-removed-hatch line').length,
                svg.querySelectorAll("{HATCHED}").length];
    }})()""", svg_text)
    assert kept == [1, svg_text.count('fill="url(#change-removed-hatch)"')]
    assert kept[1] >= 2  # the ghosts and the legend's sample
    viewer.shot("hatched-ghosts")
    assert viewer.problems == []


def test_axe_finds_no_violation_in_the_approvers_comparison(viewer: Viewer, axe_source: str) -> None:
    """The panel with a pending release's comparison (the compare drawing, its legend and
    change list) beside the transitions, and with the approver's release dialog open."""
    add_task_and_ask_for_review(viewer, CREDIT_CHECK)  # a diagram no other test here changes
    page = viewer.page
    viewer.sign_in("approver")
    viewer.open(CREDIT_CHECK)
    page.wait_for_selector(f"{COMPARE} [data-testid=compare-drawing] svg")
    page.wait_for_selector(f"{COMPARE} [data-testid=change-list] li")
    viewer.shot("comparison")
    assert axe_violations(viewer, axe_source) == []
    assert viewer.problems == []
