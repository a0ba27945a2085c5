"""Modelling tools' BPMN files tried as a new user would: each file given (files or
folders, searched for ``*.bpmn``, any case) goes through ``elrepo render``, ``elrepo layout``
and ``elrepo import`` (into a scratch SQLite tenant), each a process of its own, and the
table says per file its exit codes, warnings, the first refusal and the seconds taken.
The tool is the file's folder below the one given (the BPMN MIWG test suite's layout:
``<tool and version>/<test>-export.bpmn``). Run by hand; the table goes to
docs/interchange.md, "Modelling tools' files, tried as a new user".

    python -m benchmarks.tool_exports DIR [--layout KEY] [--keep OUT_DIR]

Exit status 1 when any command of any file did not exit 0, unless the file was refused as
holding nothing to draw (no process, no collaboration: the refusal docs/interchange.md,
"Errors", calls right), else 0.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from checks.bpmn_io import node_modules_dir, run_node

COMMANDS = ("render", "layout", "import")
COLLECTION = "tools"
#: What docs/interchange.md, "Errors", refuses rightly: nothing to draw.
NOTHING_TO_DRAW = "holds no process and no collaboration"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One command on one file: its exit status and what it said on standard error."""

    exit_code: int
    stderr: str

    @property
    def warnings(self) -> int:
        return sum(": warning: " in line for line in self.stderr.splitlines())

    @property
    def refusal(self) -> str:
        """The first line that is neither a warning nor the import's own account, without the
        ``elrepo: FILE: `` before it: why it failed."""
        line = next((line for line in self.stderr.splitlines()
                     if line.strip() and ": warning: " not in line and ": imported " not in line
                     and not line.startswith("Imported ")), "")
        return line.partition(".bpmn: ")[2] or line


@dataclass(frozen=True, slots=True)
class FileResult:
    path: Path
    tool: str
    outcomes: dict[str, Outcome]
    seconds: float

    @property
    def passed(self) -> bool:
        return all(outcome.exit_code == 0 for outcome in self.outcomes.values())

    @property
    def rightly_refused(self) -> bool:
        """Refused by every command because the file holds nothing to draw."""
        return all(outcome.exit_code == 2 and NOTHING_TO_DRAW in outcome.refusal for outcome in self.outcomes.values())


def bpmn_files(folder: Path) -> list[Path]:
    """Every ``*.bpmn`` below ``folder``, the suffix in any case (the MIWG suite has a
    ``Facilities.BPMN``; ``benchmarks.bpmn_quality.bpmn_files`` takes ``.bpmn`` only)."""
    return sorted(path for path in folder.rglob("*") if path.is_file() and path.suffix.lower() == ".bpmn")


def elrepo(*arguments: str) -> Outcome:
    """``elrepo ARGUMENTS`` run as a user runs it, by this interpreter with this environment."""
    done = subprocess.run([sys.executable, "-m", "repository.cli", *arguments], capture_output=True,
                          text=True, errors="replace", env=os.environ.copy(), check=False)
    return Outcome(done.returncode, done.stderr)


def try_file(path: Path, tool: str, layout_key: str, out_dir: Path, storage: str) -> FileResult:
    started = time.perf_counter()
    stem = f"{tool}-{path.stem}".replace(os.sep, "-")
    outcomes = {
        "render": elrepo("render", str(path), "--layout", layout_key, "-o", str(out_dir / f"{stem}.svg")),
        "layout": elrepo("layout", str(path), "--layout", layout_key, "-o", str(out_dir / f"{stem}.bpmn")),
        "import": elrepo("import", "--db", _database(out_dir), COLLECTION, storage, str(path)),
    }
    return FileResult(path, tool, outcomes, time.perf_counter() - started)


