"""What an import keeps of a BPMN file on the repository's elements, so that an export
gives the file's ids, types and flows back (docs/interchange.md, "What is kept").

Every value is an attribute under the language-neutral culture.
"""
from __future__ import annotations

#: Every imported element: the id it has in the BPMN file.
BPMN_ID = "bpmnId"
#: Every imported element: its BPMN tag (``userTask``, ``participant``, ``lane``,
#: ``process``, ``collaboration``...), finer than our element type.
BPMN_TYPE = "bpmnType"
#: A pool (participant) that is not a black box: the id of its process.
BPMN_PROCESS = "bpmnProcess"
#: A diagram (the process element, or a sub-process with content): the flows drawn in
#: it, a list of ``{"id", "type", "source", "target"[, "name"]}`` with BPMN ids as ends and
#: ``name`` by culture id. Predecessors stay the truth of which nodes are connected; this
#: only gives a flow back its id, tag and name, and keeps the flows predecessors cannot
#: hold (message flows, associations, data associations).
BPMN_FLOWS = "bpmnFlows"
