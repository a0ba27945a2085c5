"""Weakly connected components of a directed graph on node indices ``0..n-1``."""
from __future__ import annotations

from collections.abc import Sequence


def weak_components(node_count: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    """A component label per node (union-find); nodes share a label exactly when an
    undirected path joins them."""
    parent = list(range(node_count))

    def find(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for source, target in edges:
        parent[find(source)] = find(target)
    return [find(v) for v in range(node_count)]
