"""Batch export of diagrams to SVG or PNG files, and SVG rasterization.

Expects jobs that each name a diagram fixture (docs/contract.md, "Diagram fixture
format") and a layout key, and a render function ``render(fixture, layout_key, culture,
default_culture=...) -> svg``. Guarantees: every job is tried, a failing one is reported and never stops the
others; each output file appears whole or not at all (temp file in the same directory,
then ``os.replace``); file names cannot leave ``out_dir``.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import secrets
import sys
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import resvg_py
from tqdm import tqdm

from renderer.culture import DEFAULT_CULTURE
from renderer.text import default_font_path

__all__ = [
    "FORMATS",
    "ExportFailure",
    "ExportJob",
    "ExportReport",
    "RenderFn",
    "export_many",
    "output_name",
    "safe_name",
    "svg_to_png",
]
FORMATS = ("svg", "png")
MAX_NAME_LENGTH = 120
MAX_ERROR_LENGTH = 300


class RenderFn(Protocol):
    """What ``renderer.api.render`` is to an export: SVG text of one job."""

    def __call__(self, fixture: dict[str, Any], layout_key: str, culture: int, *,
                 default_culture: int) -> str: ...


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """PNG bytes of ``svg`` at ``scale`` times its size, on white. resvg gets the
    directory of the shipped Source Sans Pro, the font the SVG names first and the one
    its text was measured with; system fonts stay available as fallback for scripts
    that font lacks."""
    if not (scale > 0 and scale < float("inf")):
        raise ValueError(f"scale must be a positive finite number, not {scale!r}")
    font_dir = str(default_font_path().parent)
    return bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=scale, font_dirs=[font_dir],
                                       background="#ffffff"))


@dataclass(frozen=True, slots=True)
class ExportJob:
    """One diagram to export: ``name`` becomes the file name (sanitized),
    ``fixture`` is a diagram fixture, ``culture`` the language of its texts and
    ``default_culture`` the one they fall back to (a tenant's default culture)."""

    name: str
    layout_key: str
    fixture: dict[str, Any]
    culture: int
    default_culture: int = DEFAULT_CULTURE


@dataclass(frozen=True, slots=True)
class ExportFailure:
    name: str
    error: str
    layout_key: str = ""


@dataclass(frozen=True, slots=True)
class ExportReport:
    """``written`` in job order; ``failures`` name the job and say in one line why."""

    written: tuple[Path, ...]
    failures: tuple[ExportFailure, ...]

    @property
    def ok(self) -> bool:
        return not self.failures


def safe_name(name: str) -> str:
    """``name`` reduced to ``[A-Za-z0-9._-]`` (anything else becomes ``_``), without
    leading dots and not too long, so it is one plain file name in the output
    directory: never a path, never hidden, never ``..``."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:MAX_NAME_LENGTH].lstrip(".")
    return cleaned or "_"


def output_name(job: ExportJob, fmt: str) -> str:
    """``<safe name>.<safe layout key>.<fmt>``."""
    return f"{safe_name(job.name)}.{safe_name(job.layout_key)}.{fmt}"


def export_many(jobs: Iterable[ExportJob], out_dir: Path, fmt: str = "svg",
                jobs_parallel: int = 1, progress: bool = False,
                render_fn: RenderFn | None = None) -> ExportReport:
    """Render and write every job; ``jobs_parallel`` > 1 uses that many processes
    (``render_fn`` must then be a picklable top-level function). ``render_fn``
    defaults to ``renderer.api.render``, imported only when needed. Jobs whose file
    name collides with an earlier job's are reported, not written over it."""
    if fmt not in FORMATS:
        expected = ", ".join(FORMATS)
        raise ValueError(f"unknown export format {fmt!r}; expected one of {expected}")
    if jobs_parallel < 1:
        raise ValueError("jobs_parallel must be at least 1")
    render = render_fn or _default_render()
    out_dir.mkdir(parents=True, exist_ok=True)
    todo, failures = _unique_jobs(list(jobs), fmt)
    outcomes: dict[int, Path | ExportFailure] = {}
    with tqdm(total=len(todo), disable=not progress, file=sys.stderr, unit="diagram") as bar:
        for index, outcome in _run(todo, out_dir, fmt, jobs_parallel, render):
            outcomes[index] = outcome
            bar.update(1)
    written = tuple(o for _, o in sorted(outcomes.items()) if isinstance(o, Path))
    failed = [o for _, o in sorted(outcomes.items()) if isinstance(o, ExportFailure)]
    return ExportReport(written, tuple(failures + failed))


def _default_render() -> RenderFn:
    from renderer.api import render

    return render


def _unique_jobs(jobs: list[ExportJob],
                 fmt: str) -> tuple[list[ExportJob], list[ExportFailure]]:
    """Jobs to run (first of each output name) and failures for the later duplicates."""
    seen: set[str] = set()
    todo: list[ExportJob] = []
    failures: list[ExportFailure] = []
    for job in jobs:
        name = output_name(job, fmt)
        if name in seen:
            error = f"output file {name} is already used by another job"
            failures.append(ExportFailure(job.name, error, job.layout_key))
        else:
            seen.add(name)
            todo.append(job)
    return todo, failures


def _run(jobs: list[ExportJob], out_dir: Path, fmt: str, parallel: int,
         render: RenderFn) -> Iterable[tuple[int, Path | ExportFailure]]:
    """(job index, outcome) as jobs finish, in this process or in a pool."""
    if parallel == 1 or len(jobs) < 2:
        for index, job in enumerate(jobs):
            yield index, _export_one(job, out_dir, fmt, render)
        return
    with ProcessPoolExecutor(max_workers=parallel, mp_context=_worker_context()) as pool:
        futures = {pool.submit(_export_one, job, out_dir, fmt, render): index
                   for index, job in enumerate(jobs)}
        for future in as_completed(futures):
            yield futures[future], _outcome(future, jobs[futures[future]])


def _worker_context() -> multiprocessing.context.BaseContext:
    """A fork server's workers (Python 3.14's default), not forks of this process: a fork
    copies every lock another thread holds (a server's render pool, a test runner's
    threads, a progress bar's monitor) and a child could wait on one forever. Costs
    about a second at the pool's start, once per export."""
    return multiprocessing.get_context("forkserver")


def _outcome(future: Future[Path | ExportFailure], job: ExportJob) -> Path | ExportFailure:
    """The worker's result, or a failure when the job never ran (e.g. a render
    function that cannot be pickled, a worker that died)."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001 - any failure of one job is reported
        return ExportFailure(job.name, _one_line(exc), job.layout_key)


def _export_one(job: ExportJob, out_dir: Path, fmt: str,
                render: RenderFn) -> Path | ExportFailure:
    """Render one job and write its file; any error becomes this job's failure."""
    try:
        svg = render(job.fixture, job.layout_key, job.culture,
                     default_culture=job.default_culture)
        data = svg.encode("utf-8") if fmt == "svg" else svg_to_png(svg)
        return _write_atomic(out_dir / output_name(job, fmt), data)
    except Exception as exc:  # noqa: BLE001 - any failure of one job is reported
        return ExportFailure(job.name, _one_line(exc), job.layout_key)


def _write_atomic(path: Path, data: bytes) -> Path:
    """Readers see the old file or the whole new one, never a partial write. The temp
    file is opened with mode 0o666 so the umask, not a private 0o600, decides the
    permissions of the result."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return path


def _one_line(exc: BaseException) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text[:MAX_ERROR_LENGTH]
