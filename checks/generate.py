"""Deterministic diagram fixtures of an exact size, for the benchmarks and the tests of
large and dense input: process flows (sequences with nested XOR and AND blocks, rework
loops and early exits) and task graphs of given predecessor lists (complete, random, fans,
chains with long links)."""
from __future__ import annotations

import random
from typing import Any


class _FlowBuilder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.items: list[dict[str, Any]] = []

    def add(self, element_type: str, predecessors: list[int], name: str = "") -> int:
        index = len(self.items)
        attributes = {"name": {"1033": name}} if name else {}
        self.items.append({"shapeInfo": {"index": index, "predecessors": list(predecessors)},
                           "element": {"type": element_type, "attributes": attributes}})
        return index

    def task(self, predecessors: list[int]) -> int:
        return self.add("task", predecessors, f"Task {len(self.items)} " + self.rng.choice(
            ("check order", "approve request", "update record", "notify customer", "prepare offer")))

    def block(self, entry: int, budget: int, depth: int) -> tuple[int, int]:
        """A fragment of about ``budget`` shapes after ``entry``; returns (last, used)."""
        start = len(self.items)
        last = entry
        while len(self.items) - start < budget - 1:
            remaining = budget - (len(self.items) - start)
            roll = self.rng.random()
            if depth < 3 and remaining > 8 and roll < 0.35:
                gateway = self.rng.choice(("ruleXor", "ruleAnd"))
                split = self.add(gateway, [last])
                branches = self.rng.randint(2, 3)
                ends = []
                for _ in range(branches):
                    end, _ = self.block(split, max(1, (remaining - 2) // (branches + 1)), depth + 1)
                    ends.append(end)
                last = self.add(gateway, ends)
            elif remaining > 4 and roll < 0.45:
                body = self.task([last])
                check = self.add("ruleXor", [body], "OK?")
                self.items[body]["shapeInfo"]["predecessors"].append(check)  # rework loop
                last = check
            else:
                last = self.task([last])
        return last, len(self.items) - start


def generate_flow(size: int, seed: int = 7) -> dict[str, Any]:
    """A diagram fixture with exactly ``size`` shapes."""
    builder = _FlowBuilder(seed)
    start = builder.add("evStart", [], "Start")
    last, _ = builder.block(start, max(size - 2, 1), 0)
    while len(builder.items) < size - 1:
        last = builder.task([last])
    if len(builder.items) < size:
        builder.add("evEnd", [last], "End")
    builder.items = builder.items[:size]
    for item in builder.items:
        item["shapeInfo"]["predecessors"] = [p for p in item["shapeInfo"]["predecessors"] if p < size]
    return {"diagram": {"id": f"generated-{size}", "type": "mainProcess",
                        "attributes": {"name": {"1033": f"Generated flow of {size} shapes"}}},
            "elements": [], "values": builder.items}


def dag_fixture(name: str, predecessors: list[list[int]], lanes: int = 0,
                related: int = 0, hierarchy: bool = False) -> dict[str, Any]:
    """A diagram fixture of task shapes with the given predecessor lists. ``lanes`` > 0
    puts shape ``i`` in org unit ``i % lanes`` (its lane in the swimlane layouts, a
    satellite in ``detailed``); ``related`` > 0 also relates every shape to that many
    other shapes' elements (entity-relationship edges); ``hierarchy`` makes every shape
    element a child of the diagram (the ``graphic`` boxes)."""
    count = len(predecessors)
    org_units = [{"id": f"ou-{k}", "type": "orgUnit", "facetName": "organization",
                  "attributes": {"name": {"1033": f"Unit {k}"}}} for k in range(lanes)]
    values = []
    for index, preceding in enumerate(predecessors):
        element: dict[str, Any] = {"id": f"el-{index}", "type": "task",
                                   "attributes": {"name": {"1033": f"Task {index}"}}}
        links: dict[str, list[dict[str, str]]] = {}
        if lanes:
            links["executedBy"] = [{"id": f"ou-{index % lanes}"}]
        if related:
            links["hasOutput"] = [{"id": f"el-{(index * 7 + step * 13 + 1) % count}"} for step in range(related)]
        if links:
            element["related"] = links
        values.append({"shapeInfo": {"index": index, "predecessors": list(preceding)}, "element": element})
    diagram: dict[str, Any] = {"id": name, "type": "mainProcess", "attributes": {"name": {"1033": name}}}
    if hierarchy:
        diagram["children"] = [{"id": f"el-{index}"} for index in range(count)]
    shape_elements = [dict(value["element"]) for value in values] if related or hierarchy else []
    return {"diagram": diagram, "elements": org_units + shape_elements, "values": values}


def complete_dag(size: int) -> list[list[int]]:
    """Shape ``i`` follows every earlier shape: the densest DAG, ``size * (size-1) / 2`` links."""
    return [list(range(index)) for index in range(size)]


def random_dag(size: int, density: float, seed: int = 7) -> list[list[int]]:
    """An Erdős–Rényi DAG: each pair ``i < j`` linked with probability ``density``,
    plus a link from ``i-1`` so the graph is one component."""
    rng = random.Random(seed)
    return [sorted({index - 1} | {p for p in range(index - 1) if rng.random() < density}) if index else []
            for index in range(size)]


def fan(width: int) -> list[list[int]]:
    """One start fanning out to ``width`` shapes that all fan in to one end."""
    return [[], *([0] for _ in range(width)), list(range(1, width + 1))]


def chain_with_long_links(size: int, links: int, seed: int = 7, backward: float = 0.0) -> list[list[int]]:
    """A chain of ``size`` shapes plus random links between distant shapes, up to
    ``links`` in all; ``backward`` is the share of them that point back (cycles)."""
    rng = random.Random(seed)
    predecessors = [{index - 1} if index else set() for index in range(size)]
    extra = max(links - (size - 1), 0)
    while extra:
        a, b = rng.randrange(size), rng.randrange(size)
        if abs(a - b) < 2:
            continue
        source, target = (max(a, b), min(a, b)) if rng.random() < backward else (min(a, b), max(a, b))
        if source not in predecessors[target]:
            predecessors[target].add(source)
            extra -= 1
    return [sorted(preceding) for preceding in predecessors]
