"""Quality of `elrepo layout` output read back from its DI alone, as any BPMN tool sees it."""
from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bpmn_io import run_node
from benchmarks.bpmn_quality import measure_di
from interchange import BPMN_LAYOUT_KEYS, layout_bpmn

BPMN = Path(__file__).parent.parent / "fixtures" / "bpmn"
FILES = sorted(BPMN.glob("*.bpmn"))
CASES = [pytest.param(path, key, id=f"{path.stem}-{key}") for path in FILES for key in BPMN_LAYOUT_KEYS]


@pytest.mark.parametrize(("path", "key"), CASES)
def test_di_has_no_overlap_no_flow_through_a_shape_and_every_node_in_its_lane(path: Path, key: str) -> None:
    quality = measure_di(layout_bpmn(path.read_bytes(), key))
    assert (quality.overlaps, quality.sequence_flows_through_shapes, quality.message_flows_through_shapes,
            quality.lane_violations) == (0, 0, 0, 0)
    assert quality.nodes_drawn == quality.nodes_total > 0
    assert (quality.pools_drawn, quality.lanes_drawn, quality.message_flows_drawn) == (
        quality.pools_total, quality.lanes_total, quality.message_flows_total)


def test_bpmn_moddle_warns_about_nothing_the_input_did_not_have(tmp_path: Path, bpmn_moddle: Path) -> None:
    """bpmn-moddle warns about an unknown element of the input (kept on purpose), nothing else."""
    written = []
    expected: dict[str, list[str]] = {}
    for path, answer in zip(FILES, run_node(bpmn_moddle, FILES, auto_layout=False), strict=True):
        for key in BPMN_LAYOUT_KEYS:
            expected[f"{path.stem}.{key}.bpmn"] = _first_lines(answer["warnings"])
    for path in FILES:
        for key in BPMN_LAYOUT_KEYS:
            target = tmp_path / f"{path.stem}.{key}.bpmn"
            target.write_bytes(layout_bpmn(path.read_bytes(), key))
            written.append(target)
    answers = run_node(bpmn_moddle, written, auto_layout=False)
    assert {Path(answer["file"]).name: _first_lines(answer["warnings"]) for answer in answers} == expected


def _first_lines(warnings: list[str]) -> list[str]:
    """What a warning says, without where (the line numbers move when the DI is replaced)."""
    return [warning.splitlines()[0] for warning in warnings]
