"""A stored diagram's fixture → BPMN 2.0 XML with diagram interchange from our layout.

Expects a fixture as ``repository.fixtures.diagram_fixture`` builds it (docs/contract.md,
"Diagram fixture format"). Guarantees: one flow node per shape, in shape order, with the
BPMN id and tag kept at import (``interchange.kept``) or, for what was never imported,
an id made from our element id and the tag that our element type stands for; a sequence
flow per predecessor link (an association where a data object is an end; the link from
a boundary event's host becomes ``attachedToRef``); pools and lanes from the org units
the shapes are ``executedBy`` (and the diagram's own ``executedBy``, where an import
lists every pool and lane); the message flows, associations and data associations kept
at import whose ends are still drawn. A sub-process whose element has a fixture under
``inner`` (``repository.fixtures.nested_fixture``) is written expanded, that fixture's
nodes and flows inside it, and the message flows kept at any level whose ends are drawn
at any level go into the collaboration. Text annotations and groups kept at import come
back in the process of what they are associated with (a group: the collaboration, else
the process), a group with its members named in ``elrepo:member`` extension elements,
since BPMN leaves membership to the boxes the layout draws next. What the import kept of the meaning (event
definitions, non-interrupting events, activity markers, default flows, conditions, process
names and isExecutable) is written where BPMN puts it. The semantic XML is then laid out by
``layout_bpmn``, so the DI is exactly what ``elrepo layout`` writes. Deterministic.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from lxml import etree

from interchange.ids import UniqueIds
from interchange.kept import (
    BPMN_ARTIFACTS,
    BPMN_EVENT_DEFINITIONS,
    BPMN_EXECUTABLE,
    BPMN_FILE,
    BPMN_FLOWS,
    BPMN_ID,
    BPMN_INTERRUPTING,
    BPMN_MARKERS,
    BPMN_PROCESS,
    BPMN_PROCESS_NAME,
    BPMN_TYPE,
    name_from_file,
)
from interchange.parsing import ELREPO_NS, MODEL_NS, one_line, qname
from interchange.reader import DATA_TAGS, PROCESS_DATA, SCOPES, SHAPE_TYPES
from renderer.culture import LANGUAGE_NEUTRAL
from renderer.kinds import KINDS
from renderer.markup import clean_text

#: Our element type → the BPMN tag it is written as when no tag was kept (``Kind.bpmn_tag``);
#: a type without one is written as a task.
DEFAULT_TAGS: dict[str, str] = {kind.key: kind.bpmn_tag for kind in KINDS.values() if kind.bpmn_tag is not None}
#: Tags a boundary event may be attached to: the activities' (``Kind.work``).
ACTIVITIES = frozenset(tag for kind in KINDS.values() if kind.work for tag in kind.bpmn_reads)
DATA_ASSOCIATIONS = ("dataInputAssociation", "dataOutputAssociation")
FLOW_TYPES = frozenset(("sequenceFlow", "messageFlow", "association", *DATA_ASSOCIATIONS))
TARGET_NAMESPACE = "http://bpmn.io/schema/bpmn"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
#: The event definitions an event may be given back (``BpmnNode.event_definitions``).
EVENT_DEFINITIONS = frozenset(("cancel", "compensate", "conditional", "error", "escalation", "link", "message",
                               "signal", "terminate", "timer"))
#: The markers an activity may be given back (``BpmnNode.markers``).
MARKERS = frozenset(("loop", "parallel", "sequential", "compensation", "eventSubProcess"))
#: A loop marker → the loop characteristics written for it and their isSequential.
LOOPS = {"loop": ("standardLoopCharacteristics", None), "parallel": ("multiInstanceLoopCharacteristics", None),
         "sequential": ("multiInstanceLoopCharacteristics", "true")}


@dataclass(slots=True)
class _Process:
    id: str
    name: str = ""
    executable: bool | None = None  # None: the file did not say
    lanes: list[str] = field(default_factory=list)  # top lanes, unit ids
    nodes: list[_Node] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Node:
    id: str
    tag: str
    name: str
    lane: str | None  # unit id
    element: str  # our element id


@dataclass(frozen=True, slots=True)
class _Inside:
    """An expanded sub-process's content: its exporter, nodes, flows and boundary events."""

    exporter: _Exporter
    nodes: list[_Node]
    flows: list[dict[str, Any]]
    attached: dict[str, str]


