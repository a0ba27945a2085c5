"""Cycle breaking: which edges to draw against the flow.

Expects node indices ``0..n-1`` and directed edges between them (no self-loops).
Guarantees: reversing exactly the returned edges leaves a DAG, and the kept edges follow
the main flow. A depth-first search starts from the preferred roots (start events, then
other sources, then whatever a cycle with no source leaves over, in input order), so the
path from the start keeps its direction and only the edges that jump back to an ancestor
(rework loops) are reversed, as dot does.
"""
from __future__ import annotations

from collections.abc import Sequence


def feedback_edges(
    node_count: int, edges: Sequence[tuple[int, int]], preferred_roots: Sequence[int] = ()
) -> frozenset[int]:
    """Indices into ``edges`` of the edges to reverse."""
    successors: list[list[tuple[int, int]]] = [[] for _ in range(node_count)]
    has_predecessor = [False] * node_count
    for index, (source, target) in enumerate(edges):
        successors[source].append((target, index))
        has_predecessor[target] = True
    roots = list(preferred_roots)
    roots += [v for v in range(node_count) if not has_predecessor[v]]
    roots += range(node_count)

    unvisited, on_stack, done = 0, 1, 2
    state = [unvisited] * node_count
    reversed_edges: set[int] = set()
    for root in roots:
        if state[root] != unvisited:
            continue
        state[root] = on_stack
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            node, next_child = stack[-1]
            if next_child == len(successors[node]):
                state[node] = done
                stack.pop()
                continue
            stack[-1] = (node, next_child + 1)
            target, index = successors[node][next_child]
            if state[target] == on_stack:
                reversed_edges.add(index)
            elif state[target] == unvisited:
                state[target] = on_stack
                stack.append((target, 0))
    return frozenset(reversed_edges)
