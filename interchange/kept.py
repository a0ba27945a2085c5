"""What an import keeps of a BPMN file on the repository's elements, so that an export
gives the file's ids, types and flows back (docs/interchange.md, "What is kept").

Every value is an attribute under the language-neutral culture, but the process names
(``BPMN_PROCESS_NAME``), which are by culture as names are.
"""
from __future__ import annotations

import re
from pathlib import PurePath

from interchange.model import BpmnModel

#: Every imported element: the id it has in the BPMN file.
BPMN_ID = "bpmnId"
#: Every imported element: its BPMN tag (``userTask``, ``participant``, ``lane``,
#: ``process``, ``collaboration``...), finer than our element type.
BPMN_TYPE = "bpmnType"
#: A pool (participant) that is not a black box: the id of its process.
BPMN_PROCESS = "bpmnProcess"
#: A diagram (the process element, or a sub-process with content): the flows drawn in
#: it, a list of ``{"id", "type", "source", "target"[, "name"]}`` with BPMN ids as ends and
#: ``name`` by culture id, ``default: true`` on a source's default flow and ``condition`` the text
#: of a conditionExpression. Predecessors stay the truth of which nodes are connected; this
#: only gives a flow back its id, tag and name, and keeps the flows predecessors cannot
#: hold (message flows, associations, data associations).
BPMN_FLOWS = "bpmnFlows"
#: A flow node: the kinds of its event definitions in file order (``BpmnNode.event_definitions``,
#: ``timer``, ``message``...), a list of text. Only where there are some.
BPMN_EVENT_DEFINITIONS = "bpmnEventDefinitions"
#: A boundary event that does not cancel its activity (``cancelActivity="false"``) or a
#: start event of an event sub-process that does not interrupt it (``isInterrupting="false"``):
#: ``false``. Never written otherwise (BPMN's default is true).
BPMN_INTERRUPTING = "bpmnInterrupting"
#: An activity's markers (``BpmnNode.markers``: ``loop``, ``parallel``, ``sequential``,
#: ``compensation``, ``eventSubProcess``), a list of text. Only where there are some.
BPMN_MARKERS = "bpmnMarkers"
#: A process's ``isExecutable`` (a boolean), where the file says: on the diagram when it
#: is the process, else on the pool or the org unit standing for the process.
BPMN_EXECUTABLE = "bpmnExecutable"
#: A pool's or a process org unit's process name, by culture like ``name`` (a diagram that
#: is the process has the process's name as its own ``name``).
BPMN_PROCESS_NAME = "bpmnProcessName"
#: A diagram named after the file it was imported from, because neither its process nor
#: its pool has a name: that file's name. An export names the process after the diagram
#: unless the diagram still has this name.
BPMN_FILE = "bpmnFile"
#: A diagram: the text annotations and groups drawn in it, a list of ``{"id", "type":
#: "textAnnotation", "text"}`` (``text`` by culture id) and ``{"id", "type": "group",
#: "members"[, "name"]}`` (the BPMN ids of the nodes its box held; its category value's
#: text by culture id). Associations to annotations are
#: among the diagram's ``bpmnFlows``.
BPMN_ARTIFACTS = "bpmnArtifacts"
#: Every kept attribute: the repository's bookkeeping, not text for people to read.
KEPT_ATTRIBUTES = frozenset((BPMN_ID, BPMN_TYPE, BPMN_PROCESS, BPMN_FLOWS, BPMN_ARTIFACTS, BPMN_EVENT_DEFINITIONS,
                             BPMN_INTERRUPTING, BPMN_MARKERS, BPMN_EXECUTABLE, BPMN_PROCESS_NAME, BPMN_FILE))


def name_from_file(file_name: str) -> str:
    """The name a diagram imported from a file that names none gets: the file's stem in
    words, without a collection's prefix (`blueprint.event-registration.bpmn` → "Event
    registration"), so a modeller reads a business name rather than a file name."""
    stem = PurePath(file_name).stem
    words = re.sub(r"[-_\s]+", " ", stem.rsplit(".", 1)[-1]).strip() or stem
    return words[:1].upper() + words[1:]


def kept_counts(model: BpmnModel) -> dict[str, int]:
    """How many of each kind a model holds: what `elrepo import` says it kept of a file
    and the HTTP BPMN export's ``X-Bpmn-Kept`` header what it wrote (docs/interchange.md).
    ``executableFlags`` counts the processes that say whether they are executable."""
    return {
        "nodes": len(model.nodes), "flows": len(model.flows), "pools": len(model.pools),
        "lanes": len(model.lanes), "groups": len(model.groups),
        "eventDefinitions": sum(len(node.event_definitions) for node in model.nodes),
        "nonInterrupting": sum(not node.interrupting for node in model.nodes),
        "markers": sum(len(node.markers) for node in model.nodes),
        "defaultFlows": sum(flow.default for flow in model.flows),
        "conditions": sum(bool(flow.condition) for flow in model.flows),
        "processNames": len(model.process_names),
        "executableFlags": len(model.executable),
    }
