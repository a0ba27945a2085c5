"""`elrepo import`: BPMN 2.0 files into a tenant (docs/interchange.md).

Each file in one transaction of its own: the process element, an element per flow node
and data object, an org unit per pool and lane (shapes `executedBy` their lane), and the
diagram's content with predecessors, as content create writes it; every expanded
sub-process gets its own content the same way. Element ids are derived from the tenant,
the file's name, its collaboration or process id and the BPMN id, so importing the same
file again updates the same elements. A bad file is one line on standard error and
writes nothing; the others go on, and the exit status is then 2.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renderer.culture import text_keyed
from repository import catalog
from repository.cli.common import EXIT_BAD_INPUT, CommandError, Subcommands, add_command, db_option, tenant_session

if TYPE_CHECKING:
    from interchange import BpmnImport
    from interchange.model import BpmnModel
    from repository.store.models import Tenant
    from repository.wire import ContentItem, ElementInput

#: uuid5 namespace of imported element ids (never change it: re-imports would duplicate).
BPMN_ID_NAMESPACE = uuid.UUID("5d0f3c52-9a51-4d0e-8c57-6b1f2a9e4b11")
PROCESS_FACET = "processes"


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    command = add_command(commands, "import", "import BPMN 2.0 files into a tenant (importing a "
                          "file again updates the elements it made)", on_tenant=True)
    command.add_argument("models", nargs="+", type=Path, metavar="MODEL.bpmn", help="BPMN 2.0 XML files")
    db_option(command)
    command.set_defaults(command=_import)


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What one BPMN file writes: (facet, input) of the org units, of the process element
    and the shapes' elements, and the content of each diagram by its element id."""

    units: list[tuple[str, ElementInput]]
    elements: list[tuple[str, ElementInput]]
    contents: dict[str, list[ContentItem]]


