"""Shared test helpers: where the fixtures and the shared corpus live, XML attribute reads,
and the markers of the test lanes (docs/testing.md): a test that reads ../shared/corpus is
``corpus``, one that drives Chromium is ``browser``, both found here from what the test
uses; ``slow`` is marked in the test modules themselves."""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"

# `elrepo render` run as a program would start a resident renderer that outlives the
# test (docs/cli.md); tests/repository/test_cli_resident.py turns it on for its own runs.
os.environ["ELREPO_RESIDENT"] = "0"
# A render's deadline is the service's answer to a slow diagram, not to a slow machine:
# tests that are not about deadlines render under one no loaded machine reaches (the
# servers they start inherit it); tests of the deadline set their own, in the app's
# config or the server's environment. Likewise the database statement deadline (15 s by
# default: a 5,000-shape write on SQLite passed it on a loaded machine).
RENDER_SECONDS = 300
os.environ["ELREPO_RENDER_TIMEOUT"] = str(RENDER_SECONDS)
os.environ["ELREPO_STATEMENT_TIMEOUT"] = str(RENDER_SECONDS)


def load_fixture(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def attribute(element: etree._Element, name: str) -> str:
    """The attribute's value; a missing one fails the test."""
    value = element.get(name)
    assert value is not None, f"{name} missing on {element.tag!r}"
    return value


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouping = config.pluginmanager.hasplugin("xdist")  # it registers `xdist_group`
    for item in items:
        if reads_the_corpus(item):
            item.add_marker(pytest.mark.corpus)
        if "browser" in getattr(item, "fixturenames", ()):  # tests/viewer/conftest.py
            item.add_marker(pytest.mark.browser)
        group = module_fixture_group(item) if grouping else None
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Says so when ``--dist loadgroup`` lost the groups: pytest-xdist's worker writes a
    test's group into its id, which pytest 9.2 no longer reads (pytest-xdist issue 1386),
    and the groups' tests are then spread one by one, their module fixtures set up on
    each worker (pyproject's test extra keeps pytest below 9.2)."""
    if not getattr(session.config.option, "loadgroup", False):  # set in xdist's workers alone
        return
    lost = [item.nodeid for item in session.items
            if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid]
    if lost:
        warnings.warn(pytest.PytestConfigWarning(
            f"--dist loadgroup ignores the xdist_group of {len(lost)} tests under pytest {pytest.__version__}"
            " (pytest-xdist issue 1386): their module fixtures are set up on every worker; install pytest<9.2"),
            stacklevel=1)


def module_fixture_group(item: pytest.Item) -> str | None:
    """The tests that share a module-scoped fixture (a running `elrepo serve`, a warm
    resident renderer, a loaded demo) run on one pytest-xdist worker under `--dist
    loadgroup` (pyproject's addopts): spread test by test, each worker that got one of
    them started its own server, so most modules' servers started twice. Every other
    test is still spread one by one."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    shared = sorted(name for name, definitions in info.name2fixturedefs.items()
                    if definitions and definitions[-1].scope == "module")
    return f"{item.nodeid.split('::')[0]}::{shared[0]}" if shared else None


def reads_the_corpus(item: pytest.Item) -> bool:
    """Whether the test uses ``shared_dir`` (itself or through its fixtures) or is
    parametrized with a file of ../shared/corpus."""
    if "shared_dir" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    return any(isinstance(value, Path) and value.is_relative_to(SHARED / "corpus") for value in params)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared (corpus and tools) is not beside the project; it exists in CI and on developer machines")
    return SHARED
