"""``elrepo layout`` against the authors' own layout: every BPMN file given (files or folders,
searched for ``*.bpmn``) whose diagram interchange places at least one flow node is laid
out by us, and both DIs are measured alike (``interchange.di_metrics``, where every
figure is defined). Run by hand; the table goes to docs/interchange.md, "Layout against
the authors' DI".

    python -m benchmarks.bpmn_vs_authors ../shared/corpus [--layout KEY] [--json FILE]

Per file (layout ``--layout``, horizontal unless told): flow labels on a shape, on a
label or on a flow (ours / the authors'), bends per sequence flow and per message flow,
the longest of our message flows against the author's same flow (the largest ratio),
main-path flows off the line, crossings, area (ours / the authors'), annotations whose
text overflows their box. Then the totals, for every layout key.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks.bpmn_quality import bpmn_files
from checks.bpmn_crossings import file_labels
from interchange import BPMN_LAYOUT_KEYS, layout_bpmn
from interchange.di_metrics import DiFigures, di_figures, has_layout, plus
from renderer.text import FontMetrics, load_font


@dataclass(frozen=True, slots=True)
class Compared:
    """One file: the authors' figures and ours."""

    authors: DiFigures
    ours: DiFigures

    @property
    def message_ratio(self) -> float:
        """Our longest message flow against the author's same flow: the largest ratio (0: none)."""
        return max((length / self.authors.message_lengths[key] for key, length in self.ours.message_lengths.items()
                    if self.authors.message_lengths.get(key)), default=0.0)


def compare(data: bytes, layout_key: str, font: FontMetrics) -> Compared:
    return Compared(di_figures(data, font), di_figures(layout_bpmn(data, layout_key, font=font), font))


def per_flow(bends: int, flows: int) -> str:
    return f"{bends / flows:.2f}" if flows else "-"


HEADER = ("| file | labels on shapes | on labels | on flows | bends / seq. flow | bends / msg. flow "
          "| msg. length ratio | main path off line | crossings | area ratio | annotations overflowing |")


def row(label: str, found: Compared) -> str:
    ours, authors = found.ours, found.authors
    cells = [
        label,
        f"{ours.labels_on_shapes} / {authors.labels_on_shapes}",
        f"{ours.labels_on_labels} / {authors.labels_on_labels}",
        f"{ours.labels_on_flows} / {authors.labels_on_flows}",
        " / ".join(per_flow(side.sequence_bends, side.sequence_flows) for side in (ours, authors)),
        " / ".join(per_flow(side.message_bends, side.message_flows) for side in (ours, authors)),
        f"{found.message_ratio:.2f}" if found.message_ratio else "-",
        f"{ours.main_path_off_line}/{ours.main_path_flows} / {authors.main_path_off_line}/{authors.main_path_flows}",
        f"{ours.crossings} / {authors.crossings}",
        f"{ours.area / authors.area:.2f}" if authors.area else "-",
        f"{ours.annotations_overflowing} / {authors.annotations_overflowing}",
    ]
    return "| " + " | ".join(cells) + " |"


def totals(results: Iterable[Compared]) -> Compared:
    """Counts summed; the message ratio kept as the largest of any file (``message_lengths``
    of the files, keyed by file and flow)."""
    ours, authors = DiFigures(), DiFigures()
    for index, found in enumerate(results):
        ours = plus(ours, found.ours, f"{index}:")
        authors = plus(authors, found.authors, f"{index}:")
    return Compared(authors, ours)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="BPMN files or folders holding them")
    parser.add_argument("--layout", default="horizontal", choices=BPMN_LAYOUT_KEYS, help="the layout of the table")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure there, per file and key")
    arguments = parser.parse_args(argv)
    font = load_font()
    files = [path for path in bpmn_files(arguments.paths) if has_layout(path.read_bytes())]
    if not files:
        print("no .bpmn file with a layout of its own found", file=sys.stderr)
        return 2
    labels = file_labels(files)
    results = {key: {path: compare(path.read_bytes(), key, font) for path in files} for key in BPMN_LAYOUT_KEYS}
    print(f"{len(files)} BPMN files with their authors' DI; each cell ours / the authors' "
          f"(ratios: ours over theirs); layout {arguments.layout}")
    print()
    print(HEADER)
    print("|---" * HEADER.count(" | ") + "|---|")
    for path in files:
        print(row(labels[path], results[arguments.layout][path]))
    print()
    print(HEADER.replace("| file |", "| layout (totals) |"))
    print("|---" * HEADER.count(" | ") + "|---|")
    for key in BPMN_LAYOUT_KEYS:
        print(row(key, totals(results[key].values())))
    if arguments.json:
        record = {key: {labels[path]: {"ours": asdict(found.ours), "authors": asdict(found.authors)}
                        for path, found in found_by_path.items()} for key, found_by_path in results.items()}
        arguments.json.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
