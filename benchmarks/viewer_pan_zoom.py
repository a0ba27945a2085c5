"""How long one pan or zoom step of the viewer takes on a big diagram, in headless Chromium.

    python -m benchmarks.viewer_pan_zoom [--fixture PATH] [--steps 40]

(as a module: run as a file, `benchmarks/tests` would hide the project's `tests`).

Serves a fresh demo (tests/viewer/live.py), adds the corpus's largest diagram (BPIC15_1,
540 shapes) through the REST API as the browser tests do, opens it in the viewer and
sends real input: arrow keys (pan), + and - (zoom) and the wheel (zoom about the
pointer), at the opening scale and fitted. A step is timed from the input event's time
stamp to the start of the second animation frame after it: the first frame applies the
view and paints, the second begins once that frame went out (raster included, which
holds back the next frame). Prints the median, 90th percentile and worst step per kind,
with the machine's load; figures are written up in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from tests.viewer.live import LiveService, serve

DEFAULT_FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "simod" / "fixtures" / "BPIC15_1.json"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
DIAGRAM = "[data-testid=diagram]"

# Installed in the page: every keydown or wheel on the diagram records its time to the
# start of the second frame after it.
HARNESS = """() => {
  window.steps = [];
  const box = document.querySelector('[data-testid=diagram]');
  const time = (event) => {
    const start = event.timeStamp;
    requestAnimationFrame(() => requestAnimationFrame((now) => window.steps.push(now - start)));
  };
  box.addEventListener('keydown', time, { capture: true });
  box.addEventListener('wheel', time, { capture: true, passive: true });
}"""


def post(live: LiveService, path: str, body: Any) -> Any:
    request = urllib.request.Request(
        f"{live.base_url}/demo/default/_api/{path}", data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {live.tokens['editor']}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)


def add_diagram(live: LiveService, fixture: dict[str, Any]) -> str:
    created = post(live, "rest/facets/processes/views/detail/elements/",
                   {"count": 1, "elements": [{"type": "mainProcess", "attributes": fixture["diagram"]["attributes"]}]})
    diagram_id: str = created["elements"][0]["id"]
    post(live, f"rest/facets/processes/views/diagram/elements/{diagram_id}/content", {"values": fixture["values"]})
    return diagram_id


def timed(page: Page, keys: list[str] | None = None, wheel: float = 0.0, steps: int = 40) -> list[float]:
    """Milliseconds per step for `steps` presses of `keys` (in turn) or wheel turns."""
    page.evaluate("() => { window.steps = []; }")
    box = page.locator(DIAGRAM).bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for i in range(steps):
        if keys:
            page.keyboard.press(keys[i % len(keys)])
        else:
            page.mouse.wheel(0, wheel if i % 2 == 0 else -wheel)
        page.wait_for_function(f"() => window.steps.length > {i}")
    found: list[float] = page.evaluate("() => window.steps")
    return found


def summary(name: str, values: list[float]) -> str:
    ninetieth = statistics.quantiles(values, n=10)[-1]
    return (f"{name:<28} median {statistics.median(values):6.1f} ms   90 % {ninetieth:6.1f} ms"
            f"   worst {max(values):6.1f} ms   ({len(values)} steps)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    if not args.fixture.is_file():
        parser.error(f"no fixture at {args.fixture} (the corpus lives in ../shared/corpus)")
    executable = shutil.which("chromium")
    if executable is None:
        parser.error("Chromium is not installed (Debian package `chromium`)")
    fixture = json.loads(args.fixture.read_text(encoding="utf-8"))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    with tempfile.TemporaryDirectory() as folder, serve(Path(folder) / "bench.db") as live, \
            sync_playwright() as playwright:
        diagram_id = add_diagram(live, fixture)
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1600, "height": 900})
        page.set_default_timeout(180_000)
        page.goto(live.viewer_url)
        page.fill("input[name=token]", live.tokens["editor"])
        page.click("[data-testid=sign-in] button[type=submit]")
        page.wait_for_selector(f"{DIAGRAM} > svg")
        page.goto(f"{live.viewer_url}#/demo/default/elements/{diagram_id}?layout=horizontal&culture=1033")
        page.wait_for_selector(f"{DIAGRAM} > svg[data-diagram-id='{diagram_id}']")
        time.sleep(1)  # let the first paint and the names settle
        page.evaluate(HARNESS)
        page.focus(DIAGRAM)
        shapes = page.locator(f"{DIAGRAM} rect.overlay").count()
        print(f"BPIC15_1: {shapes} shapes; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
              f"{time.strftime('%Y-%m-%d %H:%M')}")
        results = {
            "pan, readable (arrows)": timed(page, ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"],
                                            steps=args.steps),
            "zoom, readable (+ and -)": timed(page, ["+", "-"], steps=args.steps),
            "wheel zoom, readable": timed(page, wheel=120, steps=args.steps),
        }
        page.keyboard.press("0")
        time.sleep(0.5)
        results |= {
            "pan, fitted (arrows)": timed(page, ["ArrowRight", "ArrowLeft"], steps=args.steps),
            "zoom, fitted (+ and -)": timed(page, ["+", "-"], steps=args.steps),
        }
        for name, values in results.items():
            print(summary(name, values))
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
