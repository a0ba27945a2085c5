"""Quality of laid-out BPMN, measured from its diagram interchange (DI) alone
(``checks.di_quality``, which the tests hold our layout to).

For every BPMN file given (files or folders, searched for ``*.bpmn``) and every BPMN layout
key, ``elrepo layout`` output is measured: overlaps among flow-node shapes, sequence and
message flows whose waypoints pass through a shape other than their ends, that have no
length or do not start and end on their ends' borders, nodes outside their lane's band,
crossings between flows, and bpmn-moddle's warnings on reading it.
Beside it, the same file laid out by bpmn-auto-layout, with what that drops (pools, lanes,
message flows). The two npm packages are used when node finds them in the folder given
by ``--node-modules`` (else ``ELREPO_NODE_MODULES``, else ``~/.cache/elrepo/npm``: the folder
holding ``node_modules``, as ``npm install --prefix FOLDER bpmn-moddle bpmn-auto-layout`` makes it);
otherwise only our side is measured and the table says so (``checks.bpmn_io``).
Last, each file's crossings against our SVG of the same model (``checks.bpmn_crossings``,
with the checker's svgmetrics.py).

    python -m benchmarks.bpmn_quality CORPUS_DIR [--node-modules DIR] [--svgmetrics FILE]
                                      [--record-crossings FILE]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from checks.bpmn_crossings import (
    DEFAULT_SVGMETRICS,
    Crossings,
    comparison_tables,
    crossing_record,
    di_crossings,
    load_svgmetrics,
    svg_crossings,
)
from checks.bpmn_io import node_modules_dir, run_node
from checks.di_quality import DiQuality, measure_di
from interchange import BPMN_LAYOUT_KEYS, BpmnError, layout_bpmn


def bpmn_files(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(path.rglob("*.bpmn")) if path.is_dir() else [path])
    return found


COLUMNS = ("overlaps", "seq. through", "msg. through", "lane viol.", "zero-length", "off their ends", "crossings",
           "nodes", "pools", "lanes", "msg. flows", "moddle warn.")


def _row(label: str, quality: DiQuality, warnings: int | None) -> str:
    cells = [quality.overlaps, quality.sequence_flows_through_shapes, quality.message_flows_through_shapes,
             quality.lane_violations, quality.zero_length_flows, quality.flows_off_their_ends, quality.crossings,
             f"{quality.nodes_drawn}/{quality.nodes_total}", f"{quality.pools_drawn}/{quality.pools_total}",
             f"{quality.lanes_drawn}/{quality.lanes_total}",
             f"{quality.message_flows_drawn}/{quality.message_flows_total}",
             "not run" if warnings is None else warnings]
    return "| " + " | ".join([label, *map(str, cells)]) + " |"


def main(argv: Sequence[str] | None = None) -> int:

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="BPMN files or folders holding them")
    parser.add_argument("--node-modules", help="folder whose node_modules holds bpmn-moddle and bpmn-auto-layout")
    parser.add_argument("--work", type=Path, default=Path("out/bpmn_quality"), help="where laid-out files are written")
    parser.add_argument("--svgmetrics", type=Path, default=DEFAULT_SVGMETRICS,
                        help="the checker's svgmetrics.py, to compare crossings with our SVG")
    parser.add_argument("--record-crossings", type=Path, metavar="FILE",
                        help="write each file's DI crossings per layout there, as JSON (the regression "
                             "test's ceilings, tests/interchange/bpmn_crossings.json)")
    arguments = parser.parse_args(argv)
    files = bpmn_files(arguments.paths)
    if not files:
        print("no .bpmn file found", file=sys.stderr)
        return 2
    folder = node_modules_dir(arguments.node_modules)
    svgmetrics = load_svgmetrics(arguments.svgmetrics)
    crossings: dict[tuple[Path, str], Crossings] = {}
    arguments.work.mkdir(parents=True, exist_ok=True)
    ours: dict[str, DiQuality] = {}
    written: dict[str, list[Path]] = {}
    refused: list[str] = []
    seconds: dict[tuple[Path, str], float] = {}
    for key in BPMN_LAYOUT_KEYS:
        for index, file in enumerate(files):
            data = file.read_bytes()
            started = time.process_time()
            try:
                output = layout_bpmn(data, key)
            except BpmnError as error:
                refused.append(f"{file.name} ({key}): {error}")
                continue
            seconds[(file, key)] = time.process_time() - started
            target = arguments.work / f"{index:03d}.{key}.bpmn"
            target.write_bytes(output)
            written.setdefault(key, []).append(target)
            ours[key] = ours.get(key, _ZERO) + measure_di(output)
            crossings[(file, key)] = Crossings(di_crossings(output),
                                               None if svgmetrics is None else svg_crossings(data, key, svgmetrics))
    print(f"{len(files)} BPMN files")
    print("| layout | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    if folder is None:
        for key in BPMN_LAYOUT_KEYS:
            print(_row(f"elrepo {key}", ours.get(key, _ZERO), None))
        print("node, bpmn-moddle or bpmn-auto-layout not found (--node-modules or ELREPO_NODE_MODULES): "
              "only elrepo measured, without bpmn-moddle")
    else:
        auto_layout = (folder / "node_modules" / "bpmn-auto-layout").is_dir()
        for key in BPMN_LAYOUT_KEYS:
            answers = run_node(folder, written.get(key, []), auto_layout=False)
            print(_row(f"elrepo {key}", ours.get(key, _ZERO), sum(len(answer["warnings"]) for answer in answers)))
        if auto_layout:
            print(_auto_layout_row(folder, files))
        else:
            print("bpmn-auto-layout not found: elrepo only")
    for line in refused:
        print(f"refused: {line}")
    print(_times_line(seconds))
    if arguments.record_crossings:
        record = crossing_record({place: found.di for place, found in crossings.items()})
        arguments.record_crossings.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"DI crossings of {len(record)} files written to {arguments.record_crossings}")
    print()
    if svgmetrics is None:
        print(f"{arguments.svgmetrics} not found: crossings not compared with our SVG")
    else:
        print("Crossings of the laid-out BPMN (DI) against our SVG of the same model (elrepo render --layout KEY)")
        print("\n".join(comparison_tables(crossings, BPMN_LAYOUT_KEYS)))
    return 0


def _times_line(seconds: dict[tuple[Path, str], float]) -> str:
    """CPU seconds of ``layout_bpmn`` per layout, and the slowest file's."""
    per_key = {key: sum(spent for (_, layout), spent in seconds.items() if layout == key) for key in BPMN_LAYOUT_KEYS}
    slowest = max(seconds, key=lambda place: seconds[place], default=None)
    return ("layout CPU seconds: " + ", ".join(f"{key} {spent:.1f}" for key, spent in per_key.items())
            + ("" if slowest is None else f"; slowest {slowest[0].name} ({slowest[1]}, {seconds[slowest]:.2f})"))


def _auto_layout_row(folder: Path, files: Sequence[Path]) -> str:
    quality, failed = _ZERO, 0
    for answer in run_node(folder, files, auto_layout=True):
        if "autoLayout" in answer:
            quality += measure_di(answer["autoLayout"].encode())
        else:
            failed += 1
    return _row("bpmn-auto-layout", quality, None) + (f" ({failed} files failed)" if failed else "")


_ZERO = DiQuality()

if __name__ == "__main__":
    raise SystemExit(main())
