"""How the tests get bpmn-moddle: installed once with npm when missing, a clear reason when not.

Stand-in ``node`` and ``npm`` scripts on PATH play the real ones, so these run without a network."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from checks.bpmn_io import BPMN_MODDLE_PACKAGE, NodeUnavailable, installed_bpmn_moddle

# Logs its call, takes a while (so that concurrent callers overlap), then installs like npm.
INSTALLING_NPM = """#!/bin/sh
PATH=/usr/bin:/bin
echo "$*" >> "$CALLS"
sleep 0.3
mkdir -p "$3/node_modules/bpmn-moddle"
"""
FAILING_NPM = """#!/bin/sh
echo "npm error code E404" >&2
echo "npm error     at fetch (lib/index.js:1:1)" >&2
echo "npm error 404 Not Found - GET https://registry.npmjs.org/bpmn-moddle" >&2
exit 1
"""


def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, npm: str | None) -> Path:
    """A PATH with only a stand-in node and, unless None, this npm; ELREPO_NODE_MODULES in tmp_path."""
    tools = tmp_path / "bin"
    tools.mkdir()
    scripts = {"node": "#!/bin/sh\n"} | ({"npm": npm} if npm is not None else {})
    for name, text in scripts.items():
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    folder = tmp_path / "npm"
    monkeypatch.setenv("ELREPO_NODE_MODULES", str(folder))
    return folder


def npm_arguments(folder: Path) -> str:
    return f"install --prefix {folder} --save-exact --no-audit --no-fund --loglevel=error {BPMN_MODDLE_PACKAGE}"


def test_a_missing_bpmn_moddle_is_installed_once_for_concurrent_callers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = stand_ins(tmp_path, monkeypatch, INSTALLING_NPM)
    found: list[Path] = []
    callers = [threading.Thread(target=lambda: found.append(installed_bpmn_moddle())) for _ in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert found == [folder] * 3
    assert (tmp_path / "calls").read_text().splitlines() == [npm_arguments(folder)]
    assert installed_bpmn_moddle() == folder  # found: npm is not asked again
    assert len((tmp_path / "calls").read_text().splitlines()) == 1


def test_a_failed_install_says_what_npm_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = stand_ins(tmp_path, monkeypatch, FAILING_NPM)
    with pytest.raises(NodeUnavailable) as failed:
        installed_bpmn_moddle()
    assert str(failed.value) == (
        f"`npm {npm_arguments(folder)}` failed (exit 1): "
        "npm error code E404 / npm error 404 Not Found - GET https://registry.npmjs.org/bpmn-moddle")
    assert not (folder / "node_modules").exists()


def test_without_npm_nothing_is_tried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = stand_ins(tmp_path, monkeypatch, None)
    with pytest.raises(NodeUnavailable, match="^npm not found on PATH$"):
        installed_bpmn_moddle()
    assert not folder.exists()
