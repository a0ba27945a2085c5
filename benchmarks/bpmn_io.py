"""bpmn.io's npm packages as clients of our BPMN: bpmn-moddle (the BPMN reader of bpmn-js)
reads files and says what it warns about, bpmn-auto-layout lays them out for comparison.

They are looked for in the folder given, else ``ELREPO_NODE_MODULES``, else
``~/.cache/elrepo/npm`` (the folder holding ``node_modules``, as ``npm install --prefix
FOLDER bpmn-moddle bpmn-auto-layout`` makes it). The tests install bpmn-moddle alone there
with ``installed_bpmn_moddle`` (bpmn-auto-layout is for ``benchmarks.bpmn_quality`` only).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

NODE_TIMEOUT_SECONDS = 600
DEFAULT_NODE_MODULES = "~/.cache/elrepo/npm"
#: the version docs/interchange.md's figures were taken with
BPMN_MODDLE_PACKAGE = "bpmn-moddle@10.3.1"
NPM_INSTALL_TIMEOUT_SECONDS = 300

# Reads each file given on standard input with bpmn-moddle, and with ``layout`` also lays it
# out with bpmn-auto-layout; answers one JSON object per file.
NODE_SCRIPT = """
import { readFileSync } from 'node:fs';
import { BpmnModdle } from 'bpmn-moddle';
const request = JSON.parse(readFileSync(0, 'utf8'));
const layoutProcess = request.layout ? (await import('bpmn-auto-layout')).layoutProcess : null;
const answers = [];
for (const file of request.files) {
  const xml = readFileSync(file, 'utf8');
  const answer = { file };
  try {
    const { warnings } = await new BpmnModdle().fromXML(xml);
    answer.warnings = warnings.map(warning => warning.message);
  } catch (error) {
    answer.warnings = ['not read: ' + error.message];
  }
  if (layoutProcess) {
    try { answer.autoLayout = await layoutProcess(xml); } catch (error) { answer.autoLayoutError = error.message; }
  }
  answers.push(answer);
}
process.stdout.write(JSON.stringify(answers));
"""


class NodeUnavailable(Exception):
    """node, npm or bpmn-moddle cannot be had here; the message says why."""


def _node_modules_folder(given: str | None) -> Path:
    return Path(given or os.environ.get("ELREPO_NODE_MODULES") or DEFAULT_NODE_MODULES).expanduser()


def _has_bpmn_moddle(folder: Path) -> bool:
    return (folder / "node_modules" / "bpmn-moddle").is_dir()


def node_modules_dir(given: str | None = None) -> Path | None:
    """The folder whose ``node_modules`` holds bpmn-moddle, when node is installed too."""
    if shutil.which("node") is None:
        return None
    path = _node_modules_folder(given)
    return path if _has_bpmn_moddle(path) else None


def installed_bpmn_moddle() -> Path:
    """``node_modules_dir()``, after installing bpmn-moddle there with npm when it is missing.
    Concurrent callers (test processes) take turns on a lock file, so only the first installs.
    Raises NodeUnavailable when node or npm is not on PATH or the install fails."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise NodeUnavailable(f"{tool} not found on PATH")
    folder = _node_modules_folder(None)
    if _has_bpmn_moddle(folder):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with _exclusive(folder / ".install.lock"):
        if not _has_bpmn_moddle(folder):  # unless the process we waited for installed it
            _npm_install(folder, BPMN_MODDLE_PACKAGE)
    return folder


@contextlib.contextmanager
def _exclusive(lock_file: Path) -> Iterator[None]:
    """Held until the block ends; a waiter waits at most one install's timeout."""
    with lock_file.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _npm_install(folder: Path, package: str) -> None:
    command = ["npm", "install", "--prefix", str(folder), "--save-exact", "--no-audit", "--no-fund",
               "--loglevel=error", package]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=NPM_INSTALL_TIMEOUT_SECONDS,
                              check=False)
    except subprocess.TimeoutExpired:
        raise NodeUnavailable(f"`{' '.join(command)}` took longer than {NPM_INSTALL_TIMEOUT_SECONDS} s") from None
    if done.returncode != 0 or not _has_bpmn_moddle(folder):
        # npm leads with the error code and message, then a stack and where its log is
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines()]
        said = " / ".join([line for line in lines if line and not line.startswith("npm error     at ")][:4])
        raise NodeUnavailable(f"`{' '.join(command)}` failed (exit {done.returncode}): {said or 'no output'}")


def run_node(folder: Path, files: Sequence[Path], auto_layout: bool) -> list[dict[str, Any]]:
    """bpmn-moddle's warnings for each file and, with ``auto_layout``, bpmn-auto-layout's output."""
    request = json.dumps({"files": [str(file.resolve()) for file in files], "layout": auto_layout})
    done = subprocess.run(["node", "--input-type=module", "-e", NODE_SCRIPT], input=request, cwd=folder,
                          capture_output=True, text=True, timeout=NODE_TIMEOUT_SECONDS, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"node failed: {done.stderr.strip().splitlines()[-1:]}")
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers
