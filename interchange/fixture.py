"""``BpmnModel`` → diagram fixture (docs/contract.md, "Diagram fixture format").

Expects a model from ``read_model``. Guarantees: one shape per flow node and data
reference of a scope (the process level by default, or one sub-process), in document
order, predecessors from sequence flows (a boundary event also follows its host, so it
is drawn beside it); lanes and pools become ``orgUnit`` elements (a pool's children are
its top lanes, a lane's its child lanes) and each shape is ``executedBy`` the lane it is
drawn in; the diagram keeps its BPMN type (``interchange.kept``), so that it is drawn in
BPMN's notation (``interchange.drawing``). Text annotations have no element type and are
left out; self-loops too (the contract forbids them).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from interchange.kept import BPMN_TYPE
from interchange.model import ANNOTATION, FLOW_NODE, BpmnModel, BpmnNode
from renderer.culture import LANGUAGE_NEUTRAL, text_keyed

ORGANIZATION_FACET = "organization"
#: The flows that tie an artifact (data reference, annotation) to the node whose band it
#: takes; never a message flow, whose ends each stay in their own pool.
ARTIFACT_LINKS = frozenset(("association", "dataInputAssociation", "dataOutputAssociation"))


@dataclass(frozen=True, slots=True)
class ScopeFixture:
    """A fixture and the BPMN id of each of its shapes (``bpmn_ids[index]``)."""

    fixture: dict[str, Any]
    bpmn_ids: tuple[str, ...]

    @property
    def shape_index(self) -> dict[str, int]:
        return {bpmn_id: index for index, bpmn_id in enumerate(self.bpmn_ids)}


def uses_lanes(model: BpmnModel) -> bool:
    """Whether the model needs bands: it has lanes, or more than one pool."""
    return bool(model.lanes) or len(model.pools) > 1


def lane_keys(model: BpmnModel) -> dict[str, str]:
    """Node id → the band it is drawn in: its deepest lane, else its pool (or process).
    A data reference or annotation without a lane takes the band of a node it is
    associated with. Empty when the model needs no bands: no lanes and no pool, or one
    black-box pool. (One pool without lanes is its own band, drawn and imported as the
    pool, not as an invented "Unassigned" lane; the layout of a file still draws that
    pool around the whole drawing, ``uses_lanes``.)"""
    if not uses_lanes(model) and not any(pool.process for pool in model.pools):
        return {}
    keys: dict[str, str] = {}
    for node in model.nodes:
        if node.lane:
            keys[node.id] = node.lane
    # artifacts follow their partner; a flow node stays in its own pool, whatever it messages
    artifacts = {node.id for node in model.nodes if node.kind != FLOW_NODE}
    for flow in model.flows:
        if flow.tag not in ARTIFACT_LINKS:
            continue
        for artifact, partner in ((flow.source, flow.target), (flow.target, flow.source)):
            if artifact in artifacts and artifact not in keys and partner in keys:
                keys[artifact] = keys[partner]
    default_band = model.pools[0].id if model.pools else model.plane_element
    for node in model.nodes:
        if node.id not in keys:
            pool = model.pool_of_process(node.process)
            keys[node.id] = pool.id if pool else (node.process or default_band)
    return keys


def scope_nodes(model: BpmnModel, scope: str | None) -> list[BpmnNode]:
    """The nodes drawn in one scope: the process level (None) or one sub-process."""
    return [node for node in model.nodes if node.parent == scope]


def scope_fixture(model: BpmnModel, nodes: Sequence[BpmnNode], bands: Mapping[str, str]) -> ScopeFixture:
    drawn = [node for node in nodes if node.kind != ANNOTATION]
    index = {node.id: position for position, node in enumerate(drawn)}
    predecessors: dict[str, list[int]] = {node.id: [] for node in drawn}
    for flow in model.flows:
        if flow.tag == "sequenceFlow" and flow.source in index and flow.target in predecessors \
                and flow.source != flow.target:
            predecessors[flow.target].append(index[flow.source])
    for node in drawn:
        if node.attached_to in index:
            predecessors[node.id].append(index[str(node.attached_to)])
    values = [{
        "shapeInfo": {"index": index[node.id], "predecessors": predecessors[node.id]},
        "element": {"id": node.id, "type": node.shape_type, "attributes": _name(node.names),
                    **({"related": {"executedBy": [{"id": bands[node.id]}]}} if node.id in bands else {})},
    } for node in drawn]
    fixture = {
        "diagram": {"id": model.plane_element, "type": "mainProcess",
                    "attributes": {**_name(model.pools[0].names if len(model.pools) == 1 else {}),
                                   BPMN_TYPE: {str(LANGUAGE_NEUTRAL): "collaboration" if model.pools else "process"}}},
        "elements": _org_units(model) if bands else [],
        "values": values,
    }
    return ScopeFixture(fixture, tuple(node.id for node in drawn))


def _org_units(model: BpmnModel) -> list[dict[str, Any]]:
    """Pools (or processes without a pool) and lanes as org units, parents first."""
    units: list[dict[str, Any]] = []
    holders = [(pool.id, pool.process, pool.names) for pool in model.pools]
    holders += [(process, process, {}) for process in model.processes if model.pool_of_process(process) is None]
    for holder_id, process, names in holders:
        top_lanes = [lane.id for lane in model.lanes if lane.process == process and lane.parent is None]
        units.append(_unit(holder_id, names, top_lanes if process else []))
    for lane in model.lanes:
        units.append(_unit(lane.id, lane.names, [child.id for child in model.lanes if child.parent == lane.id]))
    return units


def _unit(unit_id: str, names: Mapping[int, str], children: Iterable[str]) -> dict[str, Any]:
    unit: dict[str, Any] = {"id": unit_id, "type": "orgUnit", "facetName": ORGANIZATION_FACET,
                            "attributes": _name(names)}
    child_refs = [{"id": child} for child in children]
    if child_refs:
        unit["children"] = child_refs
    return unit


def _name(names: Mapping[int, str]) -> dict[str, Any]:
    return {"name": text_keyed(names)} if names else {}