def try_folder(folder: Path, layout_key: str, out_dir: Path) -> list[FileResult]:
    """Every BPMN file under ``folder`` through the three commands, each tool's files into a
    scratch tenant of their own: tools export the same test under the same file name and
    ids, which a shared tenant would read as new versions of one model."""
    (out_dir / "scratch.db").unlink(missing_ok=True)
    results = []
    storages: dict[str, str] = {}
    for path in bpmn_files(folder):
        tool = _tool_of(path, folder)
        if tool not in storages:
            storages[tool] = f"tool{len(storages) + 1}"
            created = elrepo("tenant", "create", "--db", _database(out_dir), COLLECTION, storages[tool])
            if created.exit_code != 0:
                raise RuntimeError(f"could not create a scratch tenant: {created.stderr.strip()}")
        results.append(try_file(path, tool, layout_key, out_dir, storages[tool]))
    return results


def _database(out_dir: Path) -> str:
    return f"sqlite:///{out_dir / 'scratch.db'}"


def _tool_of(path: Path, folder: Path) -> str:
    parent = path.parent.relative_to(folder)
    return str(parent) if str(parent) != "." else folder.name


def moddle_warnings(paths: Sequence[Path]) -> dict[Path, list[str]]:
    """bpmn-moddle's warnings on each file (a file it cannot read has one starting "not
    read:"); empty when node or bpmn-moddle is not installed (``checks.bpmn_io``)."""
    folder = node_modules_dir()
    if folder is None or not paths:
        return {}
    return {path: answer["warnings"] for path, answer in zip(paths, run_node(folder, paths, False), strict=True)}


def _moddle_cell(warnings: Sequence[str] | None) -> str:
    if warnings is None:
        return "-"
    if any(warning.startswith("not read:") for warning in warnings):
        return "not read"
    return f"reads, {len(warnings)} warning{'s' if len(warnings) > 1 else ''}" if warnings else "reads"


def table(results: Sequence[FileResult], moddle: Mapping[Path, Sequence[str]] | None = None) -> str:
    """One row per file, then the totals; the bpmn-moddle column says how bpmn.io's reader
    takes the same file ("-": not measured)."""
    lines = ["| file | tool | render | layout | import | warnings | refused with | bpmn-moddle | seconds |",
             "|---|---|---|---|---|---|---|---|---|"]
    for result in results:
        codes = [str(result.outcomes[command].exit_code) for command in COMMANDS]
        warnings = max(outcome.warnings for outcome in result.outcomes.values())
        refusal = next((outcome.refusal for outcome in result.outcomes.values() if outcome.exit_code), "")
        lines.append(f"| {result.path.name} | {result.tool} | {' | '.join(codes)} | {warnings} "
                     f"| {refusal.replace('|', '/')} | {_moddle_cell((moddle or {}).get(result.path))} "
                     f"| {result.seconds:.1f} |")
    passed = sum(result.passed for result in results)
    per_command = ", ".join(f"{command} {sum(r.outcomes[command].exit_code == 0 for r in results)}"
                            for command in COMMANDS)
    tools = len({result.tool for result in results})
    lines.append(f"\n{passed} of {len(results)} files ({tools} tools) exit 0 in all three commands, "
                 f"{sum(result.rightly_refused for result in results)} refused as nothing to draw; "
                 f"exit 0 per command: {per_command}; files with warnings: "
                 f"{sum(any(o.warnings for o in r.outcomes.values()) for r in results)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tool_exports", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="folder of BPMN files, one subfolder per tool")
    parser.add_argument("--layout", default="horizontal", help="BPMN layout key (default: horizontal)")
    parser.add_argument("--keep", type=Path, help="folder for the SVG, laid-out BPMN and scratch database")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = options.keep or Path(scratch)
        out_dir.mkdir(parents=True, exist_ok=True)
        results = try_folder(options.folder, options.layout, out_dir)
    print(table(results, moddle_warnings([result.path for result in results])))
    for result in results:
        for command, outcome in result.outcomes.items():
            if outcome.exit_code:
                print(f"{result.path}: {command}: exit {outcome.exit_code}: {outcome.stderr.strip()[-2000:]}",
                      file=sys.stderr)
    return 0 if all(result.passed or result.rightly_refused for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
