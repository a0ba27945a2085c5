"""`elrepo diff OLD NEW` (issue 22, item 5): exit 0 for the same model, 1 when they
differ, 2 on bad input with one line and nothing written; fixtures and BPMN files."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from repository.cli import main
from tests.conftest import FIXTURES
from tests.renderer.compare_cases import ADDED_SHAPE, REMOVED_SHAPE, RENAMED_SHAPE, newer, older

BPMN = FIXTURES / "bpmn" / "camunda-8-tutorials.expense-reimbursement.bpmn"


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path]:
    old = older()
    paths = tmp_path / "old.json", tmp_path / "new.json"
    for path, fixture in zip(paths, (old, newer(old))):
        path.write_text(json.dumps(fixture), encoding="utf-8")
    return paths


def test_differing_versions_exit_1_with_one_line_per_change(versions: tuple[Path, Path],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    assert main(["diff", str(old), str(new)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [f"+ shape {ADDED_SHAPE} (task: Record contract data)",
                         f"- shape {REMOVED_SHAPE} (task: Obtain exception approval)",
                         f"~ shape {RENAMED_SHAPE} (task: Ask the customer for the missing documents): "
                         "name[1031,1033]"]
    assert sum(line.startswith("+ flow") for line in lines) == 3
    assert sum(line.startswith("- flow") for line in lines) == 3


def test_the_same_model_exits_0_silently(versions: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, _ = versions
    assert main(["diff", str(old), str(old)]) == 0
    assert capsys.readouterr().out == ""


def test_the_drawing_and_the_json(versions: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    out = tmp_path / "diff.svg"
    assert main(["diff", str(old), str(new), "-o", str(out), "--layout", "vertical", "--json"]) == 1
    body = json.loads(capsys.readouterr().out)
    assert [s["shapeId"] for s in body["shapes"]["added"]] == [ADDED_SHAPE]
    root = etree.fromstring(out.read_bytes())
    assert root.get("data-layout") == "vertical"
    changes = {e.get("data-change") for e in root.iter() if e.get("data-change")}
    assert changes == {"added", "changed", "removed", "moved"}  # "moved" in the legend only


@pytest.mark.parametrize("content", ["{not json", "[]", '{"values": 3}'])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(versions: tuple[Path, Path], tmp_path: Path, content: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    old, _ = versions
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    out = tmp_path / "diff.svg"
    for arguments in ([str(old), str(bad)], [str(bad), str(old)], [str(old), str(bad), "-o", str(out)]):
        assert main(["diff", *arguments]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert not out.exists()


def test_missing_files_unknown_layouts_and_cultures_exit_2(versions: tuple[Path, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    assert main(["diff", str(old), str(tmp_path / "nothere.json")]) == 2
    assert main(["diff", str(old), str(new), "-o", str(tmp_path / "d.svg"), "--layout", "spiral"]) == 2
    assert main(["diff", str(old), str(new), "--culture", "english"]) == 2
    assert main(["diff", str(old), str(new), "-o", str(tmp_path / "no" / "dir" / "d.svg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 4 and "spiral" in err


def edited_bpmn(tmp_path: Path) -> Path:
    """The expense reimbursement with a task renamed and "Notify about rejection" removed
    (its incoming flow led to where its outgoing one went)."""
    tree = etree.parse(str(BPMN))
    root = tree.getroot()

    def by_id(element_id: str) -> etree._Element:
        found: list[etree._Element] = root.xpath(f"//*[@id='{element_id}']")
        return found[0]

    by_id("Activity_ReimburseExpenses").set("name", "Reimburse all expenses")
    leaving = root.xpath("//*[@sourceRef='Activity_NotifyRejection']")[0]
    root.xpath("//*[@targetRef='Activity_NotifyRejection']")[0].set("targetRef", leaving.get("targetRef"))
    gone = [by_id("Activity_NotifyRejection"), leaving,
            *root.xpath(f"//*[@bpmnElement='Activity_NotifyRejection' or @bpmnElement='{leaving.get('id')}']"),
            *root.xpath("//*[text()='Activity_NotifyRejection']")]
    for element in gone:
        element.getparent().remove(element)
    path = tmp_path / "edited.bpmn"
    tree.write(str(path))
    return path


def test_two_bpmn_files_pair_their_shapes_by_bpmn_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "diff.svg"
    assert main(["diff", str(BPMN), str(edited_bpmn(tmp_path)), "-o", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["- shape Activity_NotifyRejection (task: Notify about rejection)",
                         "~ shape Activity_ReimburseExpenses (task: Reimburse all expenses): name[127]"]
    marked = {(e.get("data-shape-id"), e.get("data-change")) for e in etree.fromstring(out.read_bytes()).iter()
              if e.get("class") in ("overlay", "overlay ghost") and e.get("data-change")}
    assert marked == {("Activity_NotifyRejection", "removed"), ("Activity_ReimburseExpenses", "changed")}
    assert main(["diff", str(BPMN), str(BPMN)]) == 0


def test_the_program_exits_with_the_status_and_help_loads_no_engine() -> None:
    probe = ("import sys\nfrom repository.cli import main\n"
             "try:\n    main(['diff', '--help'])\nexcept SystemExit:\n    pass\n"
             "heavy = {'renderer.api', 'renderer.compare', 'lxml', 'sqlalchemy'}\n"
             "print(sorted(heavy & set(sys.modules)), file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2], timeout=60, check=True)
    assert result.stderr.strip() == "[]"
    assert "exit 0 when they are the same model, 1 when they differ" in " ".join(result.stdout.split())
    same = subprocess.run([sys.executable, "-m", "repository.cli", "diff", str(BPMN), str(BPMN)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert (same.returncode, same.stdout, same.stderr) == (0, "", "")
