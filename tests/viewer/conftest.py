"""A live service with the viewer (one per module) and a headless Chromium driven by
Playwright; the browser tests skip, saying why, where either is missing."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.viewer.live import LiveService, serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

CHROMIUM = "/usr/bin/chromium"
# No network beyond the service under test, nothing fetched by the browser itself.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
VIEWPORT: ViewportSize = {"width": 1600, "height": 900}
DIAGRAM = "[data-testid=diagram]"
PANEL_NAME = "[data-testid=element-name]"
EDIT_BAR = "[data-testid=edit-bar]"
SELECTED = f"{DIAGRAM} rect.overlay.selected"
FOUND = f"{DIAGRAM} rect.overlay.found"
TRANSITIONS = "[data-testid=transitions]"
COMPARE = "[data-testid=compare]"
READABLE_LABEL_PX = 9
LABEL_FONT_SIZE = 12  # the renderer's label size in diagram units (the SVG's font-size)
#: axe-core from the npm registry, for the tests only (checks.bpmn_io installs it).
AXE_PACKAGE = "axe-core@4.14.1"
# What a failed install says when npm is missing or cannot reach the registry (no
# network, a proxy refusing, DNS): the only reasons the accessibility test skips for.
UNREACHABLE = re.compile(r"not found on PATH|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|"
                         r"ENETUNREACH|network|proxy|getaddrinfo|took longer than", re.IGNORECASE)
#: A shape's overlay rect in diagram units: x, y, width, height.
Rect = tuple[float, float, float, float]
# Playwright's waits are hang guards, not speed bounds: on a loaded machine a cold render
# of the demo's house takes longer than Playwright's default 30 s.
HANG_GUARD_MS = 180_000


def new_context(browser: Browser, **options: Any) -> BrowserContext:
    """A browser context whose waits give up only on a hang."""
    context = browser.new_context(viewport=VIEWPORT, **options)
    context.set_default_timeout(HANG_GUARD_MS)
    return context


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with serve(tmp_path_factory.mktemp("viewer") / "viewer.db") as service:
        yield service


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed (test extras)")
    executable = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if executable is None:
        pytest.skip("Chromium is not installed (Debian package `chromium`; .ci/run installs "
                    "it when run as root)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Viewer:
    """The page under test, with its console errors, a numbered screenshot per step under
    the test's own output folder, and the steps every test takes."""

    def __init__(self, page: Page, live: LiveService, folder: Path) -> None:
        self.page = page
        self.live = live
        self.folder = folder
        self.shots: list[Path] = []
        # A CSP violation or a script error shows up here; tests assert there is none.
        self.problems: list[str] = []
        page.on("console", lambda message: self.problems.append(message.text)
                if message.type == "error" else None)
        page.on("pageerror", lambda error: self.problems.append(str(error)))

    def shot(self, step: str) -> Path:
        path = self.folder / f"{len(self.shots) + 1:02d}-{step}.png"
        self.page.screenshot(path=str(path))
        self.shots.append(path)
        return path

    def sign_in(self, role: str = "editor") -> None:
        self.page.goto(self.live.viewer_url)
        self.submit_token(role)

    def submit_token(self, role: str) -> None:
        """Signs in on the form shown now with the demo token of `role`."""
        self.page.fill("input[name=token]", self.live.tokens[role])
        self.page.click("[data-testid=sign-in] button[type=submit]")
        self.page.wait_for_selector(f"{DIAGRAM} > svg")

    def take_step(self, transition: str, comment: str = "") -> str:
        """Runs a workflow step from the panel's buttons, confirmed in its dialog (with
        `comment` for a release), and waits for the panel to be redrawn without it: what
        the panel says of the step."""
        self.page.click(f"{TRANSITIONS} button[data-transition={transition}]")
        dialog = self.page.locator("[data-testid=confirm]")
        if comment:
            dialog.locator("textarea[name=comment]").fill(comment)
        dialog.locator("[data-testid=confirm-run]").click()
        self.page.wait_for_selector(f"{TRANSITIONS} button[data-transition={transition}]", state="detached")
        result = self.page.locator("[data-testid=release-result]")
        result.filter(has_text=":").wait_for()
        return result.text_content() or ""

    def open(self, element_id: str, layout: str = "horizontal", culture: int = 1033) -> None:
        self.page.goto(f"{self.live.viewer_url}#/demo/default/elements/{element_id}"
                       f"?layout={layout}&culture={culture}")
        self.wait_for_drawing(element_id, layout)

    def wait_for_drawing(self, diagram_id: str, layout: str) -> None:
        self.page.wait_for_selector(f"{DIAGRAM} > svg[data-layout={layout}][data-diagram-id='{diagram_id}']")

    def in_module(self, module: str, expression: str, argument: Any = None) -> Any:
        """`expression` evaluated in the page over `module`, the page's own instance of
        /ui/<module> (a module's names are not globals), with `argument` bound."""
        return self.page.evaluate(
            f"async (argument) => {{ const module = await import('/ui/{module}'); "
            f"return {expression}; }}", argument)

    def view(self) -> dict[str, float]:
        """The drawing's view: scale `s` and translation `tx`, `ty` in pixels."""
        answer: dict[str, float] = self.in_module("view.js", "module.viewNow()")
        return answer

    def shapes(self) -> dict[str, Rect]:
        """Shape id -> the overlay's rect in diagram units."""
        answer: dict[str, list[float]] = self.page.evaluate(
            f"Object.fromEntries([...document.querySelectorAll('{DIAGRAM} rect.overlay')].map((r) => "
            "[r.dataset.shapeId, ['x', 'y', 'width', 'height'].map((a) => Number(r.getAttribute(a)))]))")
        return {shape: (x, y, w, h) for shape, (x, y, w, h) in answer.items()}

    def connectors(self) -> list[list[str]]:
        """The drawn flows as [source shape id, target shape id]."""
        answer: list[list[str]] = self.page.evaluate(
            f"[...document.querySelectorAll('{DIAGRAM} path.connector')].map((c) => "
            "[c.dataset.sourceShapeId, c.dataset.targetShapeId])")
        return answer

    def on_screen(self, selector: str) -> bool:
        """Whether the element's box lies inside the diagram pane's box."""
        pane = self.page.locator(DIAGRAM).bounding_box()
        box = self.page.locator(selector).first.bounding_box()
        assert pane is not None and box is not None
        return (box["x"] >= pane["x"] and box["y"] >= pane["y"]
                and box["x"] + box["width"] <= pane["x"] + pane["width"]
                and box["y"] + box["height"] <= pane["y"] + pane["height"])

    def find(self, text: str) -> str:
        """Searches the drawing; the shape id of the highlighted hit."""
        self.page.fill("[data-testid=diagram-search] input", text)
        self.page.press("[data-testid=diagram-search] input", "Enter")
        return self.page.locator(FOUND).get_attribute("data-shape-id") or ""

    def select_shape(self, name: str) -> None:
        """Finds the shape by its name, clicks it and waits for the edit bar to hold it."""
        shape_id = self.find(name)
        self.page.click(f"{DIAGRAM} rect.overlay[data-shape-id='{shape_id}']")
        self.page.wait_for_function(
            "(name) => document.querySelector('[data-testid=edit-bar] input[name=name]').value === name",
            arg=name)

    def selected(self, data: str) -> str:
        """A data attribute (`shape-id`, `guid`) of the selected shape's overlay."""
        return self.page.get_attribute(SELECTED, f"data-{data}") or ""

    def edit_message(self, text: str) -> None:
        """Waits for the edit bar to say `text` (a regular expression)."""
        self.page.wait_for_selector(f"[data-testid=edit-message] >> text=/{text}/")

    def edit(self, action: str, said: str) -> None:
        """Clicks the edit bar's button `action` (`undo-edit`, `delete-shape`) and waits for
        the bar to say `said`."""
        self.page.click(f"{EDIT_BAR} [data-action={action}]")
        self.edit_message(said)

    def assert_readable_on_its_start(self) -> float:
        """The drawing opened at a readable scale (labels of at least 9 px) but no larger
        than needed, its start event in view, the zoom figure saying the scale and the
        overview showing the view: the opening scale."""
        scale = self.view()["s"]
        assert scale * LABEL_FONT_SIZE >= READABLE_LABEL_PX
        assert scale < 1  # yet as much of the flow as is readable
        assert self.on_screen(f"{DIAGRAM} rect.overlay[data-type=evStart]")
        assert self.page.text_content("[data-testid=zoom-figure]") == f"{round(scale * 100)} %"
        assert self.page.is_visible("[data-testid=overview] .viewport")
        return scale

    def insert_after_selected(self, said: str) -> tuple[dict[str, Rect], dict[str, Rect], str]:
        """Inserts the edit bar's type after the selected shape and waits for the bar to
        say `said`; checks that the new shape sits on the selected one's outgoing flow
        (selected → new → its former successor). The shapes before and after, and the new
        shape's id."""
        before = self.shapes()
        selected = self.selected("shape-id")
        self.page.click(f"{EDIT_BAR} [data-action=insert-shape]")
        self.edit_message(said)
        self.page.wait_for_function(
            f"() => document.querySelectorAll('{DIAGRAM} rect.overlay').length === {len(before) + 1}")
        after = self.shapes()
        (added,) = set(after) - set(before)
        flows = self.connectors()
        assert [selected, added] in flows
        assert not any(source == selected and target != added for source, target in flows)
        return before, after, added


