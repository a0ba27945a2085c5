"""What the BPMN reader returns: the parts of a BPMN 2.0 model our engine lays out.

Plain frozen data; ids are the BPMN ids of the file, so a writer can go back to the
XML elements. Everything the model does not name (documentation, extension elements,
event definitions...) stays in the XML tree untouched.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: kinds of node
FLOW_NODE = "flowNode"
DATA = "data"
ANNOTATION = "annotation"


@dataclass(frozen=True, slots=True)
class BpmnNode:
    """A flow node, a data object/store reference or a text annotation.

    ``shape_type`` is our element type (``renderer/model.py`` KNOWN_TYPES), '' for text
    annotations, which have none. ``process`` is the process holding it ('' for an
    artifact of the collaboration), ``parent`` the sub-process around it, ``lane`` its
    deepest lane, ``attached_to`` the host of a boundary event. ``names`` maps culture
    id to name; ``expandable`` marks sub-processes and other activities that may hold
    flow nodes.

    BPMN's meaning beyond the tag: ``event_definitions`` in file order, each the local
    name without ``EventDefinition`` (``timer``, ``message``, ``error``, ``signal``,
    ``escalation``, ``conditional``, ``compensate``, ``link``, ``terminate``, ``cancel``);
    ``interrupting`` is a boundary event's ``cancelActivity`` or a start event's
    ``isInterrupting`` (both default true); ``markers`` are an activity's ``loop``,
    ``parallel`` or ``sequential`` (multi-instance) and ``compensation``
    (``isForCompensation``), and a sub-process's ``eventSubProcess``
    (``triggeredByEvent``)."""

    id: str
    tag: str
    kind: str
    shape_type: str
    names: Mapping[int, str]
    process: str
    line: int = field(compare=False)  # where to point an error; not part of the model
    parent: str | None = None
    lane: str | None = None
    attached_to: str | None = None
    expandable: bool = False
    event_definitions: tuple[str, ...] = ()
    interrupting: bool = True
    markers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BpmnFlow:
    """A sequence flow, message flow, association or data association between two ids.

    ``default`` marks a sequence flow its source names as ``default``; ``condition`` is
    the text of its ``conditionExpression`` ('' for none)."""

    id: str
    tag: str
    source: str
    target: str
    names: Mapping[int, str]
    line: int = field(compare=False)  # where to point an error; not part of the model
    default: bool = False
    condition: str = ""


@dataclass(frozen=True, slots=True)
class BpmnPool:
    """A participant of the collaboration; ``process`` is '' for a black-box pool."""

    id: str
    process: str
    names: Mapping[int, str]
    line: int = field(compare=False)  # where to point an error; not part of the model


@dataclass(frozen=True, slots=True)
class BpmnLane:
    """A lane of ``process``; ``parent`` is the lane whose childLaneSet holds it."""

    id: str
    process: str
    names: Mapping[int, str]
    line: int = field(compare=False)  # where to point an error; not part of the model
    parent: str | None = None


@dataclass(frozen=True, slots=True)
class BpmnGroup:
    """A group: a frame around ``members``, the flow nodes and artifacts its box held in
    the file's own diagram (BPMN gives a group no members, only a box); ``names`` by
    culture are the ``value`` of its ``categoryValue``, the label BPMN gives a group."""

    id: str
    members: tuple[str, ...]
    line: int = field(compare=False)  # where to point an error; not part of the model
    names: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UnknownElement:
    """A BPMN element the reader does not lay out; it stays in the file as it was."""

    tag: str
    id: str
    line: int = field(compare=False)  # where to point an error; not part of the model


@dataclass(frozen=True, slots=True)
class BpmnModel:
    """``plane_element`` is what a diagram plane shows: the collaboration, else the
    (first) process. Tuples keep document order. ``warnings`` say, one line each, what was
    odd in the file but could still be drawn (and what was left out for it).
    ``process_names`` maps a process id to its names by culture (only processes with a
    name); ``executable`` a process id to its ``isExecutable`` (only where the file says)."""

    plane_element: str
    processes: tuple[str, ...]
    nodes: tuple[BpmnNode, ...]
    flows: tuple[BpmnFlow, ...]
    pools: tuple[BpmnPool, ...] = ()
    lanes: tuple[BpmnLane, ...] = ()
    groups: tuple[BpmnGroup, ...] = ()
    unknown: tuple[UnknownElement, ...] = ()
    warnings: tuple[str, ...] = ()
    process_names: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    executable: Mapping[str, bool] = field(default_factory=dict)
    _nodes_by_id: dict[str, BpmnNode] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._nodes_by_id.update((node.id, node) for node in self.nodes)

    def node(self, node_id: str) -> BpmnNode | None:
        return self._nodes_by_id.get(node_id)

    def pool_of_process(self, process: str) -> BpmnPool | None:
        return next((pool for pool in self.pools if pool.process and pool.process == process), None)
