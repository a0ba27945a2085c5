"""Where the drawing meets the page's words, the caller's role and the navigation (issue
23, items 1, 3, 4 and 5 together), in a real headless Chromium: the canvas's own labels
in German with culture 1031, the edit bar only for a role that may edit, and a shape
with a diagram of its own opened with one click on its badge, the cue shown on hover.
Every step leaves a screenshot under the test's output folder."""

from __future__ import annotations

from tests.viewer.conftest import DIAGRAM, EDIT_BAR, PANEL_NAME, Viewer
from tests.viewer.test_viewer_e2e import CREDIT_CHECK, ORDER_TO_CASH

CREDIT_CHECK_SHAPE = f"{DIAGRAM} rect.overlay[data-guid='{CREDIT_CHECK}']"
BADGE = f"{DIAGRAM} [data-testid=diagram-badge][data-guid='{CREDIT_CHECK}']"
SEARCH_INPUT = "[data-testid=diagram-search] input"
ACCENT_FILL = "rgb(31, 95, 191)"  # viewer.css --accent: the lit badge


def wait_for_names(viewer: Viewer) -> None:
    """The overlays' names (and badges) come after the drawing."""
    viewer.page.wait_for_function(f"() => document.querySelector(\"{CREDIT_CHECK_SHAPE}\")"
                                  "?.getAttribute('aria-label').includes(': ')")


def label_of(viewer: Viewer, selector: str) -> str:
    return viewer.page.get_attribute(selector, "aria-label") or ""


def bar_words(viewer: Viewer) -> list[str]:
    words: list[str] = viewer.page.evaluate(
        f"[...document.querySelectorAll('{EDIT_BAR} button, {EDIT_BAR} label span')]"
        ".map((element) => element.textContent)")
    return words


