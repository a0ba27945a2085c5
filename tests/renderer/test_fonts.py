"""Self-contained text (docs/contract.md, "SVG contract"; docs/svg.md, "Font"): every SVG
embeds, as a WOFF2 ``data:`` URL in its own ``<style>``, the subset of the measured face
that holds exactly the characters it draws, with the same bytes on every run; the
embedded face alone draws the text."""
from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import resvg_py
from fontTools.ttLib import TTFont
from lxml import etree

from renderer.api import render
from renderer.culture import GERMAN
from renderer.text import EMBEDDED_FAMILY, default_font_path, font_subset_woff2
from tests.demo_fixtures import demo_fixture

SVG = "{http://www.w3.org/2000/svg}"
FACE = re.compile(r"@font-face\{font-family:'([^']+)';src:url\(data:font/woff2;base64,([A-Za-z0-9+/=]+)\) "
                  r"format\('woff2'\)\}")


def embedded(svg: str) -> tuple[str, TTFont]:
    """The family name and the face of the document's ``@font-face``."""
    root = etree.fromstring(svg.encode())
    style = root[0]
    assert style.tag == f"{SVG}style"
    match = FACE.fullmatch(style.text or "")
    assert match is not None
    data = base64.b64decode(match.group(2))
    assert data[:4] == b"wOF2"
    return match.group(1), TTFont(io.BytesIO(data))


def drawn_characters(svg: str) -> set[str]:
    root = etree.fromstring(svg.encode())
    return {ch for element in root.iter(f"{SVG}text", f"{SVG}tspan") for ch in (element.text or "")}


def test_the_svg_embeds_the_glyphs_it_draws_and_no_others() -> None:
    for key in ("horizontalSwimlane", "processMatrix"):
        svg = render(demo_fixture("order-to-cash"), key, culture=GERMAN)
        family, face = embedded(svg)
        assert family == EMBEDDED_FAMILY
        assert {chr(code) for code in face.getBestCmap()} == drawn_characters(svg)
        assert "GPOS" not in face and "GSUB" not in face  # widths are the measured advances


def test_the_embedded_font_has_the_same_bytes_on_every_run() -> None:
    first = render(demo_fixture("order-to-cash"), "horizontal", culture=GERMAN)
    font_subset_woff2.cache_clear()
    assert render(demo_fixture("order-to-cash"), "horizontal", culture=GERMAN) == first


def test_the_embedded_font_alone_draws_the_text(tmp_path: Path) -> None:
    """resvg reads no ``@font-face`` (it loads fonts from files only), so the embedded
    face is written to a file and given to a resvg that loads no system font: it draws
    the text, as the full face does, where resvg without fonts draws none."""
    svg = render(demo_fixture("credit-check"), "horizontal")
    _, face = embedded(svg)
    face.flavor = None
    subset = tmp_path / "embedded.ttf"
    face.save(str(subset))

    def raster(*fonts: Path) -> bytes:
        return bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff", skip_system_fonts=True,
                                           font_files=[str(font) for font in fonts]))

    without_text = raster()
    with_embedded = raster(subset)
    assert with_embedded != without_text
    assert len(with_embedded) > len(without_text) * 1.2  # glyph edges are much of a PNG's bytes
    assert abs(len(with_embedded) - len(raster(default_font_path()))) < 0.05 * len(with_embedded)
