"""The commands that write files: `elrepo render` (a fixture or BPMN file to SVG, no
database), `elrepo layout` (a BPMN file laid out by our engine) and `elrepo export`
(every diagram of a tenant, as SVG, PNG or BPMN 2.0 XML)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from layouts.keys import BPMN_LAYOUT_KEYS  # a module importing nothing: `--help` stays fast
from repository import catalog
from repository.cli.common import (
    CULTURE_HELP,
    EXIT_FAILURE,
    LAYOUT_KEYS_HELP,
    CommandError,
    Subcommands,
    add_command,
    db_option,
    tenant_session,
)

if TYPE_CHECKING:
    from interchange import BpmnImport
    from layouts.base import LayoutOptions
    from renderer.export import ExportJob
    from repository.store import Store
    from repository.store.models import Element

DEFAULT_EXPORT_LAYOUTS = ("horizontal",)


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    render = add_command(commands, "render", "render a diagram fixture (JSON) or a BPMN 2.0 "
                         "file (.bpmn) to SVG (no database)")
    render.add_argument("model", type=Path, metavar="FILE",
                        help="diagram fixture (JSON) or BPMN 2.0 XML (.bpmn)")
    render.add_argument("--layout", required=True, help=LAYOUT_KEYS_HELP)
    render.add_argument("--culture", default=str(catalog.ENGLISH), help=CULTURE_HELP)
    render.add_argument("-o", "--output", type=Path,
                        help="SVG file to write (default: standard output)")
    render.add_argument("--like", type=Path, metavar="PREVIOUS",
                        help="keep the drawing of the model's previous version: an SVG this engine drew "
                             "(.svg), or the previous version's fixture or BPMN file, drawn first; the flow "
                             "layouts only (docs/layout.md, \"Stable layout\")")
    render.set_defaults(command=_render)

    layout = add_command(commands, "layout", "lay out a BPMN 2.0 file with our engine and "
                         "write it with complete diagram interchange (pools, lanes, edges)")
    layout.add_argument("model", type=Path, metavar="MODEL.bpmn", help="BPMN 2.0 XML file")
    layout.add_argument("-o", "--output", type=Path, required=True, help="BPMN file to write")
    layout.add_argument("--layout", default="horizontal",
                        help="a flow or swimlane layout key (pools and lanes are drawn as "
                             "bands in every one)")
    layout.set_defaults(command=_layout)

    export = add_command(commands, "export", "export every diagram of a tenant", on_tenant=True)
    export.add_argument("-o", "--output", type=Path, required=True,
                        help="directory to write the files to")
    export.add_argument("--layout", action="append", dest="layouts",
                        help=f"{LAYOUT_KEYS_HELP}; repeatable (default: "
                             f"{', '.join(DEFAULT_EXPORT_LAYOUTS)})")
    export.add_argument("--format", choices=("svg", "png", "bpmn"), default="svg",
                        help=f"file format; bpmn takes the layout keys {', '.join(BPMN_LAYOUT_KEYS)}")
    export.add_argument("--culture", default=str(catalog.ENGLISH), help=CULTURE_HELP)
    export.add_argument("--jobs", type=int, default=1, help="renders in parallel")
    export.add_argument("--broker", metavar="URL",
                        help="render on the Celery workers of this broker (elrepo worker) instead "
                             "of here; Redis or RabbitMQ URL, needs pip install -e '.[distributed]'")
    export.add_argument("--queue", metavar="NAME",
                        help="with --broker: the queue the workers consume (elrepo worker --queue; "
                             "default: the worker's default queue)")
    db_option(export)
    export.set_defaults(command=_export)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None


def write_file(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as error:
        raise CommandError(f"cannot write {path}: {error.strerror}") from None


def _is_bpmn(path: Path) -> bool:
    return path.suffix.lower() in (".bpmn", ".xml")


def read_fixture(path: Path) -> Any:
    """The diagram fixture in `path`: read as JSON, or converted from BPMN 2.0 XML."""
    data = _read_bytes(path)
    if _is_bpmn(path):
        return _bpmn_import(path, data).fixture
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{path} is not valid JSON: {error}") from None


def _bpmn_import(path: Path, data: bytes) -> BpmnImport:
    """The BPMN file `path` read, its warnings printed."""
    from interchange import BpmnError, read_bpmn

    try:
        imported = read_bpmn(data)
    except BpmnError as error:
        raise CommandError(f"{path}: {error}") from None
    print_warnings(path, imported.model.warnings)
    return imported


def print_warnings(path: Path, warnings: Iterable[str]) -> None:
    """What a BPMN file had odd but drawable: one line each on standard error."""
    for warning in warnings:
        print(f"elrepo: {path}: warning: {warning}", file=sys.stderr)


def _render(args: argparse.Namespace) -> int:
    from repository.input_rules import parse_culture_id

    culture = parse_culture_id(args.culture, "--culture")
    options = None if args.like is None else _like(args.like, args.layout, culture)
    svg = _drawn(args.model, args.layout, culture, options)
    if args.output is None:
        sys.stdout.write(svg)
    else:
        write_file(args.output, svg.encode("utf-8"))
    return 0


def _drawn(path: Path, layout_key: str, culture: int, options: LayoutOptions | None = None) -> str:
    """The SVG of the fixture or BPMN file `path` (a BPMN file in a BPMN layout in BPMN's
    notation)."""
    if _is_bpmn(path) and layout_key in BPMN_LAYOUT_KEYS:
        return _bpmn_notation(path, layout_key, culture, options)
    return _rendered_fixture(path, layout_key, culture, options)


def _like(previous: Path, layout_key: str, culture: int) -> LayoutOptions:
    """The layout options that keep the drawing of `previous` (`render --like`): its
    sketch, read from the overlays of an SVG this engine drew, or from a fresh drawing of
    the previous version's fixture or BPMN file."""
    from layouts.base import LayoutOptions
    from renderer.sketch_svg import SKETCHED_LAYOUTS, sketch_of_svg

    if layout_key not in SKETCHED_LAYOUTS:
        raise CommandError(f"--like keeps the drawing of the flow layouts only ({', '.join(sorted(SKETCHED_LAYOUTS))}),"
                           f" not {layout_key!r}")
    if previous.suffix.lower() == ".svg":
        drawing = _read_bytes(previous)
    else:
        drawing = _drawn(previous, layout_key, culture).encode("utf-8")
    try:
        return LayoutOptions(sketch=sketch_of_svg(drawing, layout_key))
    except ValueError as error:
        raise CommandError(f"{previous}: {error}") from None


