"""`elrepo render NEW --like PREVIOUS` (issue 22, item 1): the new version drawn from the
previous version's drawing (an SVG this engine drew, or the previous fixture drawn
first), so every shape that stayed keeps its row and order; bad input is one line and
exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from layouts.stability import Stability
from renderer.sketch_svg import layout_of_svg
from repository.cli import main

# three splits that join again, a rework loop; the new version has one more branch at
# the second split (a fresh layout moves 10 of the 21 shapes out of their rows)
FLOWS = [("start", "a"), ("a", "s1"), ("s1", "b1"), ("s1", "b2"), ("b1", "j1"), ("b2", "j1"), ("j1", "c"),
         ("c", "s2"), ("s2", "d1"), ("s2", "d2"), ("s2", "d3"), ("d1", "j2"), ("d2", "j2"), ("d3", "e"),
         ("e", "j2"), ("j2", "f"), ("f", "s3"), ("s3", "g1"), ("s3", "g2"), ("g1", "j3"), ("g2", "j3"),
         ("j3", "h"), ("h", "check"), ("check", "f"), ("check", "end")]


def fixture(flows: list[tuple[str, str]]) -> dict[str, Any]:
    ids = sorted({end for flow in flows for end in flow})
    index = {shape_id: i for i, shape_id in enumerate(ids)}
    return {"diagram": {"id": "d", "type": "mainProcess", "attributes": {"name": {"1033": "Order"}}},
            "values": [{"shapeInfo": {"index": index[shape_id], "id": shape_id,
                                      "predecessors": [index[s] for s, t in flows if t == shape_id]},
                        "element": {"id": f"e-{shape_id}", "type": "evStart" if shape_id == "start" else "task",
                                    "attributes": {"name": {"1033": f"Step {shape_id}"}}}}
                       for shape_id in ids]}


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path]:
    branched = [*FLOWS, ("s2", "new"), ("new", "j2")]
    old, new = tmp_path / "v1.json", tmp_path / "v2.json"
    old.write_text(json.dumps(fixture(FLOWS)), encoding="utf-8")
    new.write_text(json.dumps(fixture(branched)), encoding="utf-8")
    return old, new


@pytest.mark.parametrize("layout_key", ["horizontal", "vertical"])
def test_render_like_the_previous_svg_keeps_rows_and_order(versions: tuple[Path, Path], tmp_path: Path,
                                                          layout_key: str) -> None:
    old, new = versions
    old_svg, fresh_svg, kept_svg = tmp_path / "v1.svg", tmp_path / "fresh.svg", tmp_path / "v2.svg"
    assert main(["render", str(old), "--layout", layout_key, "-o", str(old_svg)]) == 0
    assert main(["render", str(new), "--layout", layout_key, "-o", str(fresh_svg)]) == 0
    assert main(["render", str(new), "--layout", layout_key, "--like", str(old_svg), "-o", str(kept_svg)]) == 0
    before = layout_of_svg(old_svg.read_bytes())
    vertical = layout_key == "vertical"
    fresh = Stability.between(before, layout_of_svg(fresh_svg.read_bytes()), vertical)
    kept = Stability.between(before, layout_of_svg(kept_svg.read_bytes()), vertical)
    assert fresh.rows_left >= 10  # what --like is for
    assert kept.shared == 21 and kept.rows_left == 0 and kept.order_kept == 1.0
    # the previous fixture, drawn first, gives the same sketch as its SVG; same bytes again
    like_fixture = tmp_path / "v2-from-fixture.svg"
    assert main(["render", str(new), "--layout", layout_key, "--like", str(old), "-o", str(like_fixture)]) == 0
    assert like_fixture.read_bytes() == kept_svg.read_bytes()


def test_render_like_refuses_what_it_cannot_use_in_one_line(versions: tuple[Path, Path], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    not_svg = tmp_path / "old.svg"
    not_svg.write_text("<html>no drawing</html>", encoding="utf-8")
    no_overlays = tmp_path / "empty.svg"
    no_overlays.write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    for arguments in (["--layout", "processMatrix", "--like", str(old)],
                      ["--layout", "horizontal", "--like", str(not_svg)],
                      ["--layout", "horizontal", "--like", str(no_overlays)],
                      ["--layout", "horizontal", "--like", str(tmp_path / "missing.svg")]):
        assert main(["render", str(new), *arguments]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
