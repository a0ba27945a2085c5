"""Complete BPMN diagram interchange (DI) for a model, written into its own XML tree.

Expects the tree the model was read from and a ``BpmnGeometry`` for it. Guarantees:
every existing ``BPMNDiagram`` is replaced by one new diagram whose plane shows the
collaboration (else the process): a ``BPMNShape`` with ``dc:Bounds`` for every pool,
lane, node and group (``isHorizontal`` on pools and lanes, ``isExpanded`` on sub-processes),
a ``BPMNEdge`` with its ``di:waypoint`` list for every flow and association that has a
route, ``BPMNLabel`` bounds for named elements drawn with an outside label. Nothing
else in the tree is touched (ids, documentation, extension elements, namespaces).
"""
from __future__ import annotations

from typing import Any

from lxml import etree

from interchange.ids import UniqueIds
from interchange.model import BpmnModel
from interchange.parsing import BPMNDI_NS, DC_NS, DI_NS
from interchange.positions import BpmnGeometry
from layouts.geometry import Box

PREFIXES = {"bpmndi": BPMNDI_NS, "dc": DC_NS, "di": DI_NS}


def write_bpmn(tree: Any, model: BpmnModel, geometry: BpmnGeometry) -> bytes:
    root = tree.getroot()
    for old in root.findall(f"{{{BPMNDI_NS}}}BPMNDiagram"):
        _remove(old)
    ids = UniqueIds(str(e.get("id")) for e in root.iter() if isinstance(e.tag, str) and e.get("id"))
    declared = set(root.nsmap.values())
    diagram = etree.SubElement(root, f"{{{BPMNDI_NS}}}BPMNDiagram",
                               nsmap={p: ns for p, ns in PREFIXES.items() if ns not in declared},
                               id=ids.new("BPMNDiagram_di"))
    plane = etree.SubElement(diagram, f"{{{BPMNDI_NS}}}BPMNPlane", id=ids.new("BPMNPlane_di"),
                             bpmnElement=model.plane_element)
    horizontal = "true" if geometry.horizontal else "false"
    for band_id in [pool.id for pool in model.pools] + [lane.id for lane in model.lanes]:
        _shape(plane, ids, band_id, geometry, {"isHorizontal": horizontal})
    for node in model.nodes:
        extra = {"isExpanded": "true" if node.id in geometry.expanded else "false"} if node.expandable else {}
        _shape(plane, ids, node.id, geometry, extra)
    for group in model.groups:
        _shape(plane, ids, group.id, geometry, {})
    for flow in model.flows:
        route = geometry.edges.get(flow.id)
        if not route:
            continue
        edge = etree.SubElement(plane, f"{{{BPMNDI_NS}}}BPMNEdge", id=ids.new(f"{flow.id}_di"), bpmnElement=flow.id)
        for x, y in route:
            etree.SubElement(edge, f"{{{DI_NS}}}waypoint", x=_number(x), y=_number(y))
        _label(edge, geometry.labels.get(flow.id))
    etree.indent(diagram, space="  ", level=1)
    diagram.tail = "\n"
    if diagram.getprevious() is not None and not (diagram.getprevious().tail or "").strip():
        diagram.getprevious().tail = "\n  "
    return bytes(etree.tostring(tree, xml_declaration=True, encoding="UTF-8"))


def _shape(plane: Any, ids: UniqueIds, element_id: str, geometry: BpmnGeometry, extra: dict[str, str]) -> None:
    box = geometry.shapes.get(element_id)
    if box is None:
        return
    attributes = {"id": ids.new(f"{element_id}_di"), "bpmnElement": element_id, **extra}
    shape = etree.SubElement(plane, f"{{{BPMNDI_NS}}}BPMNShape", attributes)
    _bounds(shape, box)
    _label(shape, geometry.labels.get(element_id))


def _label(parent: Any, box: Box | None) -> None:
    if box is not None:
        _bounds(etree.SubElement(parent, f"{{{BPMNDI_NS}}}BPMNLabel"), box)


def _bounds(parent: Any, box: Box) -> None:
    etree.SubElement(parent, f"{{{DC_NS}}}Bounds", x=_number(box.x), y=_number(box.y),
                     width=_number(box.w), height=_number(box.h))


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _remove(element: Any) -> None:
    """Remove an element, keeping the text that followed it in place."""
    parent, previous = element.getparent(), element.getprevious()
    if element.tail and previous is not None:
        previous.tail = element.tail
    parent.remove(element)
