"""The engine's identity: what decides the rendered bytes besides the input.

Caches of rendered SVG (the service's render cache, shared in Redis by several servers)
put it into their keys, so pictures of another engine version are never served.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
from importlib import metadata
from pathlib import Path

#: The packages whose source decides the bytes (``interchange`` draws BPMN's notation);
#: their digest is part of the key.
ENGINE_PACKAGES = ("renderer", "layouts", "interchange")
#: Distributions whose versions shape the bytes: the engine itself (its SVG writer
#: included), the layout solver (HiGHS in highspy: another HiGHS version may pick another
#: of several optimal placements), the font and its metrics reader.
#: Servers sharing one Redis with different versions of these never mix their pictures.
OUTPUT_DISTRIBUTIONS = ("elrepo", "highspy", "fonttools", "font-source-sans-pro")


@functools.cache
def engine_version() -> str:
    """What decides the rendered bytes besides the input, read once per process: a
    digest of the engine's source and the versions of the distributions it uses.

    The digest stands in for a revision constant bumped by hand: a development checkout
    (and many a deployment) keeps its `elrepo` version while the renderer changes, and
    a forgotten bump would serve yesterday's pictures from a shared Redis."""
    parts = [f"engine-source={source_digest()}"]
    for name in OUTPUT_DISTRIBUTIONS:
        try:
            parts.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:  # a checkout run without installing
            parts.append(f"{name}=unknown")
    return ";".join(parts)


def source_digest() -> str:
    """16 hex digits over every module of the engine's packages, found without importing."""
    digest = hashlib.sha256()
    for package in ENGINE_PACKAGES:
        spec = importlib.util.find_spec(package)  # locates without importing
        for root in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(root).rglob("*.py")):
                digest.update(f"{package}/{path.relative_to(root).as_posix()}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
