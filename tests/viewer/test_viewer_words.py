"""The viewer in the modeller's words (issue 23): every demo element's panel in English
and German without an internal key or JSON text, the page's labels following the
culture (a link's, the browser's language on a first visit), a deep link opening the
tree down to its element, and axe-core finding no accessibility violation on the
viewer's pages. Every step leaves a screenshot under the test's output folder."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.viewer.conftest import Viewer, axe_violations, new_context
from tests.viewer.live import LiveService
from tests.viewer.test_viewer_e2e import CORE_PROCESSES, ORDER_TO_CASH, PROCESS_HOUSE

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

# An internal key: a word with a capital letter after lower-case ones (`changedBy`,
# `processMaturity`, `InProcessToReadyForRelease`), or JSON text.
CAMEL_CASE = re.compile(r"\b[A-Za-z]*[a-z][A-Z][A-Za-z]*\b")
JSON_TEXT = re.compile(r'[{\[]\s*"|"\s*:\s*[{\["\d]')
# The panel's text per element in the current culture (names of elements left out),
# shown by the page's own modules.
PANEL_TEXTS = """
  const [panel, api] = [module, await import('/ui/api.js')];
  const page = await import('/ui/page.js');
  page.state.culture = argument.culture;
  for (const [id, facet] of Object.entries(argument.facets)) page.state.facetOf.set(id, facet);
  (await import('/ui/i18n.js')).translatePage();
  const texts = {};
  for (const id of Object.keys(argument.facets)) {
    await panel.showPanel(await api.fetchElement(id));
    // the page's words only: element names are the modellers' ("ServiceNow", "GmbH")
    const box = document.querySelector('[data-testid=element-panel]').cloneNode(true);
    for (const name of box.querySelectorAll('[data-name-of], [hidden]')) name.remove();
    const shown = [...box.querySelectorAll('h2, h3, h4, dt, dd, button, li, p, nav')]
      .map((element) => element.textContent.trim());
    texts[id] = shown.join(' | ');
  }
  return texts;
"""


def demo_facets(live: LiveService) -> dict[str, str]:
    """Every demo element's id → its facet."""
    from tests.viewer.test_viewer_e2e import call

    facets: dict[str, str] = {}
    for facet in ("processes", "users", "products", "organization", "knowledge", "inputsoutputs",
                  "requirements", "it", "automation"):
        answer = call(live, f"rest/facets/{facet}/views/list/elements?$pageSize=1000&$select=name")
        facets.update((element["id"], facet) for element in answer["elements"])
    return facets


def test_every_demo_panel_speaks_words_in_both_cultures(viewer: Viewer) -> None:
    viewer.sign_in()
    facets = demo_facets(viewer.live)
    assert len(facets) > 200
    for culture in (1033, 1031):
        texts: dict[str, str] = viewer.in_module("panel.js", f"(async () => {{ {PANEL_TEXTS} }})()",
                                          {"facets": facets, "culture": culture})
        keys = {element_id: CAMEL_CASE.findall(text) for element_id, text in texts.items()}
        assert {element_id: found for element_id, found in keys.items() if found} == {}, culture
        assert [element_id for element_id, text in texts.items() if JSON_TEXT.search(text)] == [], culture
        viewer.shot(f"last-panel-{culture}")
    german = texts[ORDER_TO_CASH]
    assert "Prozessreife | gemessen" in german and "Geändert von" in german
    assert "Zur Prüfung einreichen" in german and "state1" not in german
    assert viewer.problems == []


def test_a_german_link_opens_the_tree_in_german_down_to_its_element(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    page.goto(f"{viewer.live.viewer_url}#/demo/default/elements/{ORDER_TO_CASH}?layout=horizontal&culture=1031")
    page.reload()  # cold, as a shared link opens
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    tree = page.locator("[data-testid=tree]")
    tree.get_by_role("link", name="Auftragsabwicklung", exact=True).wait_for()
    for ancestor in (PROCESS_HOUSE, CORE_PROCESSES):
        assert page.get_attribute(f"li[data-id='{ancestor}']", "aria-expanded") == "true"
    assert tree.locator("a.selected").text_content() == "Auftragsabwicklung"
    assert page.get_attribute("html", "lang") == "de"
    assert page.text_content("[data-i18n=facet]") == "Facette"
    assert page.locator("select[name=layout] option:checked").text_content() == "Horizontal"
    assert page.locator("[data-testid=role]").text_content() == "Angemeldet als Bearbeiter"
    # an editor is offered the editor's steps only, in words
    assert page.locator("[data-testid=transitions] button").all_text_contents() == [
        "Zur Prüfung einreichen", "An die Qualitätssicherung", "Zur Freigabe vorlegen"]
    viewer.shot("german-link")

    page.select_option("select[name=culture]", "1033")  # the switch turns everything
    tree.get_by_role("link", name="Order to cash", exact=True).wait_for()
    assert page.text_content("[data-i18n=facet]") == "Facet" and page.get_attribute("html", "lang") == "en"
    # The panel is redrawn after the tree: wait for its English state word.
    page.wait_for_selector("[data-testid=element-state] >> text='in process'")
    viewer.shot("english-again")
    assert viewer.problems == []


def test_a_first_visit_follows_the_browser_language(browser: Browser, live: LiveService,
                                                    tmp_path: Path) -> None:
    context = new_context(browser, locale="de-DE")
    try:
        viewer = Viewer(context.new_page(), live, tmp_path)
        viewer.page.goto(live.viewer_url)
        viewer.page.get_by_role("heading", name="Anmelden").wait_for()
        viewer.sign_in()
        viewer.page.wait_for_selector("[data-testid=element-name] >> text='Prozesslandkarte Contoso Fertigung'")
        assert "culture=1031" in viewer.page.url
        viewer.shot("german-first-visit")
        assert viewer.problems == []
    finally:
        context.close()


def test_axe_finds_no_violation_on_the_viewers_pages(viewer: Viewer, axe_source: str) -> None:
    page = viewer.page
    page.goto(viewer.live.viewer_url)
    page.wait_for_selector("input[name=token]")
    viewer.shot("sign-in")
    assert axe_violations(viewer, axe_source) == []

    page.fill("input[name=token]", "not-a-token")
    page.click("[data-testid=sign-in] button[type=submit]")
    page.get_by_text("Sign-in failed").wait_for()
    viewer.shot("sign-in-refused")
    assert axe_violations(viewer, axe_source) == []
    viewer.problems.clear()  # the browser logs the refused token's 401 itself

    viewer.sign_in("approver")  # the process house, its drawing and panel
    page.wait_for_selector(f"[data-testid=diagram] > svg[data-diagram-id='{PROCESS_HOUSE}']")
    viewer.shot("process-house")
    assert axe_violations(viewer, axe_source) == []

    viewer.open(ORDER_TO_CASH)
    page.locator("[data-testid=transitions] button").first.click()
    page.locator("[data-testid=confirm]").wait_for()
    viewer.shot("release-dialog")
    assert axe_violations(viewer, axe_source) == []
    assert viewer.problems == []

