"""The project's imports point one way: no module imports, at its top or inside a function,
a module that imports it back, so moving any import to the top of its module cannot break
the app (issue 20; docs/architecture.md).

Two checks: the import graph read from the source (every ``import``, wherever it stands)
has no cycle, and every module imports in a fresh interpreter whatever was imported
before it, in several shuffled orders. And one rule of the layers: the tests (and the
checking code in ``checks/``) never import the benchmarks.
"""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("layouts", "renderer", "interchange", "repository", "checks", "benchmarks")
#: Scripts another program runs in its own context (and ``__main__`` modules, which run
#: when imported), not modules to import.
SCRIPTS = frozenset(("repository.store.migrations.env", "repository.cli.__main__"))
#: Modules that need an optional extra (``pip install -e '.[distributed]'``) to import.
OPTIONAL = {"repository.distributed": "celery"}


def project_modules(packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported_names(module: str, path: Path) -> Iterator[str]:
    """Every dotted name an ``import`` of the module names, wherever it stands; for
    ``from p import x``, ``p.x`` (a submodule, or a name of ``p``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module → the project modules it imports. Importing a module first imports the
    packages around it, so an edge to one's own package is no edge."""
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for module, path in modules.items():
        for name in imported_names(module, path):
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                graph[module].add(name)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            successor = next(successors, None)
            if successor is not None:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                elif successor in on_stack:
                    low[node] = min(low[node], index[successor])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_circle_through_a_function_local_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n")
    (package / "b.py").write_text("def f() -> None:\n    from pkg import a\n")
    (package / "c.py").write_text("from . import a\n")
    modules = {f"pkg.{name}": package / f"{name}.py" for name in "abc"}
    assert cycles(import_graph(modules)) == [["pkg.a", "pkg.b"]]


def test_no_import_cycle_in_the_project() -> None:
    found = cycles(import_graph(project_modules()))
    assert not found, "import cycles (a module that imports one importing it back): " + "; ".join(
        " ↔ ".join(component) for component in found)


def test_tests_and_checks_never_import_the_benchmarks() -> None:
    """Checking code both need lives in ``checks/``; the benchmarks' own tests live beside
    them in ``benchmarks/tests/`` (docs/testing.md)."""
    importers = project_modules(("tests", "checks"))
    found = sorted(f"{module} imports {name}" for module, path in importers.items()
                   for name in imported_names(module, path) if name.split(".")[0] == "benchmarks")
    assert not found, "; ".join(found)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_module_imports_in_any_order(seed: int) -> None:
    missing = [module for module, extra in OPTIONAL.items() if not _importable(extra)]
    order = [module for module in project_modules() if module not in missing and module not in SCRIPTS]
    random.Random(seed).shuffle(order)
    script = ("import importlib, json, sys, traceback\n"
              "for name in json.loads(sys.argv[1]):\n"
              "    try:\n"
              "        importlib.import_module(name)\n"
              "    except Exception:\n"
              "        print(name, traceback.format_exc(limit=-2)); sys.exit(1)\n")
    result = subprocess.run([sys.executable, "-c", script, json.dumps(order)], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True
