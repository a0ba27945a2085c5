"""The benchmark's crossings of laid-out BPMN against our SVG (checks/bpmn_crossings.py):
every DI crossing counted once under one cause, the SVG side as our engine draws the file's
fixture;
the record of crossings that test_bpmn_quality holds every BPMN file to."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from checks.bpmn_crossings import (
    CAUSES,
    Crossings,
    comparison_tables,
    crossing_label,
    crossing_record,
    di_crossings,
    file_labels,
    load_svgmetrics,
    svg_crossings,
)
from checks.di_quality import measure_di
from interchange import BPMN_LAYOUT_KEYS, layout_bpmn, read_bpmn
from interchange.kept import BPMN_TYPE
from repository.cli import main
from tests.interchange.conftest import CORPUS
from tests.interchange.test_bpmn_quality import RECORD

BPMN = Path(__file__).parent.parent / "fixtures" / "bpmn"
FILES = sorted(BPMN.glob("*.bpmn"))


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_each_di_crossing_has_one_cause_that_the_model_has(path: Path) -> None:
    model = read_bpmn(path.read_bytes()).model
    has = {"message": any(flow.tag == "messageFlow" for flow in model.flows),
           "boundary": any(node.attached_to for node in model.nodes),
           "sub-process": any(node.parent for node in model.nodes), "sequence": True}
    for key in BPMN_LAYOUT_KEYS:
        laid_out = layout_bpmn(path.read_bytes(), key)
        causes = di_crossings(laid_out)
        assert set(causes) <= {cause for cause in CAUSES if has[cause]}, (key, causes)
        assert sum(causes.values()) == measure_di(laid_out).crossings


def test_the_svg_side_is_our_engines_drawing_of_the_files_fixture(shared_dir: Path, tmp_path: Path) -> None:
    """What `elrepo render` draws of the file's fixture in our own symbols (a BPMN file in
    a BPMN layout is drawn in BPMN's notation, from the same geometry as its DI)."""
    svgmetrics = load_svgmetrics(shared_dir / "tools" / "svgmetrics.py")
    assert svgmetrics is not None
    path = BPMN / "nested-lanes.bpmn"
    fixture = tmp_path / "fixture.json"
    ours = read_bpmn(path.read_bytes()).fixture
    del ours["diagram"]["attributes"][BPMN_TYPE]  # else drawn in BPMN's notation
    fixture.write_text(json.dumps(ours))
    for key in ("horizontal", "verticalSwimlane"):
        assert main(["render", str(fixture), "--layout", key, "-o", str(tmp_path / "out.svg")]) == 0
        drawn = svgmetrics.metrics_from_svg((tmp_path / "out.svg").read_bytes())["edge_crossings"]
        assert svg_crossings(path.read_bytes(), key, svgmetrics) == drawn


def test_no_svgmetrics_file_means_no_comparison(tmp_path: Path) -> None:
    assert load_svgmetrics(tmp_path / "svgmetrics.py") is None


def test_the_tables_total_each_layout_and_list_files_crossing_more_than_their_svg() -> None:
    one, two = Path("a/x/one.bpmn"), Path("b/x/one.bpmn")
    results = {
        (one, "horizontal"): Crossings(Counter(message=2, sequence=1), 1),
        (one, "vertical"): Crossings(Counter(message=2, sequence=1), 1),
        (two, "horizontal"): Crossings(Counter(boundary=1), 1),
        (two, "vertical"): Crossings(Counter(), None),
    }
    assert comparison_tables(results, ["horizontal", "vertical"]) == [
        "| layout | DI crossings | with a message flow | from a boundary event | in a sub-process "
        "| process-level sequence flows | SVG crossings | files DI > SVG |",
        "|---|---|---|---|---|---|---|---|",
        "| horizontal | 4 | 2 | 1 | 0 | 1 | 2 | 1 |",
        "| vertical | 3 | 2 | 0 | 0 | 1 | 1 | 1 |",
        "",
        "| file | layouts | DI crossings | with a message flow | from a boundary event | in a sub-process "
        "| process-level sequence flows | SVG crossings |",
        "|---|---|---|---|---|---|---|---|",
        "| a/x/one | horizontal, vertical | 3 | 2 | 0 | 0 | 1 | 1 |",
    ]


def test_file_labels_are_the_shortest_tails_nobody_else_has() -> None:
    files = [Path("corpus/x/bpmn/a.bpmn"), Path("fixtures/bpmn/a.bpmn"), Path("corpus/x/bpmn/b.bpmn")]
    assert file_labels(files) == {files[0]: "x/bpmn/a", files[1]: "fixtures/bpmn/a", files[2]: "b"}


def test_the_record_names_only_files_that_are_there(shared_dir: Path) -> None:
    assert set(json.loads(RECORD.read_text(encoding="utf-8"))) <= {crossing_label(path) for path in CORPUS + FILES}


def test_the_record_holds_the_files_with_crossings_under_their_source_and_stem() -> None:
    found = {(Path("corpus/simod/bpmn/a.bpmn"), "horizontal"): Counter(sequence=2, message=1),
             (Path("corpus/simod/bpmn/a.bpmn"), "vertical"): Counter(),
             (Path("tests/fixtures/bpmn/a.bpmn"), "vertical"): Counter(boundary=1),
             (Path("tests/fixtures/bpmn/b.bpmn"), "vertical"): Counter()}
    assert crossing_record(found) == {"simod/a": {"horizontal": 3}, "fixtures/a": {"vertical": 1}}