def assert_kept_its_shape(before: dict[str, Rect], after: dict[str, Rect], added: str) -> None:
    """The drawing keeps its shape over an insertion: the shapes before the new one stay
    where they were, and nine in ten shapes keep their rows (a rework loop's shape after
    it may move a row band)."""
    new_x = after[added][0]
    assert {shape: after[shape] for shape, rect in before.items() if rect[0] < new_x} == {
        shape: rect for shape, rect in before.items() if rect[0] < new_x}
    same_row = sum(after[shape][1] == rect[1] for shape, rect in before.items())
    assert same_row >= 0.9 * len(before)


@pytest.fixture
def viewer(browser: Browser, live: LiveService, tmp_path: Path) -> Iterator[Viewer]:
    context = new_context(browser, accept_downloads=True)
    folder = tmp_path / "screenshots"
    folder.mkdir()
    yield Viewer(context.new_page(), live, folder)
    context.close()


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core's script, installed with npm on first use into the folder of the tests'
    npm packages (ELREPO_NODE_MODULES, else ~/.cache/elrepo/npm; never shipped). The
    test skips only when npm is missing or cannot reach the registry, and says which;
    any other failed install fails it."""
    from checks.bpmn_io import NodeUnavailable, installed_package

    try:
        folder = installed_package(AXE_PACKAGE)
    except NodeUnavailable as reason:
        if UNREACHABLE.search(str(reason)):
            pytest.skip(f"axe-core cannot be installed: {reason}")
        raise
    return (folder / "node_modules" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(viewer: Viewer, axe_source: str) -> list[str]:
    """axe-core's violations on the page as it is now, one line each. The script is run
    through the browser's debugging protocol, which the page's CSP does not govern."""
    page = viewer.page
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(f"() => {{ {axe_source}\n }}")
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations"
        ".map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }))")
    return [f"{v['id']} ({v['impact']}): {', '.join(v['nodes'][:5])}" for v in found]
