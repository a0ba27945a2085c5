"""Safe reading of BPMN 2.0 XML: bytes in, an lxml tree out, or one ``BpmnError`` line.

Expects untrusted bytes (an upload, a file a modeller brings). Guarantees: no entity is
expanded, no DTD is accepted, nothing is fetched from the network, input over
``MAX_BPMN_BYTES`` is refused before parsing, and the root is a BPMN ``definitions``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lxml import etree

MODEL_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL"
BPMNDI_NS = "http://www.omg.org/spec/BPMN/20100524/DI"
DC_NS = "http://www.omg.org/spec/DD/20100524/DC"
DI_NS = "http://www.omg.org/spec/DD/20100524/DI"
#: Our extension elements: a group's members (``<elrepo:member ref="..."/>``), which BPMN
#: leaves to the diagram's boxes, written by an export that has no boxes yet.
ELREPO_NS = "https://elrepo.dev/schema/bpmn"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

#: Larger than any real model we know (a 540-node mined model is under 0.5 MB).
MAX_BPMN_BYTES = 16 * 1024 * 1024
DOCTYPE_REFUSED = "a DOCTYPE (DTD or entity declarations) is not accepted in a BPMN file"
_DECLARED_ENCODING = re.compile(r"""^(\s*<\?xml[^>]*?encoding\s*=\s*["'])[^"']*(["'])""")
#: The encoding a declaration written in ASCII-compatible bytes names.
_DECLARED_NAME = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""")
#: Encodings of 2 or 4 bytes a character: declared in ASCII-compatible bytes, the declaration lies.
_WIDE_ENCODING = re.compile(r"(utf|ucs)-?(16|32|2|4)", re.IGNORECASE)


class BpmnError(ValueError):
    """A BPMN file that cannot be read; the message is one line a modeller can act on."""


@dataclass(frozen=True, slots=True)
class ParsedBpmn:
    """A parsed document and what was odd about its bytes but could be read."""

    tree: Any
    warnings: tuple[str, ...] = ()


def parse_bpmn_xml(data: bytes) -> Any:
    """The parsed document (an lxml ElementTree) of ``data``."""
    return parse_bpmn(data).tree


def parse_bpmn(data: bytes) -> ParsedBpmn:
    """``data`` parsed, recovering from the faults modelling tools write and bpmn-moddle
    reads: bytes that are not in the declared encoding, and a declared encoding that is
    unknown (a Java name such as ``ISO8859_1``) or cannot be the file's (``utf-16`` in
    bytes of one byte a character, as .NET writes a string it saved as UTF-8): read again
    as UTF-8, else latin-1; namespace URIs that are not valid URIs (libxml2's recovery
    mode, only when every error is a namespace error). Anything else not well-formed is
    refused."""
    if not isinstance(data, bytes):
        raise BpmnError("BPMN input must be bytes")
    if len(data) > MAX_BPMN_BYTES:
        raise BpmnError(f"BPMN file too large: {len(data):,} bytes, at most {MAX_BPMN_BYTES:,}")
    warnings: list[str] = []
    try:
        tree = _parse(data, recover=False)
    except _NotWellFormed as error:
        declared = _declared_encoding(data)
        misdeclared = error.of_unknown_encoding or bool(_WIDE_ENCODING.match(declared))
        if not error.of_encoding and not misdeclared:
            tree = _recover_namespaces(data, error, warnings)
        else:
            data, codec = _as_utf8(data)
            warnings.append(f"the declared encoding {declared!r} is unknown or not the file's: read as {codec}"
                            if misdeclared else
                            f"bytes not in the declared encoding at line {error.line}: read as {codec}")
            try:
                tree = _parse(data, recover=False)
            except _NotWellFormed as again:
                tree = _recover_namespaces(data, again, warnings)
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise BpmnError(DOCTYPE_REFUSED)
    root = tree.getroot()
    if root.tag != qname("definitions"):
        raise BpmnError(f"not a BPMN 2.0 file: the root element is {local_name(root)!r} at line "
                        f"{root.sourceline}, expected 'definitions' in namespace {MODEL_NS}")
    return ParsedBpmn(tree, tuple(warnings))


class _NotWellFormed(Exception):
    """A strict parse's failure, with the kinds of error its own parser logged (lxml's
    exception may also carry errors of earlier parses in the same thread)."""

    def __init__(self, error: etree.XMLSyntaxError, log: Any) -> None:
        super().__init__(one_line(str(error.msg)))
        self.line = error.lineno
        self.refusal = f"not well-formed XML at line {error.lineno}: {one_line(str(error.msg))}"
        self.of_encoding = any(entry.type_name == "ERR_INVALID_ENCODING" or entry.domain_name == "ENCODING"
                               for entry in log)
        self.of_unknown_encoding = any(entry.type_name == "ERR_UNSUPPORTED_ENCODING" for entry in log)
        self.of_namespaces_only = bool(log) and all(entry.domain_name == "NAMESPACE" for entry in log)


def _parse(data: bytes, *, recover: bool) -> Any:
    """One hardened parse: no entity expanded, no DTD loaded, nothing fetched."""
    if b"<!DOCTYPE" in data:  # UTF-8 and ASCII files; other encodings are caught after parsing
        raise BpmnError(DOCTYPE_REFUSED)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             remove_comments=False, load_dtd=False, dtd_validation=False, recover=recover)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        raise _NotWellFormed(error, parser.error_log) from None
    if root is None:  # recovery found no element at all
        raise BpmnError("not well-formed XML: no element found")
    return etree.ElementTree(root)


def _declared_encoding(data: bytes) -> str:
    """The encoding the XML declaration names, when it is written in ASCII-compatible bytes."""
    match = _DECLARED_NAME.match(data)
    return match.group(1).decode("ascii", "replace") if match else ""


def _as_utf8(data: bytes) -> tuple[bytes, str]:
    """``data`` decoded as UTF-8, else latin-1 (which decodes any byte), and encoded as
    UTF-8 with its XML declaration saying so; the name of the codec that decoded it."""
    for codec in ("UTF-8", "latin-1"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        text = _DECLARED_ENCODING.sub(r"\1UTF-8\2", text, count=1)
        return text.encode("utf-8"), codec
    raise AssertionError("latin-1 decodes any byte")


def _recover_namespaces(data: bytes, error: _NotWellFormed, warnings: list[str]) -> Any:
    """The tree libxml2's recovery mode reads when every error is a namespace error (an
    xmlns URI that is not a valid URI); ``error`` as a ``BpmnError`` otherwise."""
    if not error.of_namespaces_only:
        raise BpmnError(error.refusal)
    try:
        tree = _parse(data, recover=True)
    except _NotWellFormed:
        raise BpmnError(error.refusal) from None
    warnings.append(f"namespace problem at line {error.line} ({error}): read in recovery mode")
    return tree


def qname(local: str, namespace: str = MODEL_NS) -> str:
    return f"{{{namespace}}}{local}"


def local_name(element: Any) -> str:
    """The tag without its namespace; comments and processing instructions give ''.
    (Read off lxml's ``{namespace}local`` text: a QName per element costs a reader of a
    540-node model a tenth of a second.)"""
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def namespace_of(element: Any) -> str:
    tag = element.tag
    return tag[1:tag.index("}")] if isinstance(tag, str) and tag.startswith("{") else ""


def one_line(text: str) -> str:
    return " ".join(text.split())
