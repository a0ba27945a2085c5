"""Deterministic process flows of an exact size for benchmarks: sequences with nested
XOR and AND blocks, rework loops and early exits, written as diagram fixtures."""
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
