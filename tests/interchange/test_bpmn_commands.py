"""`elrepo layout` and `elrepo render` on BPMN files: output written only on success,
one-line errors with exit 2 for bad input."""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from repository.cli import main
from tests.conftest import FIXTURES

MODEL = FIXTURES / "bpmn" / "lane.cross-lane-sequence-flow.bpmn"
BPMNDI = "http://www.omg.org/spec/BPMN/20100524/DI"


def test_layout_writes_the_model_with_diagram_interchange(tmp_path: Path) -> None:
    out = tmp_path / "out.bpmn"
    assert main(["layout", str(MODEL), "-o", str(out), "--layout", "verticalSwimlane"]) == 0
    tree = etree.fromstring(out.read_bytes())
    assert tree.findall(f".//{{{BPMNDI}}}BPMNShape") and tree.findall(f".//{{{BPMNDI}}}BPMNEdge")


def test_render_draws_a_bpmn_file(tmp_path: Path) -> None:
    out = tmp_path / "out.svg"
    assert main(["render", str(MODEL), "--layout", "horizontalSwimlane", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<svg")


@pytest.mark.parametrize("content, message", [
    (b"<x/>", "not a BPMN 2.0 file"),
    (b"not xml", str(Path("bad.bpmn"))),
])
def test_bad_bpmn_is_one_line_and_writes_nothing(tmp_path: Path, content: bytes, message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.bpmn"
    bad.write_bytes(content)
    out = tmp_path / "out.bpmn"
    assert main(["layout", str(bad), "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error
    assert not out.exists()


def test_an_unknown_bpmn_layout_key_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layout", str(MODEL), "-o", str(tmp_path / "out.bpmn"), "--layout", "graphic"]) == 2
    assert "unknown BPMN layout 'graphic'" in capsys.readouterr().err
