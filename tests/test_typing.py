"""The engine's packages stay clean under mypy (STYLE.md habit 1)."""
from __future__ import annotations

import pytest

from tests.conftest import ROOT

mypy_api = pytest.importorskip("mypy.api", reason="mypy is a test extra")


def test_renderer_and_layouts_are_mypy_clean() -> None:
    stdout, stderr, status = mypy_api.run([str(ROOT / "renderer"), str(ROOT / "layouts"),
                                           "--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, stdout + stderr