def fixture_to_bpmn_xml(fixture: Mapping[str, Any], culture: int, default_culture: int) -> bytes:
    """The semantic BPMN XML (no DI) of a diagram fixture, names in ``culture``."""
    return _Exporter(fixture, culture, default_culture).xml()


def _outermost(unit: str, parent_of: Mapping[str, str]) -> list[str]:
    """The unit and the units around it, outwards; a hierarchy that loops (the store
    refuses one, a damaged database may hold one) ends where it would repeat."""
    chain = [unit]
    while chain[-1] in parent_of and parent_of[chain[-1]] not in chain:
        chain.append(parent_of[chain[-1]])
    return chain


def _xml_name(value: Any) -> str:
    """A stored name as an XML attribute: on one line, without what XML cannot hold (the
    input rules refuse it, a database written before them may hold it), as the SVG
    drawings show it."""
    return one_line(clean_text(str(value)))


def _flow_key(flow: Mapping[str, Any]) -> tuple[str, str, str]:
    return flow["source"], flow["target"], flow["type"]


class _Exporter:
    def __init__(self, fixture: Mapping[str, Any], culture: int, default_culture: int,
                 ids: UniqueIds | None = None) -> None:
        self.culture, self.default_culture = culture, default_culture
        self.cultures = (str(culture), str(LANGUAGE_NEUTRAL), str(default_culture))
        self.diagram: Mapping[str, Any] = fixture["diagram"]
        self.elements: dict[str, Mapping[str, Any]] = {e["id"]: e for e in fixture.get("elements", [])}
        self.values: Sequence[Mapping[str, Any]] = fixture.get("values", [])
        self.shown: dict[str, Mapping[str, Any]] = {value["element"]["id"]: value["element"] for value in self.values}
        self.ids = ids or UniqueIds()
        self.bpmn_of_unit: dict[str, str] = {}
        self.inner_fixtures: Mapping[str, Any] = fixture.get("inner") or {}
        self.inside: dict[str, _Inside] = {}  # sub-process node id → its content
        self.refs: dict[str, tuple[str, str]] = {}  # BPMN id of a node → (element id, shape id)
        self.artifacts: list[Mapping[str, Any]] | None = None  # taken once: their ids are then in use

    # ---- reading the fixture ---------------------------------------------------------

    def _kept(self, element: Mapping[str, Any], name: str) -> str | None:
        value = self._kept_value(element, name)
        return value if isinstance(value, str) and value else None

    @staticmethod
    def _kept_value(element: Mapping[str, Any], name: str) -> Any:
        return ((element.get("attributes") or {}).get(name) or {}).get(str(LANGUAGE_NEUTRAL))

    def _kept_words(self, element: Mapping[str, Any], name: str, known: Collection[str]) -> tuple[str, ...]:
        """A kept list of words, those we know only (the attribute is the client's to change)."""
        value = self._kept_value(element, name)
        return tuple(word for word in value if word in known) if isinstance(value, list) else ()

    def _process(self, process_id: str, holder: Mapping[str, Any]) -> _Process:
        """A process with the name and ``isExecutable`` kept on ``holder``: the diagram when
        it is the process (named as the diagram is, unless that is still the name of the file
        it was imported from; a diagram never imported is not executable), else the pool or
        org unit standing for it."""
        executable = self._kept_value(holder, BPMN_EXECUTABLE)
        if holder is not self.diagram:
            return _Process(process_id, self._name((holder.get("attributes") or {}).get(BPMN_PROCESS_NAME)),
                            executable if isinstance(executable, bool) else None)
        name = self._element_name(self.diagram)
        file_name = self._kept(self.diagram, BPMN_FILE)
        if file_name is not None and name in (_xml_name(PurePath(file_name).stem), name_from_file(file_name)):
            name = ""
        imported = self._kept(self.diagram, BPMN_TYPE) is not None
        return _Process(process_id, name, executable if isinstance(executable, bool) else None if imported else False)

    def _name(self, names: Mapping[str, Any] | None) -> str:
        names = names or {}
        for key in self.cultures:
            if names.get(key) not in (None, ""):
                return _xml_name(names[key])
        return next((_xml_name(v) for v in names.values() if v not in (None, "")), "")

    def _element_name(self, element: Mapping[str, Any]) -> str:
        return self._name((element.get("attributes") or {}).get("name"))

    def _units_of(self, element: Mapping[str, Any]) -> list[str]:
        refs = (element.get("related") or {}).get("executedBy") or []
        return [ref["id"] for ref in refs if self.elements.get(ref["id"], {}).get("type") == "orgUnit"]

    def _tag(self, element: Mapping[str, Any]) -> str:
        kept = self._kept(element, BPMN_TYPE)
        our_type = element.get("type", "")
        if kept and (SHAPE_TYPES.get(kept) == our_type or DATA_TAGS.get(kept) == our_type):
            return kept
        return DEFAULT_TAGS.get(our_type, "task")

    # ---- building the model ----------------------------------------------------------

    def xml(self) -> bytes:
        diagram_type = self._kept(self.diagram, BPMN_TYPE)
        diagram_kept_id = self._kept(self.diagram, BPMN_ID)
        bands = list(dict.fromkeys([*self._units_of(self.diagram),
                                    *(u for value in self.values for u in self._units_of(value["element"])[:1])]))
        parent_of = {child["id"]: unit for unit in bands for child in self.elements[unit].get("children") or []
                     if child["id"] in bands}
        for unit in bands:
            self.bpmn_of_unit[unit] = self.ids.take(self._kept(self.elements[unit], BPMN_ID), f"Lane_{unit}")
        tops = [unit for unit in bands if unit not in parent_of]
        pools = [unit for unit in tops if self._kept(self.elements[unit], BPMN_TYPE) == "participant"]
        processes: dict[str, _Process] = {}  # top unit (pool or process holder), or '' → its process
        for unit in tops:
            kind = self._kept(self.elements[unit], BPMN_TYPE)
            if kind == "participant" and self._kept(self.elements[unit], BPMN_PROCESS):
                processes[unit] = self._process(self.ids.take(self._kept(self.elements[unit], BPMN_PROCESS),
                                                              f"Process_{unit}"), self.elements[unit])
            elif kind == "process":  # a process without pool in a model with lanes
                is_diagram = diagram_type == "process" and self._kept(self.elements[unit], BPMN_ID) == diagram_kept_id
                processes[unit] = self._process(self.bpmn_of_unit[unit],
                                                self.diagram if is_diagram else self.elements[unit])
        for unit in tops:
            if unit in processes:
                processes[unit].lanes.extend(child for child in bands if parent_of.get(child) == unit)
        default = next(iter(processes.values()), None)
        if default is None:
            kept = diagram_kept_id if diagram_type != "collaboration" else None
            process_id = self.ids.take(kept, f"Process_{self.diagram['id']}")
            default = processes[""] = _Process(process_id) if diagram_type == "collaboration" \
                else self._process(process_id, self.diagram)
        default.lanes.extend(unit for unit in tops if unit not in processes and unit not in pools)
        collaboration_id = None
        if pools:
            kept = diagram_kept_id if diagram_type == "collaboration" else None
            collaboration_id = self.ids.take(kept, f"Collaboration_{self.diagram['id']}")

        def process_of(unit: str | None) -> _Process:
            return processes.get(_outermost(unit, parent_of)[-1] if unit else "", default)

        nodes = self._nodes()
        for node in nodes:
            process_of(node.lane).nodes.append(node)
        self._expand(nodes)
        return self._write(collaboration_id, pools, processes, default, nodes, parent_of)

    def _nodes(self) -> list[_Node]:
        nodes: list[_Node] = []
        for value in self.values:
            element = value["element"]
            units = self._units_of(element)
            nodes.append(_Node(self.ids.take(self._kept(element, BPMN_ID), f"Node_{element['id']}"),
                               self._tag(element), self._element_name(element), units[0] if units else None,
                               element["id"]))
            self.refs[nodes[-1].id] = (element["id"], value["shapeInfo"].get("id") or
                                       f"shape-{value['shapeInfo'].get('index')}")
        return nodes

    def _expand(self, nodes: Sequence[_Node]) -> None:
        """The content of each sub-process whose own fixture came with this one."""
        for node in nodes:
            fixture = self.inner_fixtures.get(node.element)
            if node.tag in SCOPES and isinstance(fixture, Mapping):
                exporter = _Exporter(fixture, self.culture, self.default_culture, self.ids)
                inner_nodes = exporter._nodes()
                exporter._expand(inner_nodes)
                self.inside[node.id] = _Inside(exporter, inner_nodes, *exporter._flows(inner_nodes, []))

    def _nested(self) -> list[_Inside]:
        """Every sub-process content below this level, outer ones first."""
        found = list(self.inside.values())
        for inside in list(found):
            found.extend(inside.exporter._nested())
        return found

    def _flows(self, nodes: Sequence[_Node], pools: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Every flow to write ({id, type, source, target, name}) and the boundary events'
        hosts."""
        kept: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
        for flow in self._kept_flows():
            kept.setdefault(_flow_key(flow), []).append(flow)
        flows: list[dict[str, Any]] = []
        attached: dict[str, str] = {}
        for value, node in zip(self.values, nodes, strict=True):
            for index in value["shapeInfo"].get("predecessors") or []:
                source = nodes[index]
                if node.tag == "boundaryEvent" and node.id not in attached and source.tag in ACTIVITIES:
                    attached[node.id] = source.id
                    continue
                data_end = source.tag in DATA_TAGS or node.tag in DATA_TAGS
                candidates = ("association", *DATA_ASSOCIATIONS) if data_end else ("sequenceFlow",)
                # every kept flow between the two (a link stands for parallel flows too)
                matches = next((kept[key] for tag in candidates if (key := (source.id, node.id, tag)) in kept),
                               [{"id": None, "type": candidates[0], "source": source.id, "target": node.id}])
                flows.extend(dict(match) for match in matches)
        nested = self._nested()
        drawn = {node.id for node in nodes} | {self.bpmn_of_unit[pool] for pool in pools}
        drawn |= {node.id for inside in nested for node in inside.nodes}
        drawn |= {artifact["id"] for artifact in self._artifacts() if artifact["type"] == "textAnnotation"}
        written = {flow["id"] for flow in flows}
        # what links cannot hold: other flows, and loops; message flows of the levels
        # below too (the collaboration holds them), and only where there are pools
        nested_messages = [flow for inside in nested for flow in inside.exporter._kept_flows()
                           if flow["type"] == "messageFlow"]
        kept_flows = [*self._kept_flows(), *nested_messages]
        # associations last: an annotation may point at any flow written
        for flow in sorted(kept_flows, key=lambda flow: flow["type"] == "association"):
            source, target, tag = _flow_key(flow)
            ends = drawn | written if tag == "association" else drawn
            if flow["id"] not in written and source in ends and target in ends \
                    and (tag != "sequenceFlow" or source == target) and (tag != "messageFlow" or pools):
                flows.append(dict(flow))
                written.add(flow["id"])
        for number, flow in enumerate(flows, start=1):
            flow["id"] = self.ids.take(flow["id"], f"Flow_{number}")
        return flows, attached

    def _kept_flows(self) -> list[Mapping[str, Any]]:
        """The flows kept at import; entries that are not such a flow (the attribute is
        the client's to change) are passed over."""
        value = (self.diagram.get("attributes") or {}).get(BPMN_FLOWS, {}).get(str(LANGUAGE_NEUTRAL))
        return [flow for flow in value if isinstance(flow, Mapping)
                and all(isinstance(flow.get(key), str) for key in ("id", "source", "target"))
                and flow.get("type") in FLOW_TYPES
                and isinstance(flow.get("name") or {}, Mapping)] if isinstance(value, list) else []

    def _artifacts(self) -> list[Mapping[str, Any]]:
        """The text annotations and groups kept at import whose ids are still free;
        entries that are not one (the attribute is the client's to change) are passed over."""
        value = self._kept_value(self.diagram, BPMN_ARTIFACTS)
        if not isinstance(value, list):
            return []
        if self.artifacts is None:
            self.artifacts = [artifact for artifact in value if isinstance(artifact, Mapping)
                              and artifact.get("type") in ("textAnnotation", "group")
                              and isinstance(artifact.get("id"), str) and artifact["id"]
                              and self.ids.claim(artifact["id"])]
        return self.artifacts

    # ---- writing ---------------------------------------------------------------------

    def _write(self, collaboration_id: str | None, pools: Sequence[str], processes: Mapping[str, _Process],
               default: _Process, nodes: Sequence[_Node], parent_of: Mapping[str, str]) -> bytes:
        root = etree.Element(qname("definitions"), nsmap={"bpmn": MODEL_NS, "xsi": XSI_NS},
                             id=self.ids.new("Definitions"), targetNamespace=TARGET_NAMESPACE,
                             exporter="elrepo")
        flows, attached = self._flows(nodes, pools)
        process_of_node = {node.id: process for process in processes.values() for node in process.nodes}
        artifacts_in = self._place_artifacts(flows, process_of_node, collaboration_id or default.id, default)
        if collaboration_id is not None:
            collaboration = etree.SubElement(root, qname("collaboration"), id=collaboration_id)
            for pool in pools:
                participant = self._named(collaboration, "participant", self.bpmn_of_unit[pool],
                                          self._element_name(self.elements[pool]))
                if pool in processes:
                    participant.set("processRef", processes[pool].id)
            for flow in flows:
                source, target = process_of_node.get(flow["source"]), process_of_node.get(flow["target"])
                if flow["type"] == "messageFlow" or (flow["type"] == "sequenceFlow" and source is not target):
                    self._flow(collaboration, {**flow, "type": "messageFlow"})
                elif flow["type"] == "association" and (source is None or source is not target):
                    self._flow(collaboration, flow)  # between pools, or to a message flow
        children_of: dict[str, list[str]] = {}
        for child, parent in parent_of.items():
            children_of.setdefault(parent, []).append(child)
        nodes_in: dict[str, list[str]] = {}  # unit → the nodes in it or in its lanes
        for node in nodes:
            if node.lane and node.tag not in DATA_TAGS:  # lanes hold flow nodes only
                for unit in _outermost(node.lane, parent_of):
                    nodes_in.setdefault(unit, []).append(node.id)
        for process in processes.values():
            element = self._named(root, "process", process.id, process.name)
            if process.executable is not None:
                element.set("isExecutable", "true" if process.executable else "false")
            if process.lanes:
                self._lane_set(element, process.lanes, children_of, nodes_in)
            self._nodes_into(element, process.nodes, attached, flows)
            for artifact in artifacts_in.get(process.id, []):
                self._artifact_into(element, artifact)
            for flow in flows:
                source, target = process_of_node.get(flow["source"]), process_of_node.get(flow["target"])
                if flow["type"] in ("sequenceFlow", "association") and source is process and target is process:
                    self._flow(element, flow)
                elif flow["type"] == "association" and collaboration_id is None and process is default \
                        and (source is None or source is not target):
                    self._flow(element, flow)  # its ends in no one process: the first one holds it
        if collaboration_id is not None:
            for artifact in artifacts_in.get(collaboration_id, []):
                self._artifact_into(collaboration, artifact)
        etree.indent(root, space="  ")
        return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))

    def _place_artifacts(self, flows: Sequence[Mapping[str, Any]], process_of_node: dict[str, _Process],
                         group_holder: str, default: _Process) -> dict[str, list[Mapping[str, Any]]]:
        """Where each kept artifact is written, by process id (or the collaboration's id):
        an annotation in the process of a node it is associated with, else the first
        process; a group in the collaboration, else the first process. Annotations, and the
        flows an association may point at, join ``process_of_node`` so their associations
        are written beside them."""
        for flow in flows:
            if flow["source"] in process_of_node:
                process_of_node.setdefault(flow["id"], process_of_node[flow["source"]])
        partner: dict[str, str] = {}
        for flow in flows:
            if flow["type"] == "association":
                partner.setdefault(flow["target"], flow["source"])
                partner.setdefault(flow["source"], flow["target"])
        placed: dict[str, list[Mapping[str, Any]]] = {}
        for artifact in self._artifacts():
            if artifact["type"] == "group":
                placed.setdefault(group_holder, []).append(artifact)
                continue
            process = process_of_node.get(partner.get(artifact["id"], ""), default)
            process_of_node[artifact["id"]] = process
            placed.setdefault(process.id, []).append(artifact)
        return placed

    def _artifact_into(self, parent: Any, artifact: Mapping[str, Any]) -> None:
        element = etree.SubElement(parent, qname(artifact["type"]), id=artifact["id"])
        if artifact["type"] == "textAnnotation":
            text = artifact.get("text")
            etree.SubElement(element, qname("text")).text = self._name(text if isinstance(text, Mapping) else {})
            return
        name = artifact.get("name")
        label = self._name(name) if isinstance(name, Mapping) else ""
        if label:  # a group's label is the value of a category value, a root element of its own
            category = etree.Element(qname("category"), id=self.ids.new(f"{artifact['id']}_category"))
            value = etree.SubElement(category, qname("categoryValue"), id=self.ids.new(f"{artifact['id']}_value"),
                                     value=label)
            parent.getroottree().getroot().insert(0, category)
            element.set("categoryValueRef", value.get("id"))
        members = [member for member in artifact.get("members") or [] if isinstance(member, str)]
        if members:
            extension = etree.SubElement(element, qname("extensionElements"))
            for member in members:
                etree.SubElement(extension, f"{{{ELREPO_NS}}}member", nsmap={"elrepo": ELREPO_NS}, ref=member)

    def _lane_set(self, parent: Any, lanes: Sequence[str], children_of: Mapping[str, list[str]],
                  nodes_in: Mapping[str, list[str]]) -> None:
        lane_set = etree.SubElement(parent, qname("laneSet" if parent.tag != qname("lane") else "childLaneSet"),
                                    id=self.ids.take(None, f"LaneSet_{lanes[0]}"))
        for unit in lanes:
            lane = self._named(lane_set, "lane", self.bpmn_of_unit[unit], self._element_name(self.elements[unit]))
            for node_id in nodes_in.get(unit, []):
                etree.SubElement(lane, qname("flowNodeRef")).text = node_id
            if children_of.get(unit):
                self._lane_set(lane, children_of[unit], children_of, nodes_in)

    def _nodes_into(self, parent: Any, nodes: Sequence[_Node], attached: Mapping[str, str],
                    flows: Sequence[Mapping[str, Any]]) -> None:
        for node in nodes:
            element = self._node(parent, node, attached.get(node.id), flows)
            inside = self.inside.get(node.id)
            if inside is not None:
                inside.exporter._nodes_into(element, inside.nodes, inside.attached, inside.flows)
                for artifact in inside.exporter._artifacts():
                    inside.exporter._artifact_into(element, artifact)
                for flow in inside.flows:
                    if flow["type"] in ("sequenceFlow", "association"):
                        self._flow(element, flow)

    def _node(self, process: Any, node: _Node, host: str | None, flows: Sequence[Mapping[str, Any]]) -> Any:
        if node.tag in PROCESS_DATA and process.tag == qname("process"):
            return self._process_data(process, node)
        tag = node.tag if node.tag != "boundaryEvent" or host else "intermediateCatchEvent"
        if tag in PROCESS_DATA:  # drawn inside a sub-process, which has no inputs of its own
            tag = "dataObjectReference"
        element = self._named(process, tag, node.id, node.name)
        if host:
            element.set("attachedToRef", host)
        if tag == "dataObjectReference":
            data_object = self.ids.new(f"{node.id}_object")
            element.addprevious(etree.Element(qname("dataObject"), id=data_object))
            element.set("dataObjectRef", data_object)
        for flow in flows:  # data associations live inside their activity
            if flow["type"] == "dataInputAssociation" and flow["target"] == node.id:
                association = self._named(element, "dataInputAssociation", flow["id"], "")
                etree.SubElement(association, qname("sourceRef")).text = flow["source"]
            elif flow["type"] == "dataOutputAssociation" and flow["source"] == node.id:
                association = self._named(element, "dataOutputAssociation", flow["id"], "")
                etree.SubElement(association, qname("targetRef")).text = flow["target"]
            elif flow["type"] == "sequenceFlow" and flow["source"] == node.id and flow.get("default") is True:
                element.set("default", flow["id"])
        self._meaning(element, tag, node)
        return element

    def _process_data(self, process: Any, node: _Node) -> Any:
        """A process's data input or output, in its ``ioSpecification`` (the process's
        first child, as BPMN orders them): inputs, then outputs, then the input and output
        sets BPMN requires."""
        specification = process.find(qname("ioSpecification"))
        if specification is None:
            specification = etree.Element(qname("ioSpecification"), id=self.ids.new(f"{process.get('id')}_io"))
            process.insert(0, specification)
            for set_tag in ("inputSet", "outputSet"):
                etree.SubElement(specification, qname(set_tag), id=self.ids.new(f"{process.get('id')}_{set_tag}"))
        element = self._name_element(etree.Element(qname(node.tag), id=node.id), node.name)
        before = specification.find(qname("dataOutput" if node.tag == "dataInput" else "inputSet"))
        if node.tag == "dataInput" and before is None:
            before = specification.find(qname("inputSet"))
        assert before is not None, "an ioSpecification of ours always has its input set"
        before.addprevious(element)
        return element

    def _meaning(self, element: Any, tag: str, node: _Node) -> None:
        """What the node means beyond its tag (kept on its element), after its data
        associations as BPMN orders the children: an event's definitions, an activity's
        loop characteristics; and the attributes saying it does not interrupt, compensates
        or is an event sub-process."""
        shown = self.shown[node.element]
        if tag.endswith("Event"):
            for kind in self._kept_words(shown, BPMN_EVENT_DEFINITIONS, EVENT_DEFINITIONS):
                definition = etree.SubElement(element, qname(f"{kind}EventDefinition"),
                                              id=self.ids.new(f"{node.id}_{kind}"))
                if kind == "link":  # its name is required, and pairs a throw with its catch
                    definition.set("name", node.name)
        if self._kept_value(shown, BPMN_INTERRUPTING) is False and tag in ("boundaryEvent", "startEvent"):
            element.set("cancelActivity" if tag == "boundaryEvent" else "isInterrupting", "false")
        if tag not in ACTIVITIES:
            return
        markers = self._kept_words(shown, BPMN_MARKERS, MARKERS)
        loop_marker = next((marker for marker in markers if marker in LOOPS), None)  # an activity has one
        if loop_marker is not None:
            loop_tag, sequential = LOOPS[loop_marker]
            loop = etree.SubElement(element, qname(loop_tag))
            if sequential:
                loop.set("isSequential", sequential)
        if "compensation" in markers:
            element.set("isForCompensation", "true")
        if "eventSubProcess" in markers and tag in SCOPES:
            element.set("triggeredByEvent", "true")

    def _flow(self, parent: Any, flow: Mapping[str, Any]) -> None:
        if flow["type"] in DATA_ASSOCIATIONS:
            return
        element = self._named(parent, flow["type"], flow["id"], self._name(flow.get("name")))
        element.set("sourceRef", flow["source"])
        element.set("targetRef", flow["target"])
        condition = flow.get("condition")
        if flow["type"] == "sequenceFlow" and isinstance(condition, str) and _xml_name(condition):
            expression = etree.SubElement(element, qname("conditionExpression"))
            expression.set(f"{{{XSI_NS}}}type", "bpmn:tFormalExpression")
            expression.text = _xml_name(condition)

    def _named(self, parent: Any, tag: str, element_id: str, name: str) -> Any:
        return self._name_element(etree.SubElement(parent, qname(tag), id=element_id), name)

    @staticmethod
    def _name_element(element: Any, name: str) -> Any:
        if name:
            element.set("name", name)
        return element


def fixture_to_bpmn_with_refs(fixture: Mapping[str, Any], culture: int,
                              default_culture: int) -> tuple[bytes, dict[str, tuple[str, str]]]:
    """``fixture_to_bpmn_xml`` and, by BPMN id, what each node and each pool or lane
    written stands for in the fixture: (element id, shape id); a pool's or lane's shape
    id is its org unit's element id. Nodes of expanded sub-processes are not listed."""
    exporter = _Exporter(fixture, culture, default_culture)
    xml = exporter.xml()
    units = {bpmn_id: (unit, unit) for unit, bpmn_id in exporter.bpmn_of_unit.items()}
    return xml, {**units, **exporter.refs}
