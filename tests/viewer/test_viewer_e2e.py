"""The viewer in a real headless Chromium against a live service with the demo: sign in,
tree, diagram, shape click, layout and culture switches, back/forward, release,
downloads (pan, zoom, search and edits: test_viewer_canvas.py). Every step leaves a
screenshot under the test's output folder."""

from __future__ import annotations

import json
import struct
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.viewer.conftest import DIAGRAM, PANEL_NAME, Viewer
from tests.viewer.live import LiveService

PROCESS_HOUSE = "c0d13fd3-d0a1-5ac0-8c5b-5186ae178944"
CORE_PROCESSES = "ff998519-39ba-5056-ba06-bd24d663ae07"
ORDER_TO_CASH = "6c43bc68-60e6-5029-a320-9ca19788904a"
CREDIT_CHECK = "c4642688-346e-5ad7-b4dc-5eba90fc42c6"  # a released sub process of Order to cash


def call(live: LiveService, path: str, body: Any = None, role: str = "editor") -> Any:
    request = urllib.request.Request(
        f"{live.base_url}/demo/default/_api/{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {live.tokens[role]}",
                 "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def name_of(live: LiveService, element_id: str, culture: int = 1033) -> str:
    answer = call(live, f"rest/facets/processes/views/detail/elements/{element_id}"
                        "?$resources=attributes&$select=name")
    name: str = answer["elements"][0]["attributes"]["name"][str(culture)]
    return name



def test_first_open_signs_in_and_shows_the_process_house(viewer: Viewer) -> None:
    page = viewer.page
    page.goto(viewer.live.viewer_url)
    page.wait_for_selector("input[name=token]")
    viewer.shot("sign-in")
    viewer.sign_in()
    page.wait_for_selector(f"{DIAGRAM} > svg[data-layout=graphic][data-diagram-id='{PROCESS_HOUSE}']")
    assert f"#/demo/default/elements/{PROCESS_HOUSE}?" in page.url
    page.wait_for_selector(f"{PANEL_NAME} >> text='Contoso Fertigung process house'")
    token = viewer.live.tokens["editor"]
    assert token not in page.url
    assert page.evaluate("sessionStorage.getItem('elrepo.token/demo/default')") == token
    viewer.shot("process-house")
    assert viewer.problems == []


def test_wrong_token_is_refused_with_the_reason(viewer: Viewer) -> None:
    page = viewer.page
    page.goto(viewer.live.viewer_url)
    page.fill("input[name=token]", "not-a-token")
    page.click("[data-testid=sign-in] button[type=submit]")
    error = page.locator("[data-testid=sign-in-error]")
    error.get_by_text("Sign-in failed").wait_for()
    assert page.is_visible("input[name=token]")
    # beside the form that caused it, not in the status line at the foot of the page
    field = page.locator("input[name=token]").bounding_box()
    said = error.bounding_box()
    assert field is not None and said is not None and 0 < said["y"] - field["y"] < 200
    assert page.text_content("[data-testid=status]") == ""
    viewer.shot("refused")


def test_tree_opens_a_diagram_and_a_click_on_a_task_shows_it(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    page.click(f"li[data-id='{PROCESS_HOUSE}'] > .row > button.toggle")
    page.get_by_role("link", name="Core processes", exact=True).wait_for()
    viewer.shot("tree-expanded")
    page.click(f"li[data-id='{CORE_PROCESSES}'] > .row > button.toggle")
    page.get_by_role("link", name="Order to cash", exact=True).click()
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    viewer.shot("diagram")

    task = page.locator(f"{DIAGRAM} rect.overlay[data-type=task]").first
    task_id = task.get_attribute("data-guid") or ""
    task.click()
    page.wait_for_function(f"location.hash.includes('/elements/{task_id}')")
    expected = name_of(viewer.live, task_id)
    page.wait_for_selector(f"{PANEL_NAME} >> text='{expected}'")
    assert f"diagram={ORDER_TO_CASH}" in page.url
    # the panel may show the name before the drawing marks the selection: wait for both
    selected = page.wait_for_selector(f"{DIAGRAM} rect.overlay.selected[data-guid='{task_id}']")
    assert selected is not None and selected.get_attribute("class") == "overlay selected"
    viewer.shot("task-clicked")

    page.go_back()
    page.wait_for_selector(f"{PANEL_NAME} >> text='Order to cash'")
    assert viewer.problems == []


def test_search_and_another_facet(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    page.fill("input[name=search]", "cash")
    page.press("input[name=search]", "Enter")
    page.get_by_role("link", name="Order to cash", exact=True).click()
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    assert page.locator("[data-testid=tree] a").all_text_contents() == ["Order to cash"]
    viewer.shot("search")

    page.select_option("select[name=facet]", "organization")
    tree = page.locator("[data-testid=tree]")
    tree.get_by_role("link", name="Contoso Fertigung GmbH", exact=True).wait_for()
    tree.locator("button.toggle").first.click()
    tree.get_by_role("link", name="Sales", exact=True).click()
    page.wait_for_selector(f"{PANEL_NAME} >> text='Sales'")
    page.wait_for_selector("[data-testid=element-type] >> text='Org unit'")
    viewer.shot("org-unit")
    assert viewer.problems == []


def test_swimlane_layout_and_german_culture_with_back_and_forward(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    page.select_option("select[name=layout]", "horizontalSwimlane")
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontalSwimlane")
    assert page.locator(f"{DIAGRAM} g.lane").count() >= 2
    assert "layout=horizontalSwimlane" in page.url
    viewer.shot("swimlanes")

    task_id = page.get_attribute(f"{DIAGRAM} rect.overlay[data-type=task]", "data-guid") or ""
    german_task = name_of(viewer.live, task_id, 1031)
    page.select_option("select[name=culture]", "1031")
    page.wait_for_selector(f"{PANEL_NAME} >> text='Auftragsabwicklung'")
    page.wait_for_function("(name) => document.querySelector('[data-testid=diagram] > svg')"
                           ".textContent.includes(name)", arg=german_task)
    assert "culture=1031" in page.url
    viewer.shot("german")

    page.go_back()
    page.wait_for_selector(f"{PANEL_NAME} >> text='Order to cash'")
    page.go_back()
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    page.go_forward()
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontalSwimlane")
    assert viewer.problems == []


def test_release_from_the_panel_as_approver(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in("approver")
    viewer.open(ORDER_TO_CASH)
    release = page.locator("button[data-transition=InProcessToReleased]")
    release.wait_for()
    assert release.text_content() == "Release"
    assert page.locator("[data-testid=role]").text_content() == "Signed in as Approver"
    viewer.shot("transitions")
    release.click()  # asks first: cancelling changes nothing
    dialog = page.locator("[data-testid=confirm]")
    dialog.get_by_role("button", name="Cancel").click()
    assert not dialog.is_visible() and page.text_content("[data-testid=release-result]") == ""
    release.click()
    dialog.locator("textarea[name=comment]").fill("Checked with sales: ready")
    viewer.shot("confirm-release")
    dialog.locator("[data-testid=confirm-run]").click()
    page.wait_for_selector("[data-testid=release-result] >> text=/now released, version 3.0/")
    page.wait_for_selector("[data-testid=element-state] >> text='released'")
    versions = page.locator("[data-testid=versions] li .version-line").all_text_contents()
    assert versions[-1] == "3.0 — released" and "2.0 — expired" in versions
    assert page.locator("[data-testid=versions] li").last.locator(
        "[data-testid=release-comment]").text_content() == "Checked with sales: ready"
    assert page.locator("button[data-transition=InProcessToReleased]").count() == 0
    viewer.shot("released")
    assert viewer.problems == []


def test_downloads_the_svg_and_png_of_the_diagram(viewer: Viewer, tmp_path: Path) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH)
    with page.expect_download() as svg_download:
        page.click("[data-action=download-svg]")
    assert svg_download.value.suggested_filename == "Order_to_cash.horizontal.1033.svg"
    svg_path = tmp_path / "download.svg"
    svg_download.value.save_as(svg_path)
    svg = svg_path.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and f'data-diagram-id="{ORDER_TO_CASH}"' in svg
    assert 'class="overlays"' in svg and 'width="' in svg

    with page.expect_download() as png_download:
        page.click("[data-action=download-png]")
    png_path = tmp_path / "download.png"
    png_download.value.save_as(png_path)
    png = png_path.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    svg_width = float(svg.split('width="', 1)[1].split('"', 1)[0])
    assert width == pytest.approx(2 * svg_width, abs=1) and height > 100
    viewer.shot("downloaded")
    assert viewer.problems == []


HOSTILE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'viewBox="0 0 10 10" onload="window.owned = 1">'
    '<script>window.owned = 2</script>'
    '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml" onclick="x()">x</div></foreignObject>'
    '<a xlink:href="javascript:alert(1)"><text>link</text></a>'
    '<rect class="overlay" data-guid="g" onmouseover="window.owned = 3" '
    'style="fill: url(https://example.org/x)" fill="url(https://example.org/y)" />'
    '<path marker-end="url(#arrow)" d="M0 0 H5" />'
    '<pattern id="hatch" href="https://example.org/p" xlink:href="https://example.org/q" '
    'patternUnits="userSpaceOnUse" width="6" height="6"><line x2="6" /></pattern>'
    '<rect class="ghost" fill="url(#hatch)" /></svg>')


def test_sanitizer_keeps_the_drawing_and_drops_active_content(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    markup = viewer.in_module("diagram.js", "module.sanitizeSvg(argument).outerHTML", HOSTILE_SVG)
    for dropped in ("script", "foreignObject", "onload", "onclick", "onmouseover", "javascript:",
                    "href", "style", "example.org", "<a"):
        assert dropped not in markup
    assert 'data-guid="g"' in markup and 'marker-end="url(#arrow)"' in markup
    # a compare drawing's hatching stays, without a reference outside the drawing
    assert '<pattern id="hatch" patternUnits="userSpaceOnUse"' in markup and 'fill="url(#hatch)"' in markup
    assert page.evaluate("window.owned") is None
    with pytest.raises(Exception, match="not an SVG document"):
        viewer.in_module("diagram.js", "module.sanitizeSvg('<html><body>hi</body></html>')")
