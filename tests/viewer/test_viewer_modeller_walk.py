"""Issue 23's "done when", walked as a modeller would in one session of a real headless
Chromium against a live service with the demo: sign in as an editor, see the process
house in German, open Order to cash from the tree (readable on its start), find
"Kreditprüfung" with the diagram search, rename a task, insert a task after it and
see the drawing keep its shape, send the diagram through review; then sign in again as
an approver, see the pending release's comparison, release it with a comment and find
the comment in the versions list. Every step leaves a screenshot under the test's
output folder."""

from __future__ import annotations

from tests.viewer.conftest import (
    COMPARE,
    DIAGRAM,
    EDIT_BAR,
    FOUND,
    PANEL_NAME,
    Viewer,
    assert_kept_its_shape,
)
from tests.viewer.test_viewer_e2e import CORE_PROCESSES, ORDER_TO_CASH, PROCESS_HOUSE, name_of

GERMAN = 1031
STATE = "[data-testid=element-state]"
TREE = "[data-testid=tree]"
RENAMED = "Kundenauftrag im ERP erfassen"
INSERTED = "Lieferadresse prüfen"
COMMENT = "Mit dem Vertrieb abgestimmt: die Lieferadresse wird vor der Kreditprüfung geprüft."


def open_order_to_cash_from_the_tree(viewer: Viewer) -> None:
    """House → core processes → Order to cash, by the German names a modeller reads."""
    page = viewer.page
    tree = page.locator(TREE)
    for parent in (PROCESS_HOUSE, CORE_PROCESSES):
        row = page.locator(f"li[data-id='{parent}']")
        if row.get_attribute("aria-expanded") != "true":
            row.locator("> .row > button.toggle").click()
    tree.get_by_role("link", name="Auftragsabwicklung", exact=True).click()
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    page.wait_for_selector(f"{PANEL_NAME} >> text='Auftragsabwicklung'")


def rename_selected(viewer: Viewer, name: str) -> None:
    viewer.page.fill(f"{EDIT_BAR} input[name=name]", name)
    viewer.page.click(f"{EDIT_BAR} button[type=submit]")
    viewer.edit_message("Gespeichert")
    viewer.page.wait_for_selector(f"{PANEL_NAME} >> text='{name}'")


def test_a_modeller_edits_order_to_cash_in_german_and_an_approver_releases_it(viewer: Viewer) -> None:
    page = viewer.page
    page.goto(viewer.live.viewer_url)
    page.wait_for_selector("input[name=token]")
    viewer.shot("sign-in")
    viewer.submit_token("editor")
    page.wait_for_selector(f"{DIAGRAM} > svg[data-layout=graphic][data-diagram-id='{PROCESS_HOUSE}']")

    # The process house in German: the page's words, the tree, the panel and the drawing.
    page.select_option("select[name=culture]", str(GERMAN))
    page.wait_for_selector(f"{PANEL_NAME} >> text='Prozesslandkarte Contoso Fertigung'")
    page.locator(TREE).get_by_role("link", name="Prozesslandkarte Contoso Fertigung", exact=True).wait_for()
    page.wait_for_function("() => document.querySelector('[data-testid=diagram] > svg')"
                           ".textContent.includes('Kernprozesse')")
    assert page.get_attribute("html", "lang") == "de"
    assert page.text_content("[data-testid=role]") == "Angemeldet als Bearbeiter"
    viewer.shot("process-house-german")

    open_order_to_cash_from_the_tree(viewer)
    viewer.assert_readable_on_its_start()
    viewer.shot("order-to-cash-opening")

    credit_check = viewer.find("Kreditprüfung")
    assert page.text_content("[data-testid=diagram-search-result]") == "1 von 1"
    guid = page.get_attribute(f"{DIAGRAM} rect.overlay[data-shape-id='{credit_check}']", "data-guid") or ""
    assert name_of(viewer.live, guid, GERMAN) == "Kreditprüfung"
    assert viewer.on_screen(FOUND)
    viewer.shot("found-kreditpruefung")

    # Rename the task before the credit check, in German; the English name stays.
    viewer.select_shape("Kundenauftrag erfassen")
    task = viewer.selected("guid")
    rename_selected(viewer, RENAMED)
    assert name_of(viewer.live, task, GERMAN) == RENAMED
    assert name_of(viewer.live, task) == "Enter sales order"
    page.wait_for_function("(name) => document.querySelector('[data-testid=diagram] > svg')"
                           ".textContent.includes(name)", arg="ERP")  # a label wraps between lines
    viewer.shot("task-renamed")

    # Insert a task after it and name it: the engine lays it out, the drawing keeps its shape.
    view_before = viewer.view()
    before, after, added = viewer.insert_after_selected("Aufgabe eingefügt")
    assert viewer.view() == view_before
    assert_kept_its_shape(before, after, added)
    page.wait_for_function("() => document.activeElement.name === 'name'")  # named next
    rename_selected(viewer, INSERTED)
    assert viewer.shapes() == after  # a name that fits the box leaves the drawing as it is
    viewer.shot("task-inserted")

    # Through review: the editor's steps of the workflow (docs/contract.md, "Release").
    open_order_to_cash_from_the_tree(viewer)
    for step in ("InProcessToInReview", "InReviewToReadyForQA", "ReadyForQAToReadyForRelease"):
        viewer.take_step(step)
    page.wait_for_selector(f"{STATE} >> text='bereit zur Freigabe'")
    viewer.shot("ready-for-release")

    # The approver signs in in the same tab: the edit bar is gone, the release is offered
    # beside the comparison with the released version.
    page.click("[data-action=sign-out]")
    page.wait_for_selector("input[name=token]")
    viewer.submit_token("approver")
    page.wait_for_selector(f"{DIAGRAM} > svg[data-diagram-id='{PROCESS_HOUSE}']")
    page.wait_for_selector("[data-testid=role] >> text='Angemeldet als Freigeber'")
    open_order_to_cash_from_the_tree(viewer)
    assert not page.is_visible(EDIT_BAR)
    assert page.input_value("[data-testid=diagram-search] input") == ""  # not the editor's search
    release = page.locator("[data-testid=transitions] button[data-transition=ReadyForReleaseToReleased]")
    assert release.text_content() == "Freigeben"
    page.wait_for_selector(f"{COMPARE} h4 >> text=/Änderungen seit der freigegebenen Version/")
    page.wait_for_selector(f"{COMPARE} [data-testid=compare-drawing] svg")
    marked = page.eval_on_selector_all(f"{COMPARE} rect.overlay[data-change=added]",
                                       "rects => rects.map(r => r.dataset.shapeId)")
    assert marked == [added]
    changes = page.locator(f"{COMPARE} [data-testid=change-list] li").all_text_contents()
    assert f"hinzugefügt: {INSERTED} (Aufgabe)" in changes
    viewer.shot("pending-release-compared")

    result = viewer.take_step("ReadyForReleaseToReleased", COMMENT)
    assert result.startswith("Freigeben: jetzt freigegeben, Version 3.0")
    page.wait_for_selector(f"{STATE} >> text='freigegeben'")
    latest = page.locator("[data-testid=versions] li").last
    assert latest.locator(".version-line").text_content() == "3.0 — freigegeben"
    assert latest.locator("[data-testid=release-comment]").text_content() == COMMENT
    assert page.text_content("[data-testid=transitions]") == (  # an editor may request its expiry
        "Ihrer Rolle steht jetzt kein Schritt des Freigabeprozesses offen. Nächster Schritt durch: Bearbeiter.")
    latest.scroll_into_view_if_needed()
    viewer.shot("released-with-comment")
    assert viewer.problems == []
