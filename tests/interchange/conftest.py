"""Fixtures of the interchange tests: bpmn-moddle, the BPMN reader nobody here wrote."""
from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bpmn_io import NodeUnavailable, installed_bpmn_moddle


@pytest.fixture(scope="session")
def bpmn_moddle() -> Path:
    """The folder whose ``node_modules`` holds bpmn-moddle (for ``run_node``), installed with
    npm on first use (ELREPO_NODE_MODULES, else ~/.cache/elrepo/npm); the test is skipped,
    with the reason, only when node or npm is missing or the install fails."""
    try:
        return installed_bpmn_moddle()
    except NodeUnavailable as reason:
        pytest.skip(f"bpmn-moddle not available: {reason}")
