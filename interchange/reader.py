"""BPMN 2.0 XML → ``BpmnModel``: processes, collaboration, lanes, flows, artifacts.

Expects a tree from ``parse_bpmn_xml``. Guarantees: every flow node, data object or
store reference, process-level data input or output and text annotation becomes one
``BpmnNode`` in document order; every
sequence flow, message flow, association and data association with an id becomes one
``BpmnFlow``; elements it does not know are listed in ``BpmnModel.unknown`` and never
fatal. What is odd but drawable becomes a line of ``BpmnModel.warnings``: a flow or data
association to an element that is not drawn or not there is left out, a sequence flow
leaving its process or sub-process is kept, an element without an id or repeating an id
used before is left out (nothing can refer to it; bpmn-moddle leaves out the repeat too).
Ids count only on BPMN elements, not inside extension elements. A model it cannot lay
out (nothing drawable left) raises ``BpmnError`` naming the element and line.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
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
from interchange.parsing import (
    BPMNDI_NS,
    DC_NS,
    DI_NS,
    ELREPO_NS,
    MODEL_NS,
    XML_LANG,
    BpmnError,
    local_name,
    namespace_of,
    one_line,
)
from renderer.culture import ENGLISH, GERMAN, LANGUAGE_NEUTRAL
from renderer.kinds import KINDS

#: BPMN flow node → our element type (``Kind.bpmn_reads``, renderer/kinds.py).
SHAPE_TYPES: dict[str, str] = {tag: kind.key for kind in KINDS.values() for tag in kind.bpmn_reads}
#: Activities whose content is a scope of flow nodes of its own.
SCOPES = frozenset(("subProcess", "transaction", "adHocSubProcess"))
#: A process's own inputs and outputs (its ``ioSpecification``'s ``dataInput`` and
#: ``dataOutput``) are drawn as data objects too: data associations read and write them.
PROCESS_DATA = frozenset(("dataInput", "dataOutput"))
DATA_TAGS = {"dataObjectReference": "inOut", "dataStoreReference": "inOut", **dict.fromkeys(PROCESS_DATA, "inOut")}
FLOW_TAGS = frozenset(("sequenceFlow", "association"))
#: Warnings a file gets in full; past them one line counts the rest, so that a file of
#: 20,000 tasks without ids says so in a screenful, on standard error and in an import's answer.
MAX_WARNINGS = 50
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


#: The namespaces whose elements' ids are BPMN ids (the model and its diagram interchange).
BPMN_NAMESPACES = frozenset((MODEL_NS, BPMNDI_NS, DC_NS, DI_NS))


def read_model(tree: Any, warnings: Iterable[str] = ()) -> BpmnModel:
    """The model of ``tree``; ``warnings`` are the parser's, listed first."""
    return _Reader(warnings).read(tree.getroot())


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
    def __init__(self, warnings: Iterable[str]) -> None:
        self.warnings = list(warnings)
        self.tags: dict[str, str] = {}  # BPMN id → local name of its element
        self.object_references: dict[str, str] = {}  # dataObject id → first dataObjectReference to it
        self.nodes: list[BpmnNode] = []
        self.flows: list[BpmnFlow] = []
        self.pools: list[BpmnPool] = []
        self.lanes: list[BpmnLane] = []
        self.unknown: list[UnknownElement] = []
        self.groups: list[tuple[str, int, tuple[str, ...]]] = []  # (id, line, members named) of each group
        self.lane_of: dict[str, tuple[int, str]] = {}  # node id → (depth, deepest lane id)
        self.flow_scope: dict[str, tuple[str, str | None]] = {}  # sequence flow id → its scope
        self.defaults: set[str] = set()  # ids of the flows a node names as its default
        self.group_values: dict[str, str] = {}  # group id → the id of its categoryValue
        self.repeated: set[Any] = set()  # the elements whose id an earlier element has: left out

    def read(self, root: Any) -> BpmnModel:
        self.tags, self.repeated = _unique_ids(root, self.warnings)
        for element in root.iter(f"{{{MODEL_NS}}}dataObjectReference"):
            if element.get("id") and element.get("dataObjectRef"):
                self.object_references.setdefault(str(element.get("dataObjectRef")), str(element.get("id")))
        collaborations = [child for child in self._children(root) if local_name(child) == "collaboration"]
        processes = [child for child in self._children(root) if local_name(child) == "process"]
        if not processes and not collaborations:
            raise BpmnError("the BPMN file holds no process and no collaboration")
        for collaboration in collaborations[:1]:
            self._collaboration(collaboration)
        for process in processes:
            self._scope(process, str(process.get("id") or ""), None)
        nodes = [_with_lane(node, self.lane_of) for node in self.nodes]
        process_ids = [str(process.get("id") or "") for process in processes]
        model = BpmnModel(
            plane_element=str((collaborations or processes)[0].get("id") or ""),
            processes=tuple(process_ids),
            nodes=tuple(nodes), flows=tuple(replace(flow, default=flow.id in self.defaults) for flow in self.flows),
            pools=tuple(self.pools), lanes=tuple(self.lanes),
            groups=self._named_groups(_groups(root, self.groups, nodes), root),
            unknown=tuple(self.unknown),
            process_names={pid: names for pid, process in zip(process_ids, processes)
                           if (names := names_of(process))},
            executable={pid: process.get("isExecutable") == "true" for pid, process in zip(process_ids, processes)
                        if process.get("isExecutable") in ("true", "false")})
        flows = tuple(self._drawable_flows(model))
        if not nodes and not self.pools and len(flows) < len(model.flows):
            raise BpmnError(f"{self.warnings[-1]}; nothing drawable remains")
        return replace(model, flows=flows, warnings=_at_most(self.warnings, MAX_WARNINGS))

    def _children(self, element: Any) -> Iterator[Any]:
        """``element``'s BPMN children, without those that repeat an id (left out)."""
        return (child for child in element if namespace_of(child) == MODEL_NS and child not in self.repeated)

    def _id(self, element: Any) -> str | None:
        """The element's id; None, with a warning, when it has none: nothing can refer to
        it, nor to its content (bpmn-js draws no element without an id either)."""
        element_id = element.get("id")
        if not element_id:
            self.warnings.append(f"{local_name(element)} at line {element.sourceline} has no id: left out")
            return None
        return str(element_id)

    def _collaboration(self, collaboration: Any) -> None:
        for child in self._children(collaboration):
            tag = local_name(child)
            if tag == "participant":
                if (pool_id := self._id(child)) is not None:
                    self.pools.append(BpmnPool(pool_id, self._ref(child.get("processRef")) or "",
                                               names_of(child), child.sourceline))
            elif tag == "messageFlow":
                self._flow(child, self._ref(child.get("sourceRef")), self._ref(child.get("targetRef")))
            else:
                self._artifact_or_unknown(child, "", None)

    def _scope(self, container: Any, process: str, parent: str | None) -> None:
        for child in self._children(container):
            tag = local_name(child)
            if tag == "laneSet":
                self._lanes(child, process, None, 1)
            elif tag == "ioSpecification" and parent is None:
                for data in self._children(child):
                    if local_name(data) in PROCESS_DATA:
                        self._artifact_or_unknown(data, process, None)
            elif tag in SHAPE_TYPES:
                if (node_id := self._id(child)) is None:
                    continue
                self.nodes.append(BpmnNode(
                    node_id, tag, FLOW_NODE, SHAPE_TYPES[tag], names_of(child), process,
                    child.sourceline, parent=parent, attached_to=self._ref(child.get("attachedToRef")),
                    expandable=tag in SCOPES, event_definitions=_event_definitions(child, self.tags),
                    interrupting=_interrupting(child), markers=_markers(child)))
                if child.get("default"):
                    self.defaults.add(str(self._ref(child.get("default"))))
                self._data_associations(child)
                if tag in SCOPES:
                    self._scope(child, process, node_id)
            elif tag == "sequenceFlow":
                if child.get("id"):
                    self.flow_scope[str(child.get("id"))] = (process, parent)
                self._flow(child, child.get("sourceRef"), child.get("targetRef"))
            else:
                self._artifact_or_unknown(child, process, parent)

    def _named_groups(self, groups: tuple[BpmnGroup, ...], root: Any) -> tuple[BpmnGroup, ...]:
        """Each group with the ``value`` of its ``categoryValue`` as its name."""
        values = {str(value.get("id")): value for value in root.iter(f"{{{MODEL_NS}}}categoryValue")
                  if value.get("id")}
        named = []
        for group in groups:
            value = values.get(self.group_values.get(group.id, ""))
            text = one_line(value.get("value") or "") if value is not None else ""
            named.append(replace(group, names={culture_of(value): text}) if value is not None and text else group)
        return tuple(named)

    def _ref(self, reference: str | None) -> str | None:
        """A reference as the id it names: BPMN types ``attachedToRef``, ``processRef`` and a
        message flow's ends as QNames, which some tools write with the prefix of the
        file's target namespace (IBM Process Designer: ``A.3.0-export:bpmnid-…``)."""
        if reference is None or reference in self.tags or ":" not in reference:
            return reference
        local = reference.rpartition(":")[2]
        return local if local in self.tags else reference

    def _artifact_or_unknown(self, child: Any, process: str, parent: str | None) -> None:
        tag = local_name(child)
        if tag in DATA_TAGS or tag == "textAnnotation":
            if (node_id := self._id(child)) is None:
                return
            if tag in DATA_TAGS:
                self.nodes.append(BpmnNode(node_id, tag, DATA, DATA_TAGS[tag], names_of(child),
                                           process, child.sourceline, parent=parent))
            else:
                text = one_line("".join(t.text or "" for t in child if local_name(t) == "text"))
                names = {culture_of(child): text} if text else {}
                self.nodes.append(BpmnNode(node_id, tag, ANNOTATION, "", names, process,
                                           child.sourceline, parent=parent))
        elif tag in FLOW_TAGS:
            self._flow(child, child.get("sourceRef"), child.get("targetRef"))
        elif tag == "group" and child.get("id"):
            named = tuple(str(member.get("ref")) for member in child.iter(f"{{{ELREPO_NS}}}member")
                          if member.get("ref"))
            self.groups.append((str(child.get("id")), child.sourceline, named))
            self.group_values[str(child.get("id"))] = self._ref(child.get("categoryValueRef")) or ""
        elif tag not in NOT_DRAWN:
            self.unknown.append(UnknownElement(tag, str(child.get("id") or ""), child.sourceline))

    def _data_associations(self, activity: Any) -> None:
        """Data associations live inside their activity: input reads source → activity,
        output writes activity → target."""
        for child in self._children(activity):
            tag = local_name(child)
            if tag not in ("dataInputAssociation", "dataOutputAssociation") or not child.get("id"):
                continue
            refs = {local_name(ref): (ref.text or "").strip() for ref in child
                    if local_name(ref) in ("sourceRef", "targetRef")}
            if tag == "dataInputAssociation" and not refs.get("sourceRef"):
                continue  # its source is implicit (BPMN 2.0 10.4.2): nothing to draw
            if tag == "dataInputAssociation":
                self._flow(child, refs.get("sourceRef"), activity.get("id"))
            else:
                self._flow(child, activity.get("id"), refs.get("targetRef"))

    def _flow(self, element: Any, source: str | None, target: str | None) -> None:
        tag = local_name(element)
        if not element.get("id"):
            if tag in ("sequenceFlow", "messageFlow"):
                self.warnings.append(f"{tag} at line {element.sourceline} has no id: left out")
            return  # an association without id cannot be referenced by diagram interchange
        if not source or not target:
            self.warnings.append(f"{tag} {element.get('id')!r} at line {element.sourceline} lacks sourceRef "
                                 "or targetRef: left out")
            return
        condition = next((one_line(child.text or "") for child in element
                          if local_name(child) == "conditionExpression"), "")
        self.flows.append(BpmnFlow(str(element.get("id")), tag, source, target, names_of(element), element.sourceline,
                                   condition=condition))

    def _lanes(self, lane_set: Any, process: str, parent: str | None, depth: int) -> None:
        for lane in self._children(lane_set):
            if local_name(lane) != "lane" or (lane_id := self._id(lane)) is None:
                continue
            self.lanes.append(BpmnLane(lane_id, process, names_of(lane), lane.sourceline, parent))
            for child in self._children(lane):
                tag = local_name(child)
                if tag == "flowNodeRef":
                    node_id = (child.text or "").strip()
                    if self.lane_of.get(node_id, (0, ""))[0] < depth:
                        self.lane_of[node_id] = (depth, lane_id)
                elif tag == "childLaneSet":
                    self._lanes(child, process, lane_id, depth + 1)

    def _drawable_flows(self, model: BpmnModel) -> Iterator[BpmnFlow]:
        """The flows with both ends drawn; a warning for each left out, and for each
        sequence flow kept although it leaves its process or sub-process."""
        pools = {pool.id for pool in model.pools}
        for flow in model.flows:
            if flow.tag in ("dataInputAssociation", "dataOutputAssociation"):
                flow = replace(flow, source=self.object_references.get(flow.source, flow.source),
                               target=self.object_references.get(flow.target, flow.target))
            ends = [model.node(flow.source), model.node(flow.target)]
            if flow.tag == "association":
                yield flow  # may point at flows or anything; drawn only between nodes
                continue
            missing = [ref for ref, end in zip((flow.source, flow.target), ends)
                       if end is None and not (flow.tag == "messageFlow" and ref in pools)]
            if missing:
                what = f"a {self.tags[missing[0]]}, which is not drawn" if missing[0] in self.tags \
                    else "an element not in the file"
                self.warnings.append(f"{flow.tag} {flow.id!r} at line {flow.line} refers to {missing[0]!r}, "
                                     f"{what}: left out")
                continue
            if flow.tag == "sequenceFlow":
                scope = self.flow_scope[flow.id]
                for end in ends:
                    assert end is not None
                    if (end.process, end.parent) != scope:
                        self.warnings.append(
                            f"sequenceFlow {flow.id!r} at line {flow.line} leaves its "
                            f"{'sub-process' if scope[1] or end.parent else 'process'}: {end.id!r} is in "
                            "another one (use a message flow between pools); drawn as it is")
                        break
            yield flow


