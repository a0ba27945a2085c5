"""PNG rasterization and batch export, with a stub render function (no pipeline)."""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from renderer.export import ExportJob, export_many, safe_name, svg_to_png

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TINY_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">'
            '<rect x="1" y="1" width="118" height="38" fill="#eef" stroke="#000"/>'
            '<text x="10" y="25" font-family="Source Sans Pro" font-size="12">Hello</text></svg>')


def stub_render(fixture: dict[str, Any], layout_key: str, culture: int, *,
                default_culture: int) -> str:
    """Top-level (picklable) stand-in for renderer.api.render."""
    if fixture.get("fail"):
        raise RuntimeError("cannot render\nthis diagram")
    return TINY_SVG.replace("Hello", f"{fixture['label']} {layout_key} {culture} {default_culture}")


def png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def job(name: str, **fixture: Any) -> ExportJob:
    return ExportJob(name, "layered", {"label": name, **fixture}, 1031, default_culture=1036)


def test_png_has_signature_and_scaled_size() -> None:
    data = svg_to_png(TINY_SVG, scale=2.0)
    assert data.startswith(PNG_SIGNATURE)
    assert png_size(data) == (240, 80)
    assert png_size(svg_to_png(TINY_SVG)) == (120, 40)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf")])
def test_png_refuses_bad_scale(scale: float) -> None:
    with pytest.raises(ValueError):
        svg_to_png(TINY_SVG, scale)


@pytest.mark.parametrize(("name", "safe"), [
    ("Order to cash", "Order_to_cash"), ("../../etc/passwd", "_.._etc_passwd"), ("..", "_"),
    ("", "_"), ("a/b\\c:d", "a_b_c_d"), ("Prüfung-1.v2", "Pr_fung-1.v2"), (".hidden", "hidden"),
])
def test_safe_name(name: str, safe: str) -> None:
    assert safe_name(name) == safe


def test_export_writes_files_and_reports_failures(tmp_path: Path) -> None:
    jobs = [job("first"), job("broken", fail=True), job("third")]
    report = export_many(jobs, tmp_path / "out", "svg", jobs_parallel=1, progress=False,
                         render_fn=stub_render)
    out = tmp_path / "out"
    assert report.written == (out / "first.layered.svg", out / "third.layered.svg")
    assert "first layered 1031 1036" in report.written[0].read_text(encoding="utf-8")
    assert [(f.name, f.error) for f in report.failures] == [
        ("broken", "RuntimeError: cannot render this diagram")]
    assert not report.ok
    assert sorted(p.name for p in out.iterdir()) == ["first.layered.svg", "third.layered.svg"]


def test_export_names_cannot_leave_the_output_dir(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "out"
    report = export_many([job("../../escape"), job("/abs/path")], out, "svg", 1, False, stub_render)
    assert report.ok
    assert all(path.parent == out for path in report.written)
    names = sorted(p.name for p in out.iterdir())
    assert names == ["_.._escape.layered.svg", "_abs_path.layered.svg"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep"]


def test_export_reports_names_that_collide(tmp_path: Path) -> None:
    report = export_many([job("a/b"), job("a:b")], tmp_path, "svg", 1, False, stub_render)
    assert [p.name for p in report.written] == ["a_b.layered.svg"]
    assert [f.name for f in report.failures] == ["a:b"]
    assert "already used" in report.failures[0].error


def test_export_in_parallel_to_png(tmp_path: Path) -> None:
    jobs = [job(f"diagram-{i}") for i in range(5)] + [job("bad", fail=True)]
    report = export_many(jobs, tmp_path, "png", jobs_parallel=2, progress=False,
                         render_fn=stub_render)
    assert [p.name for p in report.written] == [f"diagram-{i}.layered.png" for i in range(5)]
    assert all(p.read_bytes().startswith(PNG_SIGNATURE) for p in report.written)
    assert [f.name for f in report.failures] == ["bad"]


def test_export_reports_a_render_fn_the_pool_cannot_send(tmp_path: Path) -> None:
    report = export_many([job("a"), job("b")], tmp_path, "svg", 2, False,
                         lambda fixture, layout, culture, *, default_culture: TINY_SVG)
    assert [f.name for f in report.failures] == ["a", "b"]
    assert all("pickle" in f.error.lower() for f in report.failures)


def test_export_leaves_no_temp_files_and_replaces_old_output(tmp_path: Path) -> None:
    (tmp_path / "first.layered.svg").write_text("old", encoding="utf-8")
    export_many([job("first")], tmp_path, "svg", 1, False, stub_render)
    assert [p.name for p in tmp_path.iterdir()] == ["first.layered.svg"]
    assert (tmp_path / "first.layered.svg").read_text(encoding="utf-8") != "old"


def test_export_progress_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export_many([job("a"), job("b")], tmp_path, "svg", 1, True, stub_render)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "2/2" in captured.err


def test_export_refuses_unknown_format_and_bad_parallelism(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="format"):
        export_many([], tmp_path, "gif", 1, False, stub_render)
    with pytest.raises(ValueError, match="jobs_parallel"):
        export_many([], tmp_path, "svg", 0, False, stub_render)
