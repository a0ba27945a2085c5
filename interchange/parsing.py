"""Safe reading of BPMN 2.0 XML: bytes in, an lxml tree out, or one ``BpmnError`` line.

Expects untrusted bytes (an upload, a file a modeller brings). Guarantees: no entity is
expanded, no DTD is accepted, nothing is fetched from the network, input over
``MAX_BPMN_BYTES`` is refused before parsing, and the root is a BPMN ``definitions``.
"""
from __future__ import annotations

from typing import Any

from lxml import etree

MODEL_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL"
BPMNDI_NS = "http://www.omg.org/spec/BPMN/20100524/DI"
DC_NS = "http://www.omg.org/spec/DD/20100524/DC"
DI_NS = "http://www.omg.org/spec/DD/20100524/DI"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

#: Larger than any real model we know (a 540-node mined model is under 0.5 MB).
MAX_BPMN_BYTES = 16 * 1024 * 1024
DOCTYPE_REFUSED = "a DOCTYPE (DTD or entity declarations) is not accepted in a BPMN file"


class BpmnError(ValueError):
    """A BPMN file that cannot be read; the message is one line a modeller can act on."""


def parse_bpmn_xml(data: bytes) -> Any:
    """The parsed document (an lxml ElementTree) of ``data``."""
    if not isinstance(data, bytes):
        raise BpmnError("BPMN input must be bytes")
    if len(data) > MAX_BPMN_BYTES:
        raise BpmnError(f"BPMN file too large: {len(data):,} bytes, at most {MAX_BPMN_BYTES:,}")
    if b"<!DOCTYPE" in data:  # UTF-8 and ASCII files; other encodings are caught after parsing
        raise BpmnError(DOCTYPE_REFUSED)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             remove_comments=False, load_dtd=False, dtd_validation=False)
    try:
        tree = etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as error:
        raise BpmnError(f"not well-formed XML at line {error.lineno}: {one_line(str(error.msg))}") from None
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise BpmnError(DOCTYPE_REFUSED)
    root = tree.getroot()
    if root.tag != qname("definitions"):
        raise BpmnError(f"not a BPMN 2.0 file: the root element is {local_name(root)!r} at line "
                        f"{root.sourceline}, expected 'definitions' in namespace {MODEL_NS}")
    return tree


def qname(local: str, namespace: str = MODEL_NS) -> str:
    return f"{{{namespace}}}{local}"


def local_name(element: Any) -> str:
    """The tag without its namespace; comments and processing instructions give ''."""
    tag = element.tag
    return str(etree.QName(tag).localname) if isinstance(tag, str) else ""


def namespace_of(element: Any) -> str:
    tag = element.tag
    return str(etree.QName(tag).namespace or "") if isinstance(tag, str) else ""


def one_line(text: str) -> str:
    return " ".join(text.split())
