"""The drawing as a modeller uses it, in a real headless Chromium (issue 23, items 2, 5 and
the drawing part of 7): a big diagram opens readable on its start, with an overview and a
zoom figure; wheel zoom keeps the point under the pointer; search within the diagram;
small edits through the service with If-Match, laid out again by the engine, undone;
every shape reached with the keyboard along the flows and named for a screen reader.
Every step leaves a screenshot under the test's output folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.viewer.conftest import (
    DIAGRAM,
    EDIT_BAR,
    FOUND,
    LABEL_FONT_SIZE,
    PANEL_NAME,
    READABLE_LABEL_PX,
    Viewer,
    assert_kept_its_shape,
    axe_violations,
)
from tests.viewer.test_viewer_e2e import ORDER_TO_CASH, call, name_of


def attribute(viewer: Viewer, element_id: str, name: str) -> Any:
    answer = call(viewer.live, f"rest/facets/processes/views/detail/elements/{element_id}"
                               f"?$resources=attributes&$select={name}")
    return answer["elements"][0]["attributes"].get(name)


def test_order_to_cash_opens_readable_on_its_start_and_the_search_finds_a_shape(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH, culture=1031)
    viewer.assert_readable_on_its_start()
    viewer.shot("order-to-cash-opening")

    credit_check = viewer.find("KREDITPRUF")  # any case or accent, part of the name
    assert page.text_content("[data-testid=diagram-search-result]") == "1 von 1"  # in culture 1031
    guid = page.get_attribute(f"{DIAGRAM} rect.overlay[data-shape-id='{credit_check}']", "data-guid") or ""
    assert name_of(viewer.live, guid, 1031) == "Kreditprüfung"
    assert viewer.on_screen(FOUND)
    viewer.shot("found-kreditpruefung")
    assert viewer.find("Credit check") == credit_check  # another culture's name matches too
    page.fill("[data-testid=diagram-search] input", "no such shape")
    page.press("[data-testid=diagram-search] input", "Enter")
    assert page.text_content("[data-testid=diagram-search-result]") == "nicht gefunden"
    assert page.locator(FOUND).count() == 0
    assert viewer.problems == []


def test_axe_finds_no_violation_while_a_shape_is_found_and_edited(viewer: Viewer, axe_source: str) -> None:
    """The drawing with a found shape, a selected one and the edit bar filled with it."""
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    viewer.find("Credit check")
    viewer.select_shape("Prepare quotation")
    viewer.shot("found-and-selected")
    assert axe_violations(viewer, axe_source) == []
    assert viewer.problems == []


def test_rename_insert_keep_the_drawing_and_undo(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    viewer.select_shape("Prepare quotation")
    task_guid = viewer.selected("guid")
    viewer.shot("task-selected")

    page.fill(f"{EDIT_BAR} input[name=name]", "Prepare <b>binding</b> quotation")
    page.fill(f"{EDIT_BAR} input[name=description]", "Prices & terms")
    page.click(f"{EDIT_BAR} button[type=submit]")
    viewer.edit_message("Saved")
    renamed = "Prepare <b>binding</b> quotation"
    assert name_of(viewer.live, task_guid) == renamed
    assert attribute(viewer, task_guid, "description") == {"1033": "<p>Prices &amp; terms</p>"}
    page.wait_for_function("(name) => document.querySelector('[data-testid=diagram] > svg')"
                           ".textContent.includes('binding')", arg=renamed)
    assert page.locator(f"{DIAGRAM} b").count() == 0  # user text never becomes markup
    page.wait_for_selector(f"{PANEL_NAME} >> text='{renamed}'")
    label = page.get_attribute(f"{DIAGRAM} rect.overlay.selected", "aria-label")
    assert label == f"Task: {renamed}"
    viewer.shot("renamed")

    view_before = viewer.view()
    before, after, added = viewer.insert_after_selected("Inserted a Task")
    # The drawing keeps its shape: the view did not move, nor did the shapes before the
    # insertion (Order to cash with the engine of today: all but the rework loop's task
    # keep their rows).
    assert viewer.view() == view_before
    assert_kept_its_shape(before, after, added)
    page.wait_for_selector(f"{PANEL_NAME} >> text='Task'")
    page.wait_for_function("() => document.activeElement.name === 'name'")  # the new task is named next
    assert page.input_value(f"{EDIT_BAR} input[name=name]") == "Task"
    viewer.shot("task-inserted")

    viewer.edit("undo-edit", "Undid the insert")
    page.wait_for_function(f"() => document.querySelectorAll('{DIAGRAM} rect.overlay').length === {len(before)}")
    assert viewer.shapes() == before
    page.wait_for_selector(f"{PANEL_NAME} >> text='{renamed}'")
    assert page.is_disabled(f"{EDIT_BAR} [data-action=undo-edit]")
    viewer.shot("insert-undone")
    assert viewer.problems == []


def test_delete_joins_the_flows_and_undo_puts_the_shape_back(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    viewer.select_shape("Pick and pack")
    gone = viewer.selected("shape-id")
    guid = viewer.selected("guid")
    links = viewer.connectors()
    before_in = {s for s, t in links if t == gone}
    before_out = {t for s, t in links if s == gone}
    viewer.edit("delete-shape", "Deleted")
    page.wait_for_selector(f"{DIAGRAM} rect.overlay[data-shape-id='{gone}']", state="detached")
    joined = viewer.connectors()
    assert all([s, t] in joined for s in before_in for t in before_out)
    viewer.shot("deleted")

    viewer.edit("undo-edit", "Undid the delete")
    back = page.wait_for_selector(f"{DIAGRAM} rect.overlay[data-guid='{guid}']")
    assert back is not None
    restored = back.get_attribute("data-shape-id") or ""
    rewired = viewer.connectors()
    assert all([s, restored] in rewired for s in before_in)
    assert all([restored, t] in rewired for t in before_out)
    assert not any([s, t] in rewired for s in before_in for t in before_out)
    viewer.shot("delete-undone")
    assert viewer.problems == []


def test_an_edit_over_someone_elses_change_is_refused_and_offers_a_reload(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    viewer.select_shape("Create invoice")
    guid = viewer.selected("guid")
    # someone else renames it after the form was filled
    call(viewer.live, "rest/facets/processes/views/detail/elements/",
         {"count": 1, "elements": [{"id": guid, "attributes": {"name": {"1033": "Issue invoice"}}}]})
    page.fill(f"{EDIT_BAR} input[name=name]", "Write invoice")
    page.click(f"{EDIT_BAR} button[type=submit]")
    viewer.edit_message("Changed by someone else")
    assert page.is_visible(f"{EDIT_BAR} [data-action=reload]")
    page.wait_for_selector(f"{DIAGRAM}:not([aria-busy])")
    assert page.input_value(f"{EDIT_BAR} input[name=name]") == "Write invoice"  # kept, not lost
    assert name_of(viewer.live, guid) == "Issue invoice"
    viewer.shot("refused-412")
    page.click(f"{EDIT_BAR} [data-action=reload]")
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    assert viewer.find("Issue invoice") != ""

    # The drawing too: someone appends a shape after it was drawn; a delete on the old
    # picture is refused, nothing deleted.
    viewer.select_shape("Issue invoice")
    shape_id = viewer.selected("shape-id")
    call(viewer.live, f"rest/facets/processes/views/diagram/elements/{ORDER_TO_CASH}/content",
         {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                      "element": {"type": "evEnd", "attributes": {"name": {"1033": "Elsewhere"}}}}]})
    viewer.edit("delete-shape", "Changed by someone else")
    content = call(viewer.live, f"rest/facets/processes/views/detail/elements/{ORDER_TO_CASH}?$resources=content")
    assert shape_id in [shape["shapeId"] for shape in content["elements"][0]["content"]]
    viewer.shot("refused-412-delete")

    # An undo holds the revision its edit left: after someone else's change it is refused
    # too, rather than reverting theirs with it.
    page.click(f"{EDIT_BAR} [data-action=reload]")
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    viewer.select_shape("Credit check")
    credit_check = viewer.selected("guid")
    description = attribute(viewer, credit_check, "description")
    assert "<" not in description["1033"]  # plain text, as the demo stores it
    page.fill(f"{EDIT_BAR} input[name=name]", "Check credit")
    page.click(f"{EDIT_BAR} button[type=submit]")
    viewer.edit_message("Saved")
    assert attribute(viewer, credit_check, "description") == description  # a rename leaves it as stored
    call(viewer.live, "rest/facets/processes/views/detail/elements/",
         {"count": 1, "elements": [{"id": credit_check, "attributes": {"name": {"1033": "Solvency check"}}}]})
    viewer.edit("undo-edit", "Changed by someone else")
    assert name_of(viewer.live, credit_check) == "Solvency check"
    # a 412 is an answer the page expects: it says so, the console stays clean of it but
    # for the browser's own line about the refused request
    assert all("412" in problem for problem in viewer.problems)


def focused_label(viewer: Viewer) -> str:
    label: str = viewer.page.evaluate("document.activeElement.getAttribute('aria-label')")
    return label


def test_every_shape_is_reached_with_the_keyboard_along_the_flows(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    page.wait_for_function(f"() => document.querySelector('{DIAGRAM} rect.overlay[data-type=task]')"
                           ".getAttribute('aria-label').includes(': ')")
    # Tab walks all shapes once from the start, each after the shapes leading to it
    # (loops aside), the view following; one more Tab leaves the diagram.
    page.focus(DIAGRAM)
    total = page.locator(f"{DIAGRAM} rect.overlay").count()
    seen = []
    for _ in range(total):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("document.activeElement.dataset.shapeId"))
    assert len(set(seen)) == total and None not in seen
    assert viewer.on_screen(f"{DIAGRAM} rect.overlay[data-shape-id='{seen[-1]}']")
    # the view moved to the focused shapes; the pane itself never scrolled
    assert page.evaluate(f"document.querySelector('{DIAGRAM}').scrollLeft") == 0
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('[data-testid=diagram]')") is None
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.dataset.shapeId") == seen[-1]
    viewer.shot("keyboard-last-shape")

    # The arrow keys follow the flows, through a gateway's branches and back.
    page.locator(f"{DIAGRAM} rect.overlay[data-shape-id='{seen[0]}']").focus()
    assert focused_label(viewer) == "Start event: Customer inquiry received"
    page.keyboard.press("ArrowRight")
    assert focused_label(viewer) == "Task: Review inquiry"
    page.keyboard.press("ArrowRight")
    assert focused_label(viewer) == "XOR rule: Standard product?"
    page.keyboard.press("ArrowRight")
    first_branch = focused_label(viewer)
    page.keyboard.press("ArrowDown")
    second_branch = focused_label(viewer)
    assert {first_branch, second_branch} == {"Condition: Standard product", "Condition: Custom design"}
    page.keyboard.press("ArrowLeft")
    assert focused_label(viewer) == "XOR rule: Standard product?"
    viewer.shot("keyboard-on-gateway")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{PANEL_NAME} >> text='Standard product?'")
    for overlay in page.locator(f"{DIAGRAM} rect.overlay").all():
        assert overlay.get_attribute("role") == "button"
        assert ": " in (overlay.get_attribute("aria-label") or "")
    assert viewer.problems == []


def test_pan_and_zoom_by_keyboard_wheel_drag_buttons_and_overview(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    opening = viewer.view()
    page.focus(DIAGRAM)
    page.keyboard.press("+")
    assert viewer.view()["s"] == pytest.approx(opening["s"] * 1.25)
    page.keyboard.press("-")
    assert viewer.view()["s"] == pytest.approx(opening["s"])
    page.keyboard.press("ArrowLeft")
    assert viewer.view()["tx"] == pytest.approx(opening["tx"] + 60)
    page.keyboard.press("0")
    fitted = viewer.view()
    assert fitted["s"] < opening["s"]
    page.wait_for_selector("[data-testid=overview]", state="hidden")  # all of it is in view
    viewer.shot("fitted")

    # From Fit, the wheel zooms about the pointer: the shape under it stays under it.
    task = page.locator(f"{DIAGRAM} rect.overlay[data-type=task]").nth(3)
    box = task.bounding_box()
    assert box is not None
    point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*point)
    page.mouse.wheel(0, -400)
    page.wait_for_function(f"async () => (await import('/ui/view.js')).viewNow().s > {fitted['s'] * 1.5}")
    under = page.evaluate(f"document.elementFromPoint({point[0]}, {point[1]}).dataset.shapeId")
    assert under == task.get_attribute("data-shape-id")
    viewer.shot("wheel-zoomed")

    before_drag = viewer.view()
    url = page.url
    page.mouse.down()
    page.mouse.move(point[0] - 200, point[1] - 50, steps=5)
    page.mouse.up()
    dragged = viewer.view()
    assert dragged["tx"] == pytest.approx(before_drag["tx"] - 200)
    assert dragged["s"] == before_drag["s"]
    assert page.url == url  # a drag that ends on a shape does not open it
    page.click("[data-action=zoom-out]")
    assert viewer.view()["s"] == pytest.approx(dragged["s"] / 1.25)
    assert page.text_content("[data-testid=zoom-figure]") == f"{round(viewer.view()['s'] * 100)} %"

    # A click on the overview centres the view on that point of the drawing.
    overview = page.locator("[data-testid=overview]").bounding_box()
    assert overview is not None
    page.mouse.click(overview["x"] + overview["width"] * 0.9, overview["y"] + overview["height"] / 2)
    pane = page.locator(DIAGRAM).bounding_box()
    assert pane is not None
    moved = viewer.view()
    width = viewer.in_module("page.js", "module.state.drawing.base.w")
    centre = (pane["width"] / 2 - moved["tx"]) / moved["s"]
    assert centre == pytest.approx(width * 0.9, rel=0.02)
    viewer.shot("overview-clicked")
    assert viewer.problems == []


def test_a_small_diagram_opens_at_full_size_not_blown_up(viewer: Viewer) -> None:
    created = call(viewer.live, "rest/facets/processes/views/detail/elements/",
                   {"count": 1, "elements": [{"type": "mainProcess",
                                              "attributes": {"name": {"1033": "Tiny"}}}]})
    diagram_id = created["elements"][0]["id"]
    call(viewer.live, f"rest/facets/processes/views/diagram/elements/{diagram_id}/content", {"values": [
        {"shapeInfo": {"index": 0, "predecessors": []},
         "element": {"type": "evStart", "attributes": {"name": {"1033": "Begin"}}}},
        {"shapeInfo": {"index": 1, "predecessors": [0]},
         "element": {"type": "evEnd", "attributes": {"name": {"1033": "Done"}}}}]})
    viewer.sign_in()
    viewer.open(diagram_id)
    opening = viewer.view()
    assert opening["s"] == 1
    assert viewer.on_screen(f"{DIAGRAM} rect.overlay[data-type=evEnd]")
    assert not viewer.page.is_visible("[data-testid=overview]")  # all of it is in view
    viewer.page.focus(DIAGRAM)
    viewer.page.keyboard.press("0")  # Fit fills the pane, even beyond 100 %
    assert viewer.view()["s"] > 1
    viewer.shot("tiny")
    assert viewer.problems == []


def big_diagram(viewer: Viewer, shared_dir: Path) -> tuple[str, dict[str, Any]]:
    fixture: dict[str, Any] = json.loads((shared_dir / "corpus" / "simod" / "fixtures" / "BPIC15_1.json")
                                         .read_text(encoding="utf-8"))
    created = call(viewer.live, "rest/facets/processes/views/detail/elements/",
                   {"count": 1, "elements": [{"type": "mainProcess",
                                              "attributes": fixture["diagram"]["attributes"]}]})
    diagram_id: str = created["elements"][0]["id"]
    call(viewer.live, f"rest/facets/processes/views/diagram/elements/{diagram_id}/content",
         {"values": fixture["values"]})
    return diagram_id, fixture


def test_big_diagram_opens_readable_and_pans_and_zooms(viewer: Viewer, shared_dir: Path) -> None:
    diagram_id, fixture = big_diagram(viewer, shared_dir)
    page = viewer.page
    page.set_default_timeout(120_000)
    viewer.sign_in()
    viewer.open(diagram_id)
    overlays = page.locator(f"{DIAGRAM} rect.overlay")
    assert overlays.count() == len(fixture["values"])
    assert viewer.view()["s"] * LABEL_FONT_SIZE == pytest.approx(READABLE_LABEL_PX)
    first = page.evaluate("async () => (await import('/ui/flow.js')).shapesInFlowOrder()[0].dataset.shapeId")
    assert viewer.on_screen(f"{DIAGRAM} rect.overlay[data-shape-id='{first}']")
    viewer.shot("big-opening")
    page.focus(DIAGRAM)
    page.keyboard.press("0")
    assert viewer.view()["s"] < 0.5
    viewer.shot("big-fitted")
    page.click("[data-action=zoom-in]")
    for key in ("+", "+", "ArrowRight", "ArrowDown", "-"):
        page.keyboard.press(key)
    viewer.shot("big-moved")
    assert viewer.problems == []