def _bpmn_notation(path: Path, layout_key: str, culture: int, options: LayoutOptions | None = None) -> str:
    """A BPMN file in a BPMN layout: its model drawn in BPMN's notation."""
    from interchange import BpmnError
    from interchange.drawing import draw_bpmn_import

    imported = _bpmn_import(path, _read_bytes(path))
    try:
        return draw_bpmn_import(imported, layout_key, culture, options)
    except BpmnError as error:
        raise CommandError(f"{path}: {error}") from None


def _rendered_fixture(path: Path, layout_key: str, culture: int, options: LayoutOptions | None = None) -> str:
    fixture = read_fixture(path)
    if isinstance(fixture, dict) and not fixture.get("values"):
        # The engine draws an empty diagram as an empty picture; asked for one from the
        # command line, that is a mistake in the file.
        raise CommandError(f"{path} has no shapes (its \"values\" list is empty): "
                           "nothing to render")
    from interchange.drawing import render_any
    from renderer.api import RenderInputError

    try:
        return render_any(fixture, layout_key, culture, options)
    except RenderInputError as error:
        raise CommandError(str(error)) from None


def _layout(args: argparse.Namespace) -> int:
    from interchange import BpmnError, layout_bpmn_read

    try:
        laid_out, model = layout_bpmn_read(_read_bytes(args.model), args.layout)
    except BpmnError as error:
        raise CommandError(f"{args.model}: {error}") from None
    print_warnings(args.model, model.warnings)
    write_file(args.output, laid_out)  # only once the layout succeeded: bad input writes nothing
    return 0


