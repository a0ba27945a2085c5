"""Crossings of laid-out BPMN against our SVG of the same model (docs/interchange.md,
"Crossings against our SVG"), for ``benchmarks.bpmn_quality`` and the tests.

On the BPMN side, the proper crossings between the sequence and message flows of the DI
that ``elrepo layout`` writes, in every plane (``measure_di``'s count, the same as
svgmetrics's ``compute_metrics`` on those routes), each put down to the first cause
that applies:

- ``message``: a message flow is one of the two (the SVG draws no message flow);
- ``boundary``: a sequence flow leaving a boundary event (its route is joined on after
  the event moved onto its host's border, ``interchange.positions``);
- ``sub-process``: a flow inside an expanded sub-process (the SVG draws it as one box);
- ``sequence``: two sequence flows of the process level, edges the SVG draws too.

On the SVG side, our engine's drawing of the file's fixture in our own symbols (what
``elrepo render MODEL.bpmn --layout KEY`` drew before it drew BPMN's notation from the
DI's own geometry), measured by the checker's
``svgmetrics.py`` (``../shared/tools``), which also counts the host → boundary event
connectors the SVG draws.

``crossing_record``: each file's DI crossings per layout, the ceilings that
``tests/interchange/test_bpmn_crossings.py`` holds every file to.
"""
from __future__ import annotations

import importlib.util
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from interchange import BpmnModel, bpmn_to_fixture
from interchange.di_metrics import MEASURED_FLOWS, crossing_pairs, read_planes
from interchange.model import BpmnFlow
from interchange.parsing import parse_bpmn_xml
from interchange.reader import read_model
from renderer.api import RenderInputError, render
from renderer.culture import DEFAULT_CULTURE

CAUSES = ("message", "boundary", "sub-process", "sequence")
DEFAULT_SVGMETRICS = Path(__file__).resolve().parents[2] / "shared" / "tools" / "svgmetrics.py"


@dataclass(frozen=True, slots=True)
class Crossings:
    """One file in one layout: the DI's crossings by cause, and the SVG's (None: not rendered)."""

    di: Counter[str]
    svg: int | None

    @property
    def di_total(self) -> int:
        return sum(self.di.values())


def load_svgmetrics(path: Path) -> ModuleType | None:
    """The checker's metrics module, loaded from its file; None when there is none."""
    spec = importlib.util.spec_from_file_location("svgmetrics", path) if path.is_file() else None
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def di_crossings(laid_out: bytes) -> Counter[str]:
    """The crossings between flows of a BPMN file's DI, counted by cause (``CAUSES``)."""
    tree = parse_bpmn_xml(laid_out)
    model = read_model(tree)
    causes: Counter[str] = Counter()
    for plane in read_planes(tree):
        flows = [flow for flow in model.flows if flow.tag in MEASURED_FLOWS and plane.edges.get(flow.id)]
        for first, second in crossing_pairs([plane.edges[flow.id] for flow in flows]):
            causes[_cause(model, flows[first], flows[second])] += 1
    return causes


def _cause(model: BpmnModel, *flows: BpmnFlow) -> str:
    if any(flow.tag == "messageFlow" for flow in flows):
        return "message"
    sources = [model.node(flow.source) for flow in flows]
    if any(source is not None and source.attached_to for source in sources):
        return "boundary"
    if any(source is not None and source.parent for source in sources):
        return "sub-process"
    return "sequence"


def svg_crossings(model_xml: bytes, layout_key: str, svgmetrics: ModuleType) -> int | None:
    """The crossings of our engine's SVG of the BPMN file's fixture, in our own symbols
    (``renderer.api.render``); None when the engine refuses to draw it."""
    try:
        svg = render(bpmn_to_fixture(model_xml), layout_key, DEFAULT_CULTURE)
    except RenderInputError:
        return None
    return int(svgmetrics.metrics_from_svg(svg)["edge_crossings"])


def comparison_tables(results: Mapping[tuple[Path, str], Crossings], layout_keys: Sequence[str]) -> list[str]:
    """Totals per layout, then each file whose DI crosses more than its SVG (layouts with the
    same figures on one row), as Markdown."""
    lines = ["| layout | DI crossings | with a message flow | from a boundary event | in a sub-process "
             "| process-level sequence flows | SVG crossings | files DI > SVG |", "|---" * 8 + "|"]
    for key in layout_keys:
        mine = [crossings for (_, layout), crossings in results.items() if layout == key]
        totals = sum((crossings.di for crossings in mine), Counter[str]())
        lines.append("| " + " | ".join(map(str, [
            key, sum(totals.values()), *(totals[cause] for cause in CAUSES),
            sum(crossings.svg or 0 for crossings in mine),
            sum(crossings.svg is not None and crossings.di_total > crossings.svg for crossings in mine)])) + " |")
    lines += ["", "| file | layouts | DI crossings | with a message flow | from a boundary event | in a sub-process "
              "| process-level sequence flows | SVG crossings |", "|---" * 8 + "|"]
    labels = file_labels(sorted({path for path, _ in results}))
    for path, label in labels.items():
        rows: dict[tuple[int, ...], list[str]] = {}
        for key in layout_keys:
            crossings = results.get((path, key))
            if crossings is not None and crossings.svg is not None and crossings.di_total > crossings.svg:
                figures = (crossings.di_total, *(crossings.di[cause] for cause in CAUSES), crossings.svg)
                rows.setdefault(figures, []).append(key)
        lines += ["| " + " | ".join([label, ", ".join(keys), *map(str, figures)]) + " |"
                  for figures, keys in rows.items()]
    return lines


def crossing_label(path: Path) -> str:
    """A BPMN file's name in the record of crossings: the folder above its ``bpmn`` folder
    (the corpus's source, or ``fixtures``) and its stem."""
    return f"{path.parent.parent.name}/{path.stem}"


def crossing_record(found: Mapping[tuple[Path, str], Counter[str]]) -> dict[str, dict[str, int]]:
    """Each file's DI crossings per layout key, for the files that have some."""
    record: dict[str, dict[str, int]] = {}
    for (path, key), causes in found.items():
        if sum(causes.values()):
            record.setdefault(crossing_label(path), {})[key] = sum(causes.values())
    return record


def file_labels(files: Sequence[Path]) -> dict[Path, str]:
    """Each file's shortest trailing path (without ``.bpmn``) that no other file shares."""
    def tail(path: Path, depth: int) -> str:
        return "/".join(path.with_suffix("").parts[-depth:])

    return {path: next((tail(path, depth) for depth in range(1, len(path.parts) + 1)
                        if sum(tail(other, depth) == tail(path, depth) for other in files) == 1), str(path))
            for path in files}