def _event_definitions(event: Any, tags: dict[str, str]) -> tuple[str, ...]:
    """``timer`` for a ``timerEventDefinition``..., in file order; an ``eventDefinitionRef``
    counts as the kind of the definition it names (MID Innovator writes every definition
    at the top of the file and refers to it)."""
    kinds = []
    for child in event:
        if namespace_of(child) != MODEL_NS:
            continue
        tag = local_name(child)
        if tag == "eventDefinitionRef":
            tag = tags.get((child.text or "").strip(), "")
        if tag.endswith("EventDefinition"):
            kinds.append(tag[:-len("EventDefinition")])
    return tuple(kinds)


def _interrupting(node: Any) -> bool:
    flag = node.get("cancelActivity") if local_name(node) == "boundaryEvent" else node.get("isInterrupting")
    return bool(flag != "false")


def _markers(activity: Any) -> tuple[str, ...]:
    markers = []
    for child in activity:
        tag = local_name(child)
        if tag == "standardLoopCharacteristics":
            markers.append("loop")
        elif tag == "multiInstanceLoopCharacteristics":
            markers.append("sequential" if child.get("isSequential") == "true" else "parallel")
    if activity.get("isForCompensation") == "true":
        markers.append("compensation")
    if activity.get("triggeredByEvent") == "true":
        markers.append("eventSubProcess")
    return tuple(markers)


