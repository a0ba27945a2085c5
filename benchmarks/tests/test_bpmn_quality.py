"""The BPMN quality benchmark (benchmarks/bpmn_quality.py) records the crossings it measured:
the ceilings tests/interchange/test_bpmn_quality.py holds every file to."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bpmn_quality
from checks.di_quality import measure_di
from interchange import BPMN_LAYOUT_KEYS, layout_bpmn

BPMN = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "bpmn"


def test_the_benchmark_records_the_crossings_it_measured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "record.json"
    assert bpmn_quality.main([str(BPMN / "nested-lanes.bpmn"), "--work", str(tmp_path / "work"),
                              "--node-modules", str(tmp_path), "--svgmetrics", str(tmp_path / "none.py"),
                              "--record-crossings", str(record)]) == 0
    expected = {key: measure_di(layout_bpmn((BPMN / "nested-lanes.bpmn").read_bytes(), key)).crossings
                for key in BPMN_LAYOUT_KEYS}
    counts = {key: count for key, count in expected.items() if count}  # none since issue 19's layout
    assert json.loads(record.read_text(encoding="utf-8")) == ({"fixtures/nested-lanes": counts} if counts else {})
    assert "layout CPU seconds: horizontal" in capsys.readouterr().out
