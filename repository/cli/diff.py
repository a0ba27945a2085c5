"""`elrepo diff OLD NEW`: two versions of a model (diagram fixtures or BPMN files) compared,
for batch scripts and Git hooks (issue 22, item 5; docs/cli.md).

Shapes pair up by their ids; a file whose shapes have none (BPMN) pairs them by their
elements' ids. Like `diff`: exit 0 when they are the same model, 1 when they differ, 2 on trouble (a file
that cannot be read or drawn: one line on standard error, nothing written). Standard
output gets one line per change (or, with `--json`, the compare endpoint's JSON); `-o`
writes the compare drawing (renderer/compare_svg.py), only once both files were read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repository import catalog
from repository.cli.common import (
    CULTURE_HELP,
    EXIT_BAD_INPUT,
    LAYOUT_KEYS_HELP,
    CommandError,
    Subcommands,
    add_command,
)

if TYPE_CHECKING:
    from renderer.compare import DiagramChanges
    from renderer.model import Diagram, Shape

EXIT_SAME = 0
EXIT_DIFFERENT = 1


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    diff = add_command(commands, "diff", "compare two versions of a model (diagram fixtures or "
                       "BPMN 2.0 files): exit 0 when they are the same model, 1 when they differ, "
                       "2 on bad input")
    diff.add_argument("old", type=Path, metavar="OLD", help="the older version: fixture (JSON) or .bpmn")
    diff.add_argument("new", type=Path, metavar="NEW", help="the newer version: fixture (JSON) or .bpmn")
    diff.add_argument("-o", "--output", type=Path,
                      help="write the compare drawing (SVG): the newer version laid out from the "
                           "older, its changes marked")
    diff.add_argument("--layout", default="horizontal", help=f"{LAYOUT_KEYS_HELP} (of the drawing)")
    diff.add_argument("--culture", default=str(catalog.ENGLISH), help=CULTURE_HELP)
    diff.add_argument("--json", action="store_true",
                      help="print the changes as the compare endpoint's JSON instead of lines")
    diff.set_defaults(command=_diff)


def _diff(args: argparse.Namespace) -> int:
    try:
        return _compared(args)
    except CommandError as error:
        raise CommandError(str(error), EXIT_BAD_INPUT) from None
    except Exception as error:  # 1 means "they differ": no failure may answer it
        raise CommandError(f"failed: {type(error).__name__}: {error}", EXIT_BAD_INPUT) from None


def _compared(args: argparse.Namespace) -> int:
    from repository.cli.files import read_fixture, write_file
    from repository.input_rules import parse_culture_id

    culture = parse_culture_id(args.culture, "--culture")
    if args.layout not in catalog.LAYOUT_KEYS:
        raise CommandError(f"unknown layout {args.layout!r}; {LAYOUT_KEYS_HELP}")
    old, new = _matched_by_element(read_fixture(args.old)), _matched_by_element(read_fixture(args.new))
    from renderer.api import RenderInputError
    from renderer.compare import compare_diagrams
    from renderer.compare_svg import render_comparison

    if args.output is None:
        changes = compare_diagrams(_parsed(args.old, old), _parsed(args.new, new))
    else:
        try:
            comparison = render_comparison(old, new, args.layout, culture)
        except RenderInputError as error:
            raise CommandError(str(error)) from None
        changes = comparison.changes
        write_file(args.output, comparison.svg.encode("utf-8"))
    if args.json:
        print(json.dumps(changes.to_json(), ensure_ascii=False, indent=1, sort_keys=True))
    else:
        sys.stdout.writelines(line + "\n" for line in change_lines(changes, culture))
    return EXIT_SAME if changes.same else EXIT_DIFFERENT


def _matched_by_element(fixture: Any) -> Any:
    """A fixture whose shapes have no ids of their own (a BPMN file's: the renderer would
    name them by position, which an insertion shifts) with each shape named by its
    element's id, where those are unique: the two versions' shapes then pair up by the
    BPMN ids. Anything malformed is left as it is, for the reader to refuse."""
    values = fixture.get("values") if isinstance(fixture, dict) else None
    if not isinstance(values, list) or not all(isinstance(v, dict) and isinstance(v.get("shapeInfo"), dict)
                                               and isinstance(v.get("element"), dict) for v in values):
        return fixture
    element_ids = [value["element"].get("id") for value in values]
    if any(value["shapeInfo"].get("id") is not None for value in values) or \
            not all(isinstance(i, str) and i for i in element_ids) or len(set(element_ids)) < len(element_ids):
        return fixture
    return {**fixture, "values": [{**value, "shapeInfo": {**value["shapeInfo"], "id": element_id}}
                                  for value, element_id in zip(values, element_ids)]}


def _parsed(path: Path, fixture: Any) -> Diagram:
    from renderer.api import RenderInputError
    from renderer.model import parse_diagram

    try:
        return parse_diagram(fixture)
    except RenderInputError as error:
        raise CommandError(f"{path}: {error}") from None


def change_lines(changes: DiagramChanges, culture: int) -> list[str]:
    """One line per change, `+` added, `-` removed, `~` changed, `>` moved, as a reader
    of a hook's output wants them: what, which id, which name."""
    from renderer.culture import Cultures

    cultures = Cultures(culture, culture)

    def shape(mark: str, what: Shape) -> str:
        name = what.element.text("name", cultures)
        return f"{mark} shape {what.shape_id} ({what.element.type}{': ' + name if name else ''})"

    lines = [shape("+", s) for s in changes.added_shapes]
    lines += [shape("-", s) for s in changes.removed_shapes]
    for change in changes.changed_shapes:
        what = [f"{a.name}[{','.join(map(str, a.cultures))}]" for a in change.change.attributes]
        what += [f"related {context}" for context in change.change.related]
        if change.before is not None:
            what.insert(0, f"element {change.before.id} -> {change.shape.element.id}")
        lines.append(f"{shape('~', change.shape)}: {'; '.join(what) or 'type or children'}")
    lines += [shape(">", s) for s in changes.moved_shapes]
    lines += [f"+ flow {flow.source} -> {flow.target}" for flow in changes.added_flows]
    lines += [f"- flow {flow.source} -> {flow.target}" for flow in changes.removed_flows]
    shown = {s.element.id for s in (*changes.added_shapes, *changes.removed_shapes)}
    shown |= {change.shape.element.id for change in changes.changed_shapes}
    lines += [f"+ element {e.id} ({e.type})" for e in changes.added_elements if e.id not in shown]
    lines += [f"- element {e.id} ({e.type})" for e in changes.removed_elements if e.id not in shown]
    for element, element_change in changes.changed_elements:
        if element.id not in shown:
            what = [a.name for a in element_change.attributes] + [f"related {c}" for c in element_change.related]
            lines.append(f"~ element {element.id} ({element.type}): {', '.join(what) or 'type or children'}")
    diagram = [a.name for a in changes.diagram.attributes] + [f"related {c}" for c in changes.diagram.related]
    if diagram:
        lines.append(f"~ diagram: {', '.join(diagram)}")
    return lines
