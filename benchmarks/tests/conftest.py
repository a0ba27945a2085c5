"""ELK for the peer benchmarks' tests: skipped where node, npm or elkjs's install is missing."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.elk import ELKJS_PACKAGE, ElkTimer
from checks.bpmn_io import NodeUnavailable, installed_package


@pytest.fixture(scope="session")
def elkjs_folder() -> Path:
    """The folder holding elkjs, installed with npm on first use, as the benchmarks do."""
    try:
        return installed_package(ELKJS_PACKAGE)
    except NodeUnavailable as reason:
        pytest.skip(f"elkjs not available: {reason}")


@pytest.fixture
def elk_timer(elkjs_folder: Path) -> Iterator[ElkTimer]:
    with ElkTimer(elkjs_folder, timeout=60) as timer:
        yield timer