def _import(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from interchange import BpmnError
    from repository.errors import RepositoryError

    with tenant_session(args, write=False):
        pass  # an unknown tenant is refused before the first file, not once per file
    failed = 0
    for path in tqdm(args.models, disable=len(args.models) < 2, file=sys.stderr, unit="file"):
        try:
            tqdm.write(f"elrepo: {path}: {_import_file(args, path)}", file=sys.stderr)
        except (BpmnError, CommandError) as error:
            failed += 1
            tqdm.write(f"elrepo: {path}: {error}", file=sys.stderr)
        except RepositoryError as error:
            failed += 1
            tqdm.write(f"elrepo: {path}: {error.message}", file=sys.stderr)
    print(f"Imported {len(args.models) - failed} of {len(args.models)} file(s) into "
          f"{args.collection}/{args.storage}", file=sys.stderr)
    return EXIT_BAD_INPUT if failed else 0


def _import_file(args: argparse.Namespace, path: Path) -> str:
    """One file, one transaction: read and planned before the session opens, so a file
    that cannot be read touches nothing. Says what it kept (`kept_summary`)."""
    from tqdm import tqdm

    from interchange import read_bpmn
    from interchange.kept import KEPT_ATTRIBUTES
    from repository.store import Store
    from repository.store.imports import set_content, upsert_elements

    try:
        data = path.read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read it: {error.strerror}") from None
    imported = read_bpmn(data)
    for warning in imported.model.warnings:
        tqdm.write(f"elrepo: {path}: warning: {warning}", file=sys.stderr)
    with tenant_session(args) as (session, tenant):
        plan = plan_import(imported, tenant, path.name)
        store = Store(session, tenant)
        upsert_elements(store, plan.units, None, KEPT_ATTRIBUTES)
        elements = upsert_elements(store, plan.elements, None, KEPT_ATTRIBUTES)
        for diagram_id, items in plan.contents.items():
            set_content(store, elements[diagram_id], items, None)
    return kept_summary(imported.model, len(plan.contents))


#: The meaning `kept_summary` names when a file has some (`kept_counts`' keys).
MEANING_WORDS = {"eventDefinitions": "event definition", "nonInterrupting": "non-interrupting event",
                 "markers": "activity marker", "defaultFlows": "default flow", "conditions": "condition",
                 "processNames": "process name", "executableFlags": "isExecutable flag"}


def kept_summary(model: BpmnModel, diagrams: int) -> str:
    """One line: what of the file was imported, counted per BPMN kind, the meaning kept
    beyond the tags (only kinds there are), and what was not (elements the reader does
    not know, warnings)."""
    from interchange.kept import kept_counts

    def many(count: int, word: str) -> str:
        return f"{count} {word}" + ("" if count == 1 else "s")

    def per_tag(tags: list[str]) -> str:
        counted = Counter(tags)
        return f" ({', '.join(f'{counted[tag]} {tag}' for tag in sorted(counted))})" if tags else ""

    counts = kept_counts(model)
    kept = [many(counts["nodes"], "node") + per_tag([n.tag for n in model.nodes]),
            many(counts["flows"], "flow") + per_tag([f.tag for f in model.flows]),
            many(counts["pools"], "pool"), many(counts["lanes"], "lane"),
            many(counts["groups"], "group"), many(diagrams, "diagram")]
    meaning = [many(counts[key], word) for key, word in MEANING_WORDS.items() if counts[key]]
    not_kept = [many(len(model.unknown), "element") + " not read"
                + per_tag([u.tag for u in model.unknown]), many(len(model.warnings), "warning")]
    return f"imported {', '.join(kept)}{'; with ' + ', '.join(meaning) if meaning else ''}; {', '.join(not_kept)}"


def plan_import(imported: BpmnImport, tenant: Tenant, file_name: str) -> ImportPlan:
    """The elements and contents of a BPMN file, with ids stable for this tenant, file
    name (without its folder) and model: modelling tools give many files the same
    process id (`Process_1`), so the process id alone would merge unrelated models.

    They are written as the bodies of an update (every element of the file) and of a
    content create per diagram, and read back by the API's own parsers
    (`wire.parse_document`): an imported file meets exactly the input rules and limits
    of a request (docs/reliability.md, "Request limits and Idempotency-Key (issue 18)"),
    and a file that breaks one is refused whole with the API's message."""
    from interchange.fixture import lane_keys, scope_fixture, scope_nodes
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
    from interchange.model import ANNOTATION
    from repository.wire import parse_content_body, parse_document, parse_update_body

    model = imported.model
    neutral = str(catalog.NEUTRAL)

    def stable_id(bpmn_id: str) -> str:
        key = "\n".join((tenant.collection_id, tenant.storage_id, file_name, model.plane_element, bpmn_id))
        return str(uuid.uuid5(BPMN_ID_NAMESPACE, key))

    def unit_id(bpmn_id: str) -> str:
        """An org unit's id. The unit of the diagram's own process (lanes, no pool) has the
        process's BPMN id, as the diagram has: keyed apart, else one id had two types."""
        return stable_id(f"{bpmn_id}\norgUnit" if bpmn_id == model.plane_element else bpmn_id)

    def references(unit_ids: list[str]) -> list[dict[str, str]]:
        return [{"id": unit_id(bpmn_id)} for bpmn_id in unit_ids]

    def kept(bpmn_id: str, tag: str, **more: Any) -> dict[str, dict[str, Any]]:
        return {BPMN_ID: {neutral: bpmn_id}, BPMN_TYPE: {neutral: tag},
                **{name: {neutral: value} for name, value in more.items()}}

    def element(facet: str, element_id: str, type_key: str, attributes: dict[str, dict[str, Any]],
                related: dict[str, list[dict[str, str]]] | None = None,
                children: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """One element of the update body (wire form, docs/contract.md)."""
        return {"id": element_id, "type": type_key, "facetName": facet, "attributes": attributes,
                **({"related": related} if related is not None else {}),
                **({"children": children} if children is not None else {})}

    def process_kept(process: str) -> dict[str, dict[str, Any]]:
        """What a pool or process org unit keeps of the process it stands for."""
        names = model.process_names.get(process, {})
        executable = {BPMN_EXECUTABLE: {neutral: model.executable[process]}} if process in model.executable else {}
        return {**({BPMN_PROCESS_NAME: text_keyed(names)} if names else {}), **executable}

    pool_process = {pool.id: pool.process for pool in model.pools}
    lane_ids = {lane.id for lane in model.lanes}
    units = []
    for unit in imported.fixture["elements"]:
        tag = "participant" if unit["id"] in pool_process else "lane" if unit["id"] in lane_ids else "process"
        process = pool_process.get(unit["id"], unit["id"] if tag == "process" else "")
        attributes = {**_names(unit), **kept(unit["id"], tag, **({BPMN_PROCESS: process} if tag == "participant"
                                                                  and process else {}))}
        if process and process != model.plane_element:  # the diagram keeps its own process's
            attributes.update(process_kept(process))
        units.append(element("organization", unit_id(unit["id"]), "orgUnit", attributes,
                             children=references([child["id"] for child in unit.get("children", [])])))

    scope_of = {node.id: node.parent for node in model.nodes}
    annotations = {node.id for node in model.nodes if node.kind == ANNOTATION}
    flows: dict[str | None, list[dict[str, Any]]] = {}
    for flow in model.flows:
        entry: dict[str, Any] = {"id": flow.id, "type": flow.tag, "source": flow.source, "target": flow.target}
        if flow.names:
            entry["name"] = text_keyed(flow.names)
        if flow.default:
            entry["default"] = True
        if flow.condition:
            entry["condition"] = flow.condition
        # kept with the diagram that draws its source; an association with its annotation's
        owner = flow.target if flow.tag == "association" and flow.target in annotations else flow.source
        flows.setdefault(scope_of.get(owner), []).append(entry)

    artifacts: dict[str | None, list[dict[str, Any]]] = {}  # scope → its annotations and groups
    for annotation in model.nodes:
        if annotation.kind == ANNOTATION:
            artifacts.setdefault(annotation.parent, []).append(
                {"id": annotation.id, "type": "textAnnotation", "text": text_keyed(annotation.names)})
    artifacts.setdefault(None, []).extend(
        {"id": group.id, "type": "group", "members": list(group.members),
         **({"name": text_keyed(group.names)} if group.names else {})} for group in model.groups)

    def artifacts_of(scope: str | None) -> dict[str, Any]:
        return {BPMN_ARTIFACTS: artifacts[scope]} if artifacts.get(scope) else {}

    bands = lane_keys(model)
    scopes = [None] + [node.id for node in model.nodes if node.expandable and scope_nodes(model, node.id)]
    diagram_names = diagram_name(model)
    named = {"name": text_keyed(diagram_names)} if diagram_names else \
        {"name": {neutral: name_from_file(file_name)}, BPMN_FILE: {neutral: file_name}}
    diagram_kept = kept(model.plane_element, "collaboration" if model.pools else "process",
                        **{BPMN_FLOWS: flows.get(None, [])}, **artifacts_of(None))
    if not model.pools:  # the diagram is the process
        diagram_kept.update(process_kept(model.plane_element))
        diagram_kept.pop(BPMN_PROCESS_NAME, None)  # its own name
    every_unit = references([unit["id"] for unit in imported.fixture["elements"]])  # so export finds them all
    elements = [element(PROCESS_FACET, stable_id(model.plane_element), "mainProcess", {**named, **diagram_kept},
                        related={"executedBy": every_unit})]
    content_bodies: dict[str, dict[str, Any]] = {}
    for scope in scopes:
        values = scope_fixture(model, scope_nodes(model, scope), bands).fixture["values"]
        items = []
        for value in values:
            raw = value["element"]
            node = model.node(raw["id"])
            assert node is not None, "every shape of the fixture is a node of the model"
            more: dict[str, Any] = {BPMN_FLOWS: flows.get(node.id, []), **artifacts_of(node.id)} \
                if node.id in scopes else {}
            if node.event_definitions:
                more[BPMN_EVENT_DEFINITIONS] = list(node.event_definitions)
            if not node.interrupting:
                more[BPMN_INTERRUPTING] = False
            if node.markers:
                more[BPMN_MARKERS] = list(node.markers)
            type_key = raw["type"]
            lanes = [ref["id"] for ref in raw.get("related", {}).get("executedBy", [])]
            elements.append(element(
                catalog.facet_of_type(type_key, PROCESS_FACET) or PROCESS_FACET, stable_id(node.id), type_key,
                {**_names(raw), **kept(node.id, node.tag, **more)}, related={"executedBy": references(lanes)}))
            items.append({"shapeInfo": {"index": value["shapeInfo"]["index"],
                                        "predecessors": value["shapeInfo"]["predecessors"]},
                          "element": {"id": stable_id(node.id)}})
        content_bodies[stable_id(scope or model.plane_element)] = {"values": items}
    every_element = units + elements
    parsed = parse_document(parse_update_body, {"count": len(every_element), "elements": every_element})
    inputs = [(data.facet or PROCESS_FACET, data) for data in parsed]
    contents = {diagram_id: parse_document(parse_content_body, body) for diagram_id, body in content_bodies.items()}
    return ImportPlan(inputs[:len(units)], inputs[len(units):], contents)


def diagram_name(model: BpmnModel) -> Mapping[int, str]:
    """The name of a file's diagram by culture: its process's (a file without pools), else
    the first named pool's that holds a process, else the first named process's, else the
    first named black-box pool's (a partner, such as "Customer", names the diagram last);
    none when nothing is named."""
    if not model.pools:
        return model.process_names.get(model.plane_element, {})
    named = [pool.names for pool in model.pools if pool.names and pool.process]
    named += [model.process_names[process] for process in model.processes if process in model.process_names]
    named += [pool.names for pool in model.pools if pool.names and not pool.process]
    return named[0] if named else {}


def _names(fixture_element: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The fixture's `name` attribute, culture ids as text keys (the wire form)."""
    names = fixture_element.get("attributes", {}).get("name", {})
    return {"name": text_keyed(names)} if names else {}
