"""Fixtures of the interchange tests: the BPMN files they lay out, and bpmn-moddle, the BPMN
reader nobody here wrote."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from checks.bpmn_io import ModdleReader, NodeUnavailable, installed_bpmn_moddle
from tests.conftest import FIXTURES, SHARED

#: the BPMN files of ../shared/corpus (none when ../shared is not beside the project)
CORPUS = sorted((SHARED / "corpus").glob("*/bpmn/*.bpmn"))
#: the BPMN files of tests/fixtures/bpmn
FIXTURE_FILES = sorted((FIXTURES / "bpmn").glob("*.bpmn"))

#: bpmn-moddle's answer for each file read: ``{"file": ..., "warnings": [...]}``
ReadWithModdle = Callable[[Sequence[Path]], list[dict[str, Any]]]


@pytest.fixture(scope="session")
def read_with_moddle() -> Iterator[ReadWithModdle]:
    """Reads files with bpmn-moddle, installed with npm on first use (ELREPO_NODE_MODULES,
    else ~/.cache/elrepo/npm), in one node process per test process. When node or npm is
    missing or the install fails, a call skips the test (or subtest) calling it, with the reason."""
    try:
        folder = installed_bpmn_moddle()
    except NodeUnavailable as reason:
        missing = f"bpmn-moddle not available: {reason}"

        def skip(_: Sequence[Path]) -> list[dict[str, Any]]:
            pytest.skip(missing)

        yield skip
        return
    with ModdleReader(folder) as reader:
        yield reader.read
