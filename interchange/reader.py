"""BPMN 2.0 XML → ``BpmnModel``: processes, collaboration, lanes, flows, artifacts.

Expects a tree from ``parse_bpmn_xml``. Guarantees: every flow node, data object or
store reference and text annotation becomes one ``BpmnNode`` in document order; every
sequence flow, message flow, association and data association with an id becomes one
``BpmnFlow``; elements it does not know are listed in ``BpmnModel.unknown`` and never
fatal. A model it cannot lay out (duplicate ids, a flow to nowhere, a sequence flow
leaving its process or sub-process) raises ``BpmnError`` naming the element and line.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from interchange.model import (
    ANNOTATION,
    DATA,
    FLOW_NODE,
    BpmnFlow,
    BpmnGroup,
    BpmnLane,
    BpmnModel,
    BpmnNode,
    BpmnPool,
    UnknownElement,
)
from interchange.parsing import BPMNDI_NS, DC_NS, MODEL_NS, XML_LANG, BpmnError, local_name, namespace_of, one_line
from renderer.culture import ENGLISH, GERMAN, LANGUAGE_NEUTRAL

#: BPMN flow node → our element type (renderer/model.py KNOWN_TYPES).
SHAPE_TYPES: dict[str, str] = {
    **dict.fromkeys(("task", "userTask", "serviceTask", "sendTask", "receiveTask", "manualTask",
                     "businessRuleTask", "scriptTask"), "task"),
    **dict.fromkeys(("subProcess", "transaction", "adHocSubProcess", "callActivity"), "subProcess"),
    "startEvent": "evStart",
    "endEvent": "evEnd",
    **dict.fromkeys(("intermediateCatchEvent", "intermediateThrowEvent", "implicitThrowEvent",
                     "boundaryEvent"), "evIntermediate"),
    "exclusiveGateway": "ruleXor",
    "parallelGateway": "ruleAnd",
    **dict.fromkeys(("inclusiveGateway", "complexGateway", "eventBasedGateway"), "condition"),
}
#: Activities whose content is a scope of flow nodes of its own.
SCOPES = frozenset(("subProcess", "transaction", "adHocSubProcess"))
DATA_TAGS = {"dataObjectReference": "inOut", "dataStoreReference": "inOut"}
FLOW_TAGS = frozenset(("sequenceFlow", "association"))
#: BPMN elements inside a process or sub-process that are not drawn as nodes of their own.
NOT_DRAWN = frozenset((
    "documentation", "extensionElements", "laneSet", "dataObject", "property", "ioSpecification",
    "ioBinding", "category", "auditing", "monitoring", "supportedInterfaceRef",
    "resourceRole", "performer", "humanPerformer", "potentialOwner", "correlationSubscription",
    "incoming", "outgoing", "multiInstanceLoopCharacteristics", "standardLoopCharacteristics",
    "completionCondition", "dataInputAssociation", "dataOutputAssociation", "dataInput",
    "dataOutput", "dataState", "text", "conditionExpression",
))
#: xml:lang primary subtag → culture id; any other language reads as language-neutral.
CULTURES = {"de": GERMAN, "en": ENGLISH, "fr": 1036, "it": 1040, "es": 3082, "nl": 1043,
            "pt": 2070, "pl": 1045, "ja": 1041, "zh": 2052}


def read_model(tree: Any) -> BpmnModel:
    return _Reader().read(tree.getroot())


def culture_of(element: Any) -> int:
    """The culture of an element's text: its xml:lang or its nearest ancestor's."""
    for ancestor in (element, *element.iterancestors()):
        lang = ancestor.get(XML_LANG)
        if lang:
            return CULTURES.get(lang.split("-")[0].split("_")[0].lower(), LANGUAGE_NEUTRAL)
    return LANGUAGE_NEUTRAL


def names_of(element: Any) -> dict[int, str]:
    name = one_line(element.get("name") or "")
    return {culture_of(element): name} if name else {}


class _Reader:
    def __init__(self) -> None:
        self.nodes: list[BpmnNode] = []
        self.flows: list[BpmnFlow] = []
        self.pools: list[BpmnPool] = []
        self.lanes: list[BpmnLane] = []
        self.unknown: list[UnknownElement] = []
        self.groups: list[tuple[str, int]] = []  # (id, line) of each group
        self.lane_of: dict[str, tuple[int, str]] = {}  # node id → (depth, deepest lane id)
        self.flow_scope: dict[str, tuple[str, str | None]] = {}  # sequence flow id → its scope

    def read(self, root: Any) -> BpmnModel:
        _check_unique_ids(root)
        collaborations = [child for child in root if child.tag == f"{{{MODEL_NS}}}collaboration"]
        processes = [child for child in root if child.tag == f"{{{MODEL_NS}}}process"]
        if not processes and not collaborations:
            raise BpmnError("the BPMN file holds no process and no collaboration")
        for collaboration in collaborations[:1]:
            self._collaboration(collaboration)
        for process in processes:
            self._scope(process, str(process.get("id") or ""), None)
        nodes = [_with_lane(node, self.lane_of) for node in self.nodes]
        model = BpmnModel(
            plane_element=str((collaborations or processes)[0].get("id") or ""),
            processes=tuple(str(process.get("id") or "") for process in processes),
            nodes=tuple(nodes), flows=tuple(self.flows), pools=tuple(self.pools),
            lanes=tuple(self.lanes), groups=_groups(root, self.groups, nodes), unknown=tuple(self.unknown))
        self._check_flows(model)
        return model

    def _collaboration(self, collaboration: Any) -> None:
        for child in collaboration:
            tag = local_name(child)
            if namespace_of(child) != MODEL_NS:
                continue
            if tag == "participant":
                self.pools.append(BpmnPool(_id(child), str(child.get("processRef") or ""),
                                           names_of(child), child.sourceline))
            elif tag == "messageFlow":
                self._flow(child, child.get("sourceRef"), child.get("targetRef"))
            else:
                self._artifact_or_unknown(child, "", None)

    def _scope(self, container: Any, process: str, parent: str | None) -> None:
        for child in container:
            tag = local_name(child)
            if namespace_of(child) != MODEL_NS:
                continue
            if tag == "laneSet":
                self._lanes(child, process, None, 1)
            elif tag in SHAPE_TYPES:
                self.nodes.append(BpmnNode(
                    _id(child), tag, FLOW_NODE, SHAPE_TYPES[tag], names_of(child), process,
                    child.sourceline, parent=parent, attached_to=child.get("attachedToRef"),
                    expandable=tag in SCOPES))
                self._data_associations(child)
                if tag in SCOPES:
                    self._scope(child, process, _id(child))
            elif tag == "sequenceFlow":
                self.flow_scope[_id(child)] = (process, parent)
                self._flow(child, child.get("sourceRef"), child.get("targetRef"))
            else:
                self._artifact_or_unknown(child, process, parent)

    def _artifact_or_unknown(self, child: Any, process: str, parent: str | None) -> None:
        tag = local_name(child)
        if tag in DATA_TAGS:
            self.nodes.append(BpmnNode(_id(child), tag, DATA, DATA_TAGS[tag], names_of(child),
                                       process, child.sourceline, parent=parent))
        elif tag == "textAnnotation":
            text = one_line("".join(t.text or "" for t in child if local_name(t) == "text"))
            names = {culture_of(child): text} if text else {}
            self.nodes.append(BpmnNode(_id(child), tag, ANNOTATION, "", names, process,
                                       child.sourceline, parent=parent))
        elif tag in FLOW_TAGS:
            self._flow(child, child.get("sourceRef"), child.get("targetRef"))
        elif tag == "group" and child.get("id"):
            self.groups.append((str(child.get("id")), child.sourceline))
        elif tag not in NOT_DRAWN:
            self.unknown.append(UnknownElement(tag, str(child.get("id") or ""), child.sourceline))

    def _data_associations(self, activity: Any) -> None:
        """Data associations live inside their activity: input reads source → activity,
        output writes activity → target."""
        for child in activity:
            tag = local_name(child)
            if tag not in ("dataInputAssociation", "dataOutputAssociation") or not child.get("id"):
                continue
            refs = {local_name(ref): (ref.text or "").strip() for ref in child
                    if local_name(ref) in ("sourceRef", "targetRef")}
            if tag == "dataInputAssociation":
                self._flow(child, refs.get("sourceRef"), activity.get("id"))
            else:
                self._flow(child, activity.get("id"), refs.get("targetRef"))

    def _flow(self, element: Any, source: str | None, target: str | None) -> None:
        tag = local_name(element)
        if not element.get("id"):
            if tag in ("sequenceFlow", "messageFlow"):
                raise BpmnError(f"{tag} at line {element.sourceline} has no id")
            return  # an association without id cannot be referenced by diagram interchange
        if not source or not target:
            raise BpmnError(f"{tag} {element.get('id')!r} at line {element.sourceline} lacks sourceRef or targetRef")
        self.flows.append(BpmnFlow(_id(element), tag, source, target, names_of(element), element.sourceline))

    def _lanes(self, lane_set: Any, process: str, parent: str | None, depth: int) -> None:
        for lane in lane_set:
            if local_name(lane) != "lane":
                continue
            lane_id = _id(lane)
            self.lanes.append(BpmnLane(lane_id, process, names_of(lane), lane.sourceline, parent))
            for child in lane:
                tag = local_name(child)
                if tag == "flowNodeRef":
                    node_id = (child.text or "").strip()
                    if self.lane_of.get(node_id, (0, ""))[0] < depth:
                        self.lane_of[node_id] = (depth, lane_id)
                elif tag == "childLaneSet":
                    self._lanes(child, process, lane_id, depth + 1)

    def _check_flows(self, model: BpmnModel) -> None:
        pools = {pool.id for pool in model.pools}
        for flow in model.flows:
            ends = [model.node(flow.source), model.node(flow.target)]
            if flow.tag == "messageFlow":
                missing = [ref for ref, end in zip((flow.source, flow.target), ends)
                           if end is None and ref not in pools]
            elif flow.tag == "association":
                continue  # may point at flows or anything; drawn only between nodes
            else:
                missing = [ref for ref, end in zip((flow.source, flow.target), ends) if end is None]
            if missing:
                raise BpmnError(f"{flow.tag} {flow.id!r} at line {flow.line} refers to unknown element {missing[0]!r}")
            if flow.tag == "sequenceFlow":
                source, target = ends
                assert source is not None and target is not None
                scope = self.flow_scope[flow.id]
                for end in (source, target):
                    if (end.process, end.parent) != scope:
                        raise BpmnError(f"sequenceFlow {flow.id!r} at line {flow.line} leaves its "
                                        f"{'sub-process' if scope[1] or end.parent else 'process'}: "
                                        f"{end.id!r} is in another one (use a message flow between pools)")


def _id(element: Any) -> str:
    element_id = element.get("id")
    if not element_id:
        raise BpmnError(f"{local_name(element)} at line {element.sourceline} has no id")
    return str(element_id)


def _check_unique_ids(root: Any) -> None:
    seen: dict[str, int] = {}
    for element in root.iter():
        element_id = element.get("id") if isinstance(element.tag, str) else None
        if element_id is None:
            continue
        if element_id in seen:
            raise BpmnError(f"id {element_id!r} at line {element.sourceline} is already used "
                            f"at line {seen[element_id]}")
        seen[element_id] = element.sourceline


def _groups(root: Any, groups: list[tuple[str, int]], nodes: list[BpmnNode]) -> tuple[BpmnGroup, ...]:
    """Each group with the nodes whose centre its box held in the file's first diagram
    (none when the file has no diagram for it)."""
    boxes: dict[str, tuple[float, float, float, float]] = {}
    diagram = root.find(f"{{{BPMNDI_NS}}}BPMNDiagram")
    for shape in diagram.iter(f"{{{BPMNDI_NS}}}BPMNShape") if diagram is not None else ():
        bounds = shape.find(f"{{{DC_NS}}}Bounds")
        try:
            x, y, width, height = (float(bounds.get(name)) for name in ("x", "y", "width", "height"))
        except (AttributeError, TypeError, ValueError):  # no bounds or not numbers: no box
            continue
        boxes[str(shape.get("bpmnElement"))] = (x, y, width, height)
    found = []
    for group_id, line in groups:
        x, y, width, height = boxes.get(group_id, (0.0, 0.0, -1.0, -1.0))
        members = tuple(node.id for node in nodes if node.id in boxes
                        and x <= boxes[node.id][0] + boxes[node.id][2] / 2 <= x + width
                        and y <= boxes[node.id][1] + boxes[node.id][3] / 2 <= y + height)
        found.append(BpmnGroup(group_id, members, line))
    return tuple(found)


def _with_lane(node: BpmnNode, lane_of: dict[str, tuple[int, str]]) -> BpmnNode:
    lane = lane_of.get(node.id)
    return node if lane is None else replace(node, lane=lane[1])
