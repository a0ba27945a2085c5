"""Mined-style process models for readability runs (issue 21): what a process-mining tool
discovers from an event log, not what a modeller draws.

Activities in a rough order with many skips forward (choices), rework loops back over a
few steps, exclusive gateways where several paths split or join, and each activity
performed by an org unit (its lane) that changes now and then. Deterministic per seed;
the seeds a run uses are drawn from a seed of their own so that tuning does not look at
them (``benchmarks/readability.py --seed``).
"""
from __future__ import annotations

import random
from typing import Any

ACTIVITIES = ("Register claim", "Check documents", "Request missing data", "Assess damage", "Approve payment",
              "Reject claim", "Notify customer", "Archive case", "Escalate to expert", "Correct invoice")


def mined_fixture(size: int, seed: int, lanes: int = 5) -> dict[str, Any]:
    """A diagram fixture of about ``size`` shapes (activities, gateways, a start and an end)."""
    rng = random.Random(seed)
    activities = max(size * 2 // 3, 3)
    predecessors: list[set[int]] = [set() for _ in range(activities)]
    for index in range(1, activities):
        predecessors[index].add(index - 1)
        if index >= 3 and rng.random() < 0.3:  # a skip: some cases jump over a few steps
            predecessors[index].add(rng.randrange(max(0, index - 6), index - 1))
        if index >= 4 and rng.random() < 0.12:  # rework: back to an earlier step
            predecessors[rng.randrange(max(1, index - 5), index - 1)].add(index)
    return _with_gateways(predecessors, size, rng, lanes)


def _with_gateways(predecessors: list[set[int]], size: int, rng: random.Random, lanes: int) -> dict[str, Any]:
    """Shapes for the activities, an exclusive gateway before every activity with several
    predecessors and after every one with several successors, a start and an end."""
    successors: dict[int, set[int]] = {}
    for target, sources in enumerate(predecessors):
        for source in sources:
            successors.setdefault(source, set()).add(target)
    values: list[dict[str, Any]] = []

    def add(kind: str, name: str, preceding: list[int], lane: int | None) -> int:
        element: dict[str, Any] = {"id": f"el-{len(values)}", "type": kind,
                                   "attributes": {"name": {"1033": name}} if name else {}}
        if lane is not None:
            element["related"] = {"executedBy": [{"id": f"ou-{lane}"}]}
        values.append({"shapeInfo": {"index": len(values), "predecessors": preceding}, "element": element})
        return len(values) - 1

    start = add("evStart", "Case opened", [], None)
    entry: dict[int, int] = {}
    exit_of: dict[int, int] = {}
    lane = 0
    for activity in range(len(predecessors)):
        if rng.random() < 0.3:
            lane = rng.randrange(lanes)
        if len(predecessors[activity]) > 1:  # several ways in: they meet at a gateway
            entry[activity] = add("ruleXor", "", [], None)
            shape = add("task", _activity_name(activity), [entry[activity]], lane)
        else:
            shape = entry[activity] = add("task", _activity_name(activity), [], lane)
        split = len(successors.get(activity, ())) > 1
        exit_of[activity] = add("ruleXor", "", [shape], None) if split else shape
    for activity, sources in enumerate(predecessors):
        target = entry[activity]
        values[target]["shapeInfo"]["predecessors"] += sorted(exit_of[source] for source in sources)
    values[entry[0]]["shapeInfo"]["predecessors"].append(start)
    add("evEnd", "Case closed", [exit_of[len(predecessors) - 1]], None)
    org_units = [{"id": f"ou-{k}", "type": "orgUnit", "facetName": "organization",
                  "attributes": {"name": {"1033": f"Team {k}"}}} for k in range(lanes)]
    return {"diagram": {"id": f"mined-{size}", "type": "mainProcess",
                        "attributes": {"name": {"1033": f"Mined model of about {size} shapes"}}},
            "elements": org_units, "values": values}


def _activity_name(activity: int) -> str:
    return f"{ACTIVITIES[activity % len(ACTIVITIES)]} {activity}"
