"""The tool-export trial on two files of our own: one drawable (with a warning), one with
nothing to draw; no MIWG file is needed."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.tool_exports import main, table, try_folder
from tests.conftest import FIXTURES

ROBUST = FIXTURES / "bpmn" / "robust"
# every file goes through three `elrepo` processes: 6 to 10 s a test, past the fast lane's share
pytestmark = pytest.mark.slow


def test_each_file_goes_through_render_layout_and_import_as_a_user_runs_them(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    for tool, name in (("Tool A 1.0", "encoding.utf16-declared-utf8.bpmn"), ("Tool B 2.0", "no-process.bpmn")):
        (tools / tool).mkdir(parents=True)
        shutil.copy(ROBUST / name, tools / tool / name)
    out = tmp_path / "out"
    out.mkdir()
    drawable, empty = try_folder(tools, "horizontal", out)
    assert (drawable.tool, empty.tool) == ("Tool A 1.0", "Tool B 2.0")
    assert drawable.passed and not drawable.rightly_refused
    assert {command: outcome.warnings for command, outcome in drawable.outcomes.items()} == {
        "render": 1, "layout": 1, "import": 1}
    assert (out / "Tool A 1.0-encoding.utf16-declared-utf8.svg").read_text(encoding="utf-8").startswith("<svg")
    assert not empty.passed and empty.rightly_refused
    assert "holds no process and no collaboration" in empty.outcomes["import"].refusal
    rows = table([drawable, empty], {drawable.path: ["unsupported document encoding <utf-16>"]}).splitlines()
    assert rows[2].startswith("| encoding.utf16-declared-utf8.bpmn | Tool A 1.0 | 0 | 0 | 0 | 1 |  "
                              "| reads, 1 warning |")
    assert rows[3].startswith("| no-process.bpmn | Tool B 2.0 | 2 | 2 | 2 | 0 | the BPMN file holds no process and no "
                              "collaboration | - |")
    assert rows[-1].startswith("1 of 2 files (2 tools) exit 0 in all three commands, 1 refused as nothing to draw;")


def test_the_exit_status_says_whether_a_drawable_file_failed(tmp_path: Path) -> None:
    (tmp_path / "Tool").mkdir()
    shutil.copy(ROBUST / "no-process.bpmn", tmp_path / "Tool" / "a.bpmn")
    assert main([str(tmp_path), "--keep", str(tmp_path / "out")]) == 0  # refused rightly
    # drawn, but over the API's limit of 100,000 characters an attribute value: the import refuses it
    long_name = (ROBUST / "lanes-without-pool.bpmn").read_bytes().replace(b"Accept parcel", b"x" * 100_001)
    (tmp_path / "Tool" / "b.bpmn").write_bytes(long_name)
    assert main([str(tmp_path), "--keep", str(tmp_path / "out")]) == 1
