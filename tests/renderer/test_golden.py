"""Golden SVGs of real process models in both flow layouts.

A change in the picture fails here; after looking at the new picture (rasterize the
``.obtained`` file), ``pytest tests/renderer/test_golden.py --force-regen`` accepts it.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree
from pytest_regressions.file_regression import FileRegressionFixture

from renderer.api import render
from tests.conftest import FIXTURES, ROOT, load_fixture

GOLDEN = ROOT / "golden"
CORPUS_FIXTURES = sorted((FIXTURES / "corpus").glob("*.json"))


def canonical(path: Path) -> bytes:
    parser = etree.XMLParser(remove_blank_text=True)
    return etree.tostring(etree.parse(str(path), parser), method="c14n")


def same_svg(obtained: Path, expected: Path) -> None:
    assert canonical(obtained) == canonical(expected), f"{obtained} differs from {expected}"


@pytest.mark.parametrize("layout", ["horizontal", "vertical"])
@pytest.mark.parametrize("fixture", CORPUS_FIXTURES, ids=[p.stem for p in CORPUS_FIXTURES])
def test_golden_flow(fixture: Path, layout: str, file_regression: FileRegressionFixture) -> None:
    svg = render(load_fixture(fixture), layout)
    file_regression.check(svg, fullpath=GOLDEN / layout / f"{fixture.stem}.svg", check_fn=same_svg)
