"""Issue 11's "done when", file by file: every BPMN file of ../shared/corpus (and of
tests/fixtures/bpmn) goes through `elrepo layout` in each BPMN layout key, once, and the
output, read back from its DI alone as any BPMN tool sees it (``measure_di``), has no
overlap, no sequence or message flow through a shape, of no length or off its ends' borders,
no node outside its lane, every node, pool, lane and message flow drawn, and no more
crossings than tests/interchange/bpmn_crossings.json records (``benchmarks.bpmn_quality
--record-crossings`` writes it); it holds the model of the input (so `elrepo import` of it
is the import of the input, test_repository_roundtrip's); bpmn-moddle reads it with no
warning the input file did not give too."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from lxml import etree

from benchmarks.bpmn_crossings import crossing_label
from benchmarks.bpmn_quality import DiQuality, measure_di
from interchange import BPMN_LAYOUT_KEYS, BpmnModel, layout_bpmn, read_bpmn
from interchange.parsing import BPMNDI_NS, DI_NS
from tests.conftest import attribute
from tests.interchange.conftest import CORPUS, FIXTURE_FILES, ReadWithModdle

#: the DI crossings of each file that has some, per layout key: the most a file may have;
#: a file not named has none
RECORD = Path(__file__).with_name("bpmn_crossings.json")
NO_CORPUS = "../shared/corpus is not beside the project (it is in CI and on developer machines): only the fixtures"
CASES = [pytest.param(path, id=crossing_label(path)) for path in CORPUS + FIXTURE_FILES]
if not CORPUS:
    CASES.append(pytest.param(None, id="corpus", marks=pytest.mark.skip(reason=NO_CORPUS)))
#: what must be 0 in every laid-out file
NONE_OF = ("overlaps", "sequence_flows_through_shapes", "message_flows_through_shapes", "lane_violations",
           "zero_length_flows", "flows_off_their_ends")
#: (drawn, total) counts that must be equal
ALL_OF = (("nodes_drawn", "nodes_total"), ("pools_drawn", "pools_total"), ("lanes_drawn", "lanes_total"),
          ("message_flows_drawn", "message_flows_total"))


@pytest.mark.parametrize("path", CASES)
def test_every_bpmn_file_lays_out_clean_in_every_key(path: Path, tmp_path: Path, subtests: pytest.Subtests,
                                                     read_with_moddle: ReadWithModdle) -> None:
    data = path.read_bytes()
    model = model_of(data)
    ceilings = json.loads(RECORD.read_text(encoding="utf-8")).get(crossing_label(path), {})
    faults: dict[str, dict[str, str]] = {}
    written: list[Path] = []
    for key in BPMN_LAYOUT_KEYS:
        laid_out = layout_bpmn(data, key)
        written.append(tmp_path / f"{path.stem}.{key}.bpmn")
        written[-1].write_bytes(laid_out)
        found = quality_faults(measure_di(laid_out), ceilings.get(key, 0))
        if model_of(laid_out) != model:
            found["model"] = "not the input's"
        if found:
            faults[key] = found
    with subtests.test("bpmn-moddle"):
        original, *answers = read_with_moddle([path, *written])
        given = Counter(first_lines(original["warnings"]))
        added = {Path(answer["file"]).name: sorted((Counter(first_lines(answer["warnings"])) - given).elements())
                 for answer in answers}
        assert {name: warnings for name, warnings in added.items() if warnings} == {}
    assert faults == {}


def quality_faults(quality: DiQuality, most_crossings: int) -> dict[str, str]:
    """What is wrong with one laid-out file, by the name of its count."""
    faults = {name: str(getattr(quality, name)) for name in NONE_OF if getattr(quality, name)}
    faults |= {drawn: f"{getattr(quality, drawn)} of {getattr(quality, total)}" for drawn, total in ALL_OF
               if getattr(quality, drawn) != getattr(quality, total)}
    if quality.crossings > most_crossings:
        faults["crossings"] = f"{quality.crossings}, recorded {most_crossings}"
    return faults


def model_of(data: bytes) -> BpmnModel:
    """The file's model but its groups, whose members are read from the DI."""
    return replace(read_bpmn(data).model, groups=())


def first_lines(warnings: list[str]) -> list[str]:
    """What a warning says, without where (the line numbers move when the DI is replaced)."""
    return [warning.splitlines()[0] for warning in warnings]


def test_faults_name_the_counts_that_are_off() -> None:
    quality = DiQuality(zero_length_flows=1, crossings=3, nodes_drawn=4, nodes_total=5, pools_drawn=2, pools_total=2)
    assert quality_faults(quality, 3) == {"zero_length_flows": "1", "nodes_drawn": "4 of 5"}
    assert quality_faults(quality, 2) == {"zero_length_flows": "1", "nodes_drawn": "4 of 5",
                                          "crossings": "3, recorded 2"}


def test_a_flow_drawn_as_a_dot_or_away_from_its_ends_is_counted() -> None:
    path = next(path for path in FIXTURE_FILES if path.stem == "collaboration.message-flows")
    laid_out = layout_bpmn(path.read_bytes(), "horizontal")
    assert (measure_di(laid_out).zero_length_flows, measure_di(laid_out).flows_off_their_ends) == (0, 0)
    root = etree.fromstring(laid_out)
    model = read_bpmn(laid_out).model
    message = next(flow.id for flow in model.flows if flow.tag == "messageFlow")
    sequence = next(flow.id for flow in model.flows if flow.tag == "sequenceFlow")
    edges = {edge.get("bpmnElement"): edge.findall(f"{{{DI_NS}}}waypoint")
             for edge in root.iter(f"{{{BPMNDI_NS}}}BPMNEdge")}
    for point in edges[message][1:]:  # every waypoint where the first is
        point.set("x", attribute(edges[message][0], "x"))
        point.set("y", attribute(edges[message][0], "y"))
    edges[sequence][0].set("y", str(float(attribute(edges[sequence][0], "y")) - 30))  # above its source
    quality = measure_di(etree.tostring(root))
    assert (quality.zero_length_flows, quality.flows_off_their_ends) == (1, 2)  # the dot is off its target
