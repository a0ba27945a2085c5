"""What a layout strategy reads: nodes with measured sizes, edges, lanes.

Plain frozen data, built by the builder of each layout key in ``renderer`` and never
mutated by a strategy. Sizes are in SVG user units in the final orientation (``width``
is always the horizontal extent).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class LayoutNode:
    """One box to place.

    ``label_width``/``label_height`` reserve room for a label drawn outside the symbol
    (events and gateways); 0 means the label, if any, fits inside the symbol.
    ``role`` tells non-flow strategies what the node stands for: ``shape`` (a diagram
    shape), ``satellite`` (a related element drawn beside its host), ``container``,
    ``leaf``, ``band``, ``chain`` and ``chevron`` (graphic hierarchy and process house),
    ``row``/``column`` (matrix headers), ``entity`` and ``subject`` (entity-relationship:
    a related element, and the diagram element in the middle).
    ``kind`` is the builder's name for what the node is (an element type); no strategy
    reads it. What a strategy needs of it comes as neutral properties: ``is_start``, a
    flow begins here (the layered layouts start from these nodes); ``pointed``, the
    symbol has no flat side (edges meet it at the middle of a side); ``round``, a pointed
    symbol that is a circle, not a diamond (an edge meeting it off the middle of a side
    ends on the circle).
    """

    id: str
    kind: str
    width: float
    height: float
    label_width: float = 0.0
    label_height: float = 0.0
    lane: str | None = None
    role: str = "shape"
    parent: str | None = None
    is_start: bool = False
    pointed: bool = False
    round: bool = False


@dataclass(frozen=True, slots=True)
class LayoutEdge:
    """A directed link between two node ids; ``label_width``/``label_height`` reserve
    room for an edge label (entity-relationship, matrix marks) when non-zero.
    ``off_main_path`` keeps the edge off the main path that layered layouts draw on one
    line (a BPMN boundary event's flow: the exception, not the happy path);
    ``default_branch`` marks the branch a modeller named the default (BPMN's default
    flow), which that main path follows."""

    source: str
    target: str
    label_width: float = 0.0
    label_height: float = 0.0
    key: str = ""
    off_main_path: bool = False
    default_branch: bool = False


@dataclass(frozen=True, slots=True)
class LaneSpec:
    """A swimlane: its id (the org unit's element id, or ``unassigned``) and the measured
    size of its header text: ``header_width`` runs along the lane (the lane is at least
    that long across the flow), ``header_height`` is the thickness of the header strip."""

    id: str
    header_width: float
    header_height: float


@dataclass(frozen=True, slots=True)
class LayoutGraph:
    """``aligned``: pairs of node ids that layered layouts put in one layer where that
    costs little (``layouts/steps/layering.py``): the ends of a BPMN message flow, in
    two pools, so that it runs straight across; empty for every other diagram."""

    nodes: tuple[LayoutNode, ...]
    edges: tuple[LayoutEdge, ...]
    lanes: tuple[LaneSpec, ...] = field(default=())
    aligned: tuple[tuple[str, str], ...] = field(default=())

    def node(self, node_id: str) -> LayoutNode:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)
