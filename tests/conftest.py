"""Shared test helpers: where the fixtures and the shared corpus live."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"


def load_fixture(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def shared_dir() -> Path:
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared (corpus and tools) is not beside the project; it exists in CI and on developer machines")
    return SHARED
