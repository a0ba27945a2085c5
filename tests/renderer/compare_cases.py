"""Hand-made versions of a demo diagram for the compare tests and goldens: the older
version with explicit shape ids (the demo's own are made from positions, which an edit
shifts), and a newer one with one task added, one renamed and one removed."""
from __future__ import annotations

import copy
from typing import Any

from tests.demo_fixtures import demo_fixture

ADDED_SHAPE = "shape-new"
RENAMED_SHAPE = "shape-12"
REMOVED_SHAPE = "shape-9"


def with_shape_ids(fixture: dict[str, Any]) -> dict[str, Any]:
    """``fixture`` with every shape's id written out."""
    fixture = copy.deepcopy(fixture)
    for value in fixture["values"]:
        info = value["shapeInfo"]
        info.setdefault("id", f"shape-{info['index']}")
    return fixture


def older() -> dict[str, Any]:
    """The demo's credit check with explicit shape ids."""
    return with_shape_ids(demo_fixture("credit-check"))


def newer(old: dict[str, Any]) -> dict[str, Any]:
    """``old`` (``older()``) edited: a task added after the first task, the task
    "Request documents from customer" renamed, "Obtain exception approval" removed."""
    new = copy.deepcopy(old)
    by_id = {value["shapeInfo"]["id"]: value for value in new["values"]}
    renamed = by_id[RENAMED_SHAPE]["element"]["attributes"]["name"]
    renamed.update({"1031": "Fehlende Unterlagen beim Kunden nachfordern",
                    "1033": "Ask the customer for the missing documents"})
    return edited(new, insert_after="shape-1", remove=REMOVED_SHAPE)


def edited(fixture: dict[str, Any], insert_after: str, remove: str, added: str = ADDED_SHAPE) -> dict[str, Any]:
    """A task (shape id ``added``) inserted on the flow leaving ``insert_after`` and the
    shape ``remove`` cut out (its predecessors joined to its successors); indices
    renumbered, ids kept."""
    fixture = copy.deepcopy(fixture)
    values = fixture["values"]
    ids = {value["shapeInfo"]["index"]: value["shapeInfo"]["id"] for value in values}
    predecessors = {value["shapeInfo"]["id"]: [ids[i] for i in value["shapeInfo"]["predecessors"]]
                    for value in values}
    removed_before = predecessors.pop(remove)
    for shape_id, before in predecessors.items():
        if remove in before:
            predecessors[shape_id] = list(dict.fromkeys(
                [p for p in before if p != remove] + [p for p in removed_before if p not in before]))
        if before == [insert_after]:
            predecessors[shape_id] = [added]
    predecessors[added] = [insert_after]
    task = {"id": added.replace("shape-", "element-"), "type": "task", "facetName": "processes",
            "attributes": {"name": {"1031": "Vertragsdaten erfassen", "1033": "Record contract data"}},
            "related": {}}
    kept = [value for value in values if value["shapeInfo"]["id"] != remove]
    at = next(i for i, value in enumerate(kept) if value["shapeInfo"]["id"] == insert_after) + 1
    kept.insert(at, {"shapeInfo": {"id": added}, "element": task})
    index = {value["shapeInfo"]["id"]: i for i, value in enumerate(kept)}
    for value in kept:
        shape_id = value["shapeInfo"]["id"]
        value["shapeInfo"] = {"index": index[shape_id], "id": shape_id,
                              "predecessors": [index[p] for p in predecessors[shape_id]]}
    return {**fixture, "values": kept}
