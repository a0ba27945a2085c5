"""A live service with the viewer (one per module) and a headless Chromium driven by
Playwright; the browser tests skip, saying why, where either is missing."""

from __future__ import annotations

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
        self.page.fill("input[name=token]", self.live.tokens[role])
        self.page.click("[data-testid=sign-in] button[type=submit]")
        self.page.wait_for_selector("[data-testid=diagram] > svg")

    def open(self, element_id: str, layout: str = "horizontal", culture: int = 1033) -> None:
        self.page.goto(f"{self.live.viewer_url}#/demo/default/elements/{element_id}"
                       f"?layout={layout}&culture={culture}")
        self.wait_for_drawing(element_id, layout)

    def wait_for_drawing(self, diagram_id: str, layout: str) -> None:
        self.page.wait_for_selector(f"[data-testid=diagram] > svg[data-layout={layout}]"
                                    f"[data-diagram-id='{diagram_id}']")


@pytest.fixture
def viewer(browser: Browser, live: LiveService, tmp_path: Path) -> Iterator[Viewer]:
    context = new_context(browser, accept_downloads=True)
    folder = tmp_path / "screenshots"
    folder.mkdir()
    yield Viewer(context.new_page(), live, folder)
    context.close()
