"""Quality of laid-out BPMN, measured from its diagram interchange (DI) alone.

For every BPMN file given (files or folders, searched for ``*.bpmn``) and every BPMN layout
key, ``elrepo layout`` output is measured: overlaps among flow-node shapes, sequence and
message flows whose waypoints pass through a shape other than their ends, that have no
length or do not start and end on their ends' borders, nodes outside their lane's band,
crossings between flows, and bpmn-moddle's warnings on reading it.
Beside it, the same file laid out by bpmn-auto-layout, with what that drops (pools, lanes,
message flows). The two npm packages are used when node finds them in the folder given
by ``--node-modules`` (else ``ELREPO_NODE_MODULES``, else ``~/.cache/elrepo/npm``: the folder
holding ``node_modules``, as ``npm install --prefix FOLDER bpmn-moddle bpmn-auto-layout`` makes it);
otherwise only our side is measured and the table says so (``benchmarks.bpmn_io``).
Last, each file's crossings against our SVG of the same model (``benchmarks.bpmn_crossings``,
with the checker's svgmetrics.py).

    python -m benchmarks.bpmn_quality CORPUS_DIR [--node-modules DIR] [--svgmetrics FILE]
                                      [--record-crossings FILE]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from benchmarks.bpmn_crossings import (
    DEFAULT_SVGMETRICS,
    Crossings,
    comparison_tables,
    crossing_record,
    di_crossings,
    load_svgmetrics,
    svg_crossings,
)

# re-exported: tests import these two from here
from benchmarks.bpmn_io import node_modules_dir as node_modules_dir
from benchmarks.bpmn_io import run_node as run_node
from interchange import BPMN_LAYOUT_KEYS, BpmnError, BpmnModel, layout_bpmn
from interchange.di_metrics import MEASURED_FLOWS, crossing_pairs, segment_enters
from interchange.model import ANNOTATION, BpmnFlow
from interchange.parsing import BPMNDI_NS, DC_NS, DI_NS, parse_bpmn_xml
from interchange.reader import read_model
from layouts.geometry import Box

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # x, y, width, height
Segment = tuple[Point, Point]

#: two shapes must overlap by more than this on both axes to count
OVERLAP_TOLERANCE = 0.5
#: a flow whose waypoints are less than this long end to end is drawn as a dot
ZERO_LENGTH = 1.0
#: how far from its end's border a flow's first or last waypoint may lie
BORDER_TOLERANCE = 1.0


@dataclass(frozen=True, slots=True)
class DiQuality:
    """Counts over one file's DI (all its planes); ``*_drawn`` against ``*_total`` shows what a
    layout dropped. ``zero_length_flows`` and ``flows_off_their_ends`` count sequence and
    message flows: shorter than ``ZERO_LENGTH``, or starting or ending off their end's border."""

    overlaps: int = 0
    sequence_flows_through_shapes: int = 0
    message_flows_through_shapes: int = 0
    lane_violations: int = 0
    zero_length_flows: int = 0
    flows_off_their_ends: int = 0
    crossings: int = 0
    nodes_drawn: int = 0
    nodes_total: int = 0
    pools_drawn: int = 0
    pools_total: int = 0
    lanes_drawn: int = 0
    lanes_total: int = 0
    message_flows_drawn: int = 0
    message_flows_total: int = 0

    def __add__(self, other: DiQuality) -> DiQuality:
        return DiQuality(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(frozen=True, slots=True)
class Plane:
    """One BPMNPlane's bounds and waypoints, by BPMN id."""

    shapes: dict[str, Rect]
    edges: dict[str, list[Point]]


def measure_di(data: bytes) -> DiQuality:
    """The quality counts of a BPMN file's DI; a node, pool, lane or flow without DI is not drawn."""
    tree = parse_bpmn_xml(data)
    model = read_model(tree)
    planes = planes_of(tree)
    drawn_shapes = {shape_id for plane in planes for shape_id in plane.shapes}
    drawn_edges = {edge_id for plane in planes for edge_id in plane.edges}
    message_flows = [flow for flow in model.flows if flow.tag == "messageFlow"]
    nodes = [node for node in model.nodes if node.kind != ANNOTATION]
    totals = DiQuality(
        nodes_drawn=sum(node.id in drawn_shapes for node in nodes), nodes_total=len(nodes),
        pools_drawn=sum(pool.id in drawn_shapes for pool in model.pools), pools_total=len(model.pools),
        lanes_drawn=sum(lane.id in drawn_shapes for lane in model.lanes), lanes_total=len(model.lanes),
        message_flows_drawn=sum(flow.id in drawn_edges for flow in message_flows),
        message_flows_total=len(message_flows))
    for plane in planes:
        totals += _plane_quality(model, plane)
    return totals


def planes_of(tree: Any) -> list[Plane]:
    return [_plane(element) for element in tree.getroot().iter(f"{{{BPMNDI_NS}}}BPMNPlane")]


def measured_flows(model: BpmnModel, plane: Plane) -> list[BpmnFlow]:
    """The sequence and message flows drawn in the plane, in document order."""
    return [flow for flow in model.flows if flow.tag in MEASURED_FLOWS and plane.edges.get(flow.id)]


def _plane(element: Any) -> Plane:
    shapes: dict[str, Rect] = {}
    for shape in element.iter(f"{{{BPMNDI_NS}}}BPMNShape"):
        bounds = shape.find(f"{{{DC_NS}}}Bounds")
        if bounds is not None and shape.get("bpmnElement"):
            shapes[shape.get("bpmnElement")] = (float(bounds.get("x")), float(bounds.get("y")),
                                                float(bounds.get("width")), float(bounds.get("height")))
    edges = {edge.get("bpmnElement"): [(float(point.get("x")), float(point.get("y")))
                                       for point in edge.findall(f"{{{DI_NS}}}waypoint")]
             for edge in element.iter(f"{{{BPMNDI_NS}}}BPMNEdge") if edge.get("bpmnElement")}
    return Plane(shapes, edges)


def _plane_quality(model: BpmnModel, plane: Plane) -> DiQuality:
    nodes = [node for node in model.nodes if node.kind != ANNOTATION and node.id in plane.shapes]

    def around(node_id: str) -> set[str]:
        """The node, the sub-processes it lies in and, for a boundary event, its host."""
        found: set[str] = set()
        node = model.node(node_id)
        while node is not None and node.id not in found:
            found.add(node.id)
            if node.attached_to:
                found.add(node.attached_to)
            node = model.node(node.parent or node.attached_to or "")
        return found

    overlaps = sum(1 for index, a in enumerate(nodes) for b in nodes[index + 1:]
                   if b.id not in around(a.id) and a.id not in around(b.id)
                   and _overlap(plane.shapes[a.id], plane.shapes[b.id]))
    through = dict.fromkeys(MEASURED_FLOWS, 0)
    flows = measured_flows(model, plane)
    for flow in flows:
        ends = around(flow.source) | around(flow.target)
        if any(_passes_through(plane.edges[flow.id], plane.shapes[node.id]) for node in nodes if node.id not in ends):
            through[flow.tag] += 1
    lanes_outside = sum(1 for node in nodes
                        if node.lane and not node.attached_to and node.lane in plane.shapes
                        and not _inside(plane.shapes[node.id], plane.shapes[node.lane]))
    off_ends = sum(1 for flow in flows
                   if any(end in plane.shapes and not _on_border(point, plane.shapes[end])
                          for end, point in ((flow.source, plane.edges[flow.id][0]),
                                             (flow.target, plane.edges[flow.id][-1]))))
    return DiQuality(overlaps=overlaps, sequence_flows_through_shapes=through["sequenceFlow"],
                     message_flows_through_shapes=through["messageFlow"], lane_violations=lanes_outside,
                     zero_length_flows=sum(_length(plane.edges[flow.id]) < ZERO_LENGTH for flow in flows),
                     flows_off_their_ends=off_ends,
                     crossings=len(crossing_pairs([plane.edges[flow.id] for flow in flows])))


def _length(route: Sequence[Point]) -> float:
    return sum(math.dist(p, q) for p, q in zip(route, route[1:]))


def _on_border(point: Point, box: Rect) -> bool:
    """Within ``BORDER_TOLERANCE`` of the box's outline."""
    x, y = point
    near = (box[0] - BORDER_TOLERANCE <= x <= box[0] + box[2] + BORDER_TOLERANCE
            and box[1] - BORDER_TOLERANCE <= y <= box[1] + box[3] + BORDER_TOLERANCE)
    return near and not (box[0] + BORDER_TOLERANCE < x < box[0] + box[2] - BORDER_TOLERANCE
                         and box[1] + BORDER_TOLERANCE < y < box[1] + box[3] - BORDER_TOLERANCE)


def _overlap(a: Rect, b: Rect) -> bool:
    return (min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]) > OVERLAP_TOLERANCE
            and min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > OVERLAP_TOLERANCE)


def _inside(inner: Rect, outer: Rect) -> bool:
    return (outer[0] - 0.5 <= inner[0] and inner[0] + inner[2] <= outer[0] + outer[2] + 0.5
            and outer[1] - 0.5 <= inner[1] and inner[1] + inner[3] <= outer[1] + outer[3] + 0.5)


def _passes_through(route: Sequence[Point], box: Rect) -> bool:
    return any(segment_enters(p, q, Box(*box)) for p, q in zip(route, route[1:]))


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