def _export(args: argparse.Namespace) -> int:
    from renderer.export import ExportJob, export_many
    from repository.fixtures import diagram_fixture, nested_fixture
    from repository.input_rules import parse_culture_id
    from repository.store import Store

    culture = parse_culture_id(args.culture, "--culture")
    layouts = args.layouts or list(DEFAULT_EXPORT_LAYOUTS)
    known = BPMN_LAYOUT_KEYS if args.format == "bpmn" else catalog.LAYOUT_KEYS
    unknown = [key for key in layouts if key not in known]
    if unknown:
        raise CommandError(f"unknown {'BPMN ' if args.format == 'bpmn' else ''}layout key(s) "
                           f"{', '.join(unknown)}; layout keys: {', '.join(known)}")
    if args.jobs < 1:
        raise CommandError("--jobs must be at least 1")
    if args.queue is not None and args.broker is None:
        raise CommandError("--queue names the workers' queue: give --broker URL with it")
    if args.broker is not None and args.format == "bpmn":
        raise CommandError("--broker sends renders (svg, png) to workers; --format bpmn is "
                           "written here, without --broker")
    with tenant_session(args, write=False) as (session, tenant):
        store = Store(session, tenant)
        # BPMN draws expanded sub-processes with their content inside them
        fixture_of = nested_fixture if args.format == "bpmn" else diagram_fixture
        jobs = [
            ExportJob(_export_name(store, diagram, culture), key, fixture, culture,
                      default_culture=tenant.default_culture)
            for diagram in store.reads.diagrams() for fixture in [fixture_of(store, diagram)] for key in layouts
        ]
    if args.format == "bpmn":
        return _export_bpmn(jobs, args.output)
    if args.broker is not None:
        from repository.cli.worker import export_on_workers

        report = export_on_workers(jobs, args.output, args.format, args.broker, args.queue)
    else:
        from interchange.drawing import render_any

        report = export_many(jobs, args.output, args.format, args.jobs, progress=True, render_fn=render_any)
    for failure in report.failures:
        print(_failure_line(failure.name, failure.layout_key, culture, args.format, failure.error),
              file=sys.stderr)
    print(f"Wrote {len(report.written)} file(s) to {args.output}", file=sys.stderr)
    return 0 if report.ok else EXIT_FAILURE


def _export_bpmn(jobs: list[ExportJob], output: Path) -> int:
    """Each job as `<name>.<layout key>.bpmn` (docs/interchange.md); one line per diagram
    that cannot be written, the others still are."""
    from tqdm import tqdm

    from interchange import BpmnError, diagram_to_bpmn
    from renderer.export import output_name

    try:
        output.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CommandError(f"cannot create {output}: {error.strerror}") from None
    written = failed = 0
    for job in tqdm(jobs, disable=len(jobs) < 2, file=sys.stderr, unit="diagram"):
        try:
            write_file(output / output_name(job, "bpmn"),
                   diagram_to_bpmn(job.fixture, job.layout_key, job.culture, job.default_culture))
            written += 1
        except (BpmnError, CommandError) as error:
            failed += 1
            tqdm.write(_failure_line(job.name, job.layout_key, job.culture, "bpmn", str(error)),
                       file=sys.stderr)
    print(f"Wrote {written} file(s) to {output}", file=sys.stderr)
    return EXIT_FAILURE if failed else 0


def _failure_line(name: str, layout_key: str, culture: int, fmt: str, reason: str) -> str:
    """One line per job not written: which diagram, in which layout, culture and format,
    and why (a diagram exported in several layouts may fail in one only)."""
    return f"elrepo: {name} (layout {layout_key}, culture {culture}, {fmt}): {reason}"


def _export_name(store: Store, diagram: Element, culture: int) -> str:
    return f"{store.reads.name_of(diagram, culture) or diagram.type}-{diagram.id[:8]}"