def _unique_ids(root: Any, warnings: list[str]) -> tuple[dict[str, str], set[Any]]:
    """The local name of each BPMN element by its id, and the elements that repeat an id
    used before in the document: those are left out with all they hold, a warning each (as
    bpmn-moddle reads them). Elements of other namespaces (a tool's extension elements) and
    everything inside them are not BPMN elements: their ids are not BPMN ids, and may
    repeat one."""
    seen: dict[str, Any] = {}
    repeated: set[Any] = set()
    stack = [root]
    while stack:
        element = stack.pop()
        if not isinstance(element.tag, str) or namespace_of(element) not in BPMN_NAMESPACES:
            continue
        element_id = element.get("id")
        if element_id is not None:
            if element_id in seen:
                warnings.append(f"{local_name(element)} {element_id!r} at line {element.sourceline} repeats "
                                f"the id of the {local_name(seen[element_id])} at line "
                                f"{seen[element_id].sourceline}: left out")
                repeated.add(element)
                continue
            seen[element_id] = element
        stack.extend(reversed(element))
    return {element_id: local_name(element) for element_id, element in seen.items()}, repeated


def _groups(root: Any, groups: list[tuple[str, int, tuple[str, ...]]],
            nodes: list[BpmnNode]) -> tuple[BpmnGroup, ...]:
    """Each group with the nodes its ``elrepo:member`` extension elements name (an
    export's), else those whose centre its box held in the file's first diagram (none when
    the file has no diagram for it)."""
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
    node_ids = {node.id for node in nodes}
    for group_id, line, named in groups:
        if named:
            found.append(BpmnGroup(group_id, tuple(member for member in named if member in node_ids), line))
            continue
        x, y, width, height = boxes.get(group_id, (0.0, 0.0, -1.0, -1.0))
        members = tuple(node.id for node in nodes if node.id in boxes
                        and x <= boxes[node.id][0] + boxes[node.id][2] / 2 <= x + width
                        and y <= boxes[node.id][1] + boxes[node.id][3] / 2 <= y + height)
        found.append(BpmnGroup(group_id, members, line))
    return tuple(found)


def _with_lane(node: BpmnNode, lane_of: dict[str, tuple[int, str]]) -> BpmnNode:
    lane = lane_of.get(node.id)
    return node if lane is None else replace(node, lane=lane[1])


def _at_most(warnings: list[str], count: int) -> tuple[str, ...]:
    """The first ``count`` warnings, and a line counting the others."""
    if len(warnings) <= count:
        return tuple(warnings)
    return (*warnings[:count], f"{len(warnings) - count:,} more warnings like these")
