"""bpmn.io's npm packages as clients of our BPMN: bpmn-moddle (the BPMN reader of bpmn-js)
reads files and says what it warns about, bpmn-auto-layout lays them out for comparison.

They are looked for in the folder given, else ``ELREPO_NODE_MODULES``, else
``~/.cache/elrepo/npm`` (the folder holding ``node_modules``, as ``npm install --prefix
FOLDER bpmn-moddle bpmn-auto-layout`` makes it). The tests install bpmn-moddle alone there
with ``installed_bpmn_moddle`` (bpmn-auto-layout is for ``benchmarks.bpmn_quality`` only);
``installed_package`` installs any pinned package there (``benchmarks.elk``: elkjs), and
``NodeLines`` is a node process answering JSON lines, for the readers of both.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Self

NODE_TIMEOUT_SECONDS = 600
DEFAULT_NODE_MODULES = "~/.cache/elrepo/npm"
#: the version docs/interchange.md's figures were taken with
BPMN_MODDLE_PACKAGE = "bpmn-moddle@10.3.1"
NPM_INSTALL_TIMEOUT_SECONDS = 300

# Answers each request, a JSON line on standard input naming files, with a JSON line: for
# each file, bpmn-moddle's warnings and, when the request says ``layout``, bpmn-auto-layout's
# output. Node and bpmn-moddle load once for all the requests of a process.
NODE_SCRIPT = """
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { BpmnModdle } from 'bpmn-moddle';
let layoutProcess = null;
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const request = JSON.parse(line);
  if (request.layout && !layoutProcess) layoutProcess = (await import('bpmn-auto-layout')).layoutProcess;
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
    if (request.layout) {
      try { answer.autoLayout = await layoutProcess(xml); } catch (error) { answer.autoLayoutError = error.message; }
    }
    answers.push(answer);
  }
  process.stdout.write(JSON.stringify(answers) + '\\n');
}
"""


class NodeUnavailable(Exception):
    """node, npm or an npm package cannot be had here; the message says why."""


class NodeTimeout(RuntimeError):
    """A node process gave no answer within its time; it has been stopped."""


def _node_modules_folder(given: str | None) -> Path:
    return Path(given or os.environ.get("ELREPO_NODE_MODULES") or DEFAULT_NODE_MODULES).expanduser()


def _package_name(package: str) -> str:
    """``elkjs`` of ``elkjs@0.12.1``, ``@scope/name`` of ``@scope/name@1.0.0``."""
    return package.rpartition("@")[0] or package


def _has_package(folder: Path, package: str) -> bool:
    return (folder / "node_modules" / _package_name(package)).is_dir()


def node_modules_dir(given: str | None = None) -> Path | None:
    """The folder whose ``node_modules`` holds bpmn-moddle, when node is installed too."""
    if shutil.which("node") is None:
        return None
    path = _node_modules_folder(given)
    return path if _has_package(path, BPMN_MODDLE_PACKAGE) else None


def installed_bpmn_moddle() -> Path:
    """``node_modules_dir()``, after installing bpmn-moddle there with npm when it is missing."""
    return installed_package(BPMN_MODDLE_PACKAGE)


def installed_package(package: str) -> Path:
    """The folder (``ELREPO_NODE_MODULES``, else ``~/.cache/elrepo/npm``) whose
    ``node_modules`` holds ``package`` (``name@version``), installed there with npm when it
    is missing (any version found is used). Concurrent callers (test processes) take turns
    on a lock file, so only the first installs. Raises NodeUnavailable when node or npm is
    not on PATH or the install fails."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise NodeUnavailable(f"{tool} not found on PATH")
    folder = _node_modules_folder(None)
    if _has_package(folder, package):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with _exclusive(folder / ".install.lock"):
        if not _has_package(folder, package):  # unless the process we waited for installed it
            _npm_install(folder, package)
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
    if done.returncode != 0 or not _has_package(folder, package):
        # npm leads with the error code and message, then a stack and where its log is
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines()]
        said = " / ".join([line for line in lines if line and not line.startswith("npm error     at ")][:4])
        raise NodeUnavailable(f"`{' '.join(command)}` failed (exit {done.returncode}): {said or 'no output'}")


def run_node(folder: Path, files: Sequence[Path], auto_layout: bool) -> list[dict[str, Any]]:
    """bpmn-moddle's warnings for each file and, with ``auto_layout``, bpmn-auto-layout's output."""
    with ModdleReader(folder) as reader:
        return reader.read(files, auto_layout)


class NodeLines:
    """A node process running the ES module ``script`` in ``folder`` (where its imports are
    found) that answers each JSON line on its standard input with one JSON line."""

    def __init__(self, folder: Path, script: str) -> None:
        self._errors = tempfile.TemporaryFile()  # closed by close()
        self._process = subprocess.Popen(["node", "--input-type=module", "-e", script], cwd=folder,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors,
                                         text=True)

    def ask(self, request: Any, timeout: float = NODE_TIMEOUT_SECONDS) -> Any:
        """The process's answer to ``request``. Raises NodeTimeout, having stopped the
        process, past ``timeout`` seconds, and RuntimeError with node's error when it ended."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
        except BrokenPipeError:
            raise self._failed() from None
        if not select.select([stdout], [], [], timeout)[0]:
            self._process.kill()  # it may be busy for long yet: nothing else can stop it
            raise NodeTimeout(f"node gave no answer in {timeout:g} s")
        line = stdout.readline()
        if not line:
            raise self._failed()
        return json.loads(line)

    def _failed(self) -> RuntimeError:
        self._process.wait()
        self._errors.seek(0)
        lines = self._errors.read().decode(errors="replace").strip().splitlines()
        # node prints the error's source line, its message, its stack and its own version
        said = next((line for line in lines if "Error" in line), lines[-1] if lines else "no output")
        return RuntimeError(f"node failed (exit {self._process.returncode}): {said}")

    def close(self) -> None:
        if self._process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._errors.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class ModdleReader(NodeLines):
    """A node process that reads files with bpmn-moddle on request, for many requests:
    starting node and loading bpmn-moddle costs about 0.35 s, a small file a few ms."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder, NODE_SCRIPT)

    def read(self, files: Sequence[Path], auto_layout: bool = False) -> list[dict[str, Any]]:
        """What ``run_node`` answers, from this process."""
        answers: list[dict[str, Any]] = self.ask(
            {"files": [str(file.resolve()) for file in files], "layout": auto_layout})
        return answers