def test_the_canvas_speaks_german_in_culture_1031(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()
    viewer.open(ORDER_TO_CASH, culture=1031)
    wait_for_names(viewer)
    assert page.get_attribute(SEARCH_INPUT, "placeholder") == "Im Diagramm suchen"
    assert page.get_attribute("[data-testid=diagram-search]", "aria-label") == "Im Diagramm suchen"
    assert page.get_attribute(EDIT_BAR, "aria-label") == "Ausgewählte Form bearbeiten"
    words = bar_words(viewer)
    for german in ("Name", "Beschreibung", "Speichern", "Danach einfügen", "Löschen", "Rückgängig"):
        assert german in words
    for english in ("Save", "Insert after", "Delete", "Undo", "Description"):
        assert english not in words
    assert page.get_attribute(f"{EDIT_BAR} [data-action=undo-edit]", "title") == "Nichts rückgängig zu machen"
    options = page.eval_on_selector(f"{EDIT_BAR} select[name=insertType]",
                                    "(select) => [...select.options].map((option) => option.text)")
    assert "Aufgabe" in options
    # the overlays' names: the catalog's type and state words in German
    assert label_of(viewer, CREDIT_CHECK_SHAPE) == "Teilprozess: Kreditprüfung, freigegeben, hat ein eigenes Diagramm"
    assert label_of(viewer, f"{DIAGRAM} rect.overlay[data-type=task]").startswith("Aufgabe: ")
    page.fill(SEARCH_INPUT, "keine solche Form")
    page.press(SEARCH_INPUT, "Enter")
    page.wait_for_selector("[data-testid=diagram-search-result] >> text='nicht gefunden'")
    viewer.find("Kreditprüfung")
    assert page.text_content("[data-testid=diagram-search-result]") == "1 von 1"
    viewer.shot("canvas-in-german")

    page.select_option("select[name=culture]", "1033")  # and back: every label follows
    page.wait_for_function(f"() => document.querySelector('{SEARCH_INPUT}').placeholder === 'Find in diagram'")
    english = "Sub process: Credit check, released, has its own diagram"
    page.wait_for_function(f"(label) => document.querySelector(\"{CREDIT_CHECK_SHAPE}\")"
                           "?.getAttribute('aria-label') === label", arg=english)
    assert "Save" in bar_words(viewer) and "Speichern" not in bar_words(viewer)
    viewer.shot("canvas-in-english")
    assert viewer.problems == []


def test_the_edit_bar_is_offered_only_to_a_role_that_may_edit(viewer: Viewer) -> None:
    page = viewer.page
    for role in ("viewer", "approver"):
        viewer.sign_in(role)
        viewer.open(ORDER_TO_CASH)
        shape = viewer.find("Ship goods")
        page.click(f"{DIAGRAM} rect.overlay[data-shape-id='{shape}']")
        page.wait_for_selector(f"{PANEL_NAME} >> text='Ship goods'")
        assert page.locator(f"{DIAGRAM} rect.overlay.selected").count() == 1
        assert page.is_hidden(EDIT_BAR)
        viewer.shot(f"{role}-sees-no-edit-bar")
        page.click("[data-action=sign-out]")
    viewer.sign_in("editor")
    viewer.open(ORDER_TO_CASH)
    assert page.is_visible(EDIT_BAR)
    assert viewer.problems == []


def close_up(viewer: Viewer, selector: str, step: str) -> None:
    """A screenshot of the part of the page around `selector`, enlarged by the view."""
    box = viewer.page.locator(selector).bounding_box()
    assert box is not None
    margin = 24
    path = viewer.folder / f"{len(viewer.shots) + 1:02d}-{step}.png"
    viewer.shots.append(path)
    viewer.page.screenshot(path=str(path), clip={
        "x": box["x"] - margin, "y": box["y"] - margin,
        "width": box["width"] + 2 * margin, "height": box["height"] + 2 * margin})


def test_one_click_on_the_badge_opens_the_shapes_diagram(viewer: Viewer) -> None:
    page = viewer.page
    viewer.sign_in()  # the process house: its processes carry the badge too
    house_badge = f"{DIAGRAM} [data-testid=diagram-badge][data-guid='{ORDER_TO_CASH}']"
    page.wait_for_selector(house_badge)
    viewer.shot("process-house-badges")
    page.click(house_badge)
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    wait_for_names(viewer)
    # Only the shapes with a diagram of their own carry the badge and say so.
    badged = page.eval_on_selector_all(f"{DIAGRAM} rect.overlay.has-diagram", "(all) => all.map((r) => r.dataset.guid)")
    assert badged == [CREDIT_CHECK]
    assert page.locator(f"{DIAGRAM} [data-testid=diagram-badge]").count() == 1
    assert not label_of(viewer, f"{DIAGRAM} rect.overlay[data-type=task]").endswith("has its own diagram")
    viewer.find("Credit check")  # brings it into view

    # The cue: hovering the shape lights its badge, whose tooltip says what a click does.
    unlit = page.eval_on_selector(f"{BADGE} rect", "(rect) => getComputedStyle(rect).fill")
    page.hover(CREDIT_CHECK_SHAPE, position={"x": 10, "y": 30})
    page.wait_for_function(f"() => getComputedStyle(document.querySelector(\"{BADGE} rect\")).fill === '{ACCENT_FILL}'")
    assert unlit != ACCENT_FILL
    assert page.text_content(f"{BADGE} title") == "Open its diagram"
    assert page.eval_on_selector(BADGE, "(badge) => getComputedStyle(badge).cursor") == "pointer"
    viewer.shot("hover-lights-the-badge")
    page.click("[data-action=zoom-in]")  # closer, to see the badge
    page.click("[data-action=zoom-in]")
    page.hover(CREDIT_CHECK_SHAPE, position={"x": 10, "y": 30})
    close_up(viewer, CREDIT_CHECK_SHAPE, "badge-close-up")

    # A click on the shape selects it (panel, edit bar) and stays in this diagram...
    page.click(CREDIT_CHECK_SHAPE, position={"x": 10, "y": 30})
    page.wait_for_selector(f"{PANEL_NAME} >> text='Credit check'")
    page.wait_for_function("(name) => document.querySelector('[data-testid=edit-bar] input[name=name]').value === name",
                           arg="Credit check")
    assert page.get_attribute(f"{DIAGRAM} > svg", "data-diagram-id") == ORDER_TO_CASH
    assert page.is_visible("[data-action=open-diagram]")  # the panel's way stays
    viewer.shot("click-selects")

    # ...one click on its badge opens its diagram.
    page.click(BADGE)
    viewer.wait_for_drawing(CREDIT_CHECK, "horizontal")
    assert page.locator(f"{DIAGRAM} [data-testid=diagram-badge]").count() == 0
    viewer.shot("badge-opened-credit-check")

    # The keyboard's way: Shift+Enter on the focused shape.
    page.go_back()
    viewer.wait_for_drawing(ORDER_TO_CASH, "horizontal")
    wait_for_names(viewer)
    page.locator(CREDIT_CHECK_SHAPE).focus()
    page.keyboard.press("Shift+Enter")
    viewer.wait_for_drawing(CREDIT_CHECK, "horizontal")
    assert viewer.problems == []
