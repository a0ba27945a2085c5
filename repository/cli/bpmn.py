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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repository import catalog
from repository.cli.common import EXIT_BAD_INPUT, CommandError, Subcommands, add_command, db_option, session_on

if TYPE_CHECKING:
    from interchange import BpmnImport
    from repository.store.models import Tenant
    from repository.wire import ContentItem, ElementInput

#: uuid5 namespace of imported element ids (never change it: re-imports would duplicate).
BPMN_ID_NAMESPACE = uuid.UUID("5d0f3c52-9a51-4d0e-8c57-6b1f2a9e4b11")
PROCESS_FACET = "processes"


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    command = add_command(commands, "import", "import BPMN 2.0 files into a tenant (importing a "
                          "file again updates the elements it made)")
    command.add_argument("collection", help="the tenant's collection id")
    command.add_argument("storage", help="the tenant's storage id")
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
    from repository.store import find_tenant

    with session_on(args.db) as session:
        if find_tenant(session, args.collection, args.storage) is None:
            raise CommandError(f"no tenant {args.collection}/{args.storage}")
    failed = 0
    for path in tqdm(args.models, disable=len(args.models) < 2, file=sys.stderr, unit="file"):
        try:
            _import_file(args, path)
        except (BpmnError, CommandError) as error:
            failed += 1
            tqdm.write(f"elrepo: {path}: {error}", file=sys.stderr)
        except RepositoryError as error:
            failed += 1
            tqdm.write(f"elrepo: {path}: {error.message}", file=sys.stderr)
    print(f"Imported {len(args.models) - failed} of {len(args.models)} file(s) into "
          f"{args.collection}/{args.storage}", file=sys.stderr)
    return EXIT_BAD_INPUT if failed else 0


def _import_file(args: argparse.Namespace, path: Path) -> None:
    """One file, one transaction: read and planned before the session opens, so a file
    that cannot be read touches nothing."""
    from interchange import read_bpmn
    from repository.store import Store, find_tenant
    from repository.store.imports import set_content, upsert_elements

    try:
        data = path.read_bytes()
    except OSError as error:
        raise CommandError(f"cannot read it: {error.strerror}") from None
    imported = read_bpmn(data)
    with session_on(args.db) as session:
        tenant = find_tenant(session, args.collection, args.storage)
        assert tenant is not None, "checked before the first file"
        plan = plan_import(imported, tenant, path.name)
        store = Store(session, tenant)
        upsert_elements(store, plan.units, None)
        elements = upsert_elements(store, plan.elements, None)
        for diagram_id, items in plan.contents.items():
            set_content(store, elements[diagram_id], items, None)


def plan_import(imported: BpmnImport, tenant: Tenant, file_name: str) -> ImportPlan:
    """The elements and contents of a BPMN file, with ids stable for this tenant, file
    name (without its folder) and model: modelling tools give many files the same
    process id (`Process_1`), so the process id alone would merge unrelated models."""
    from interchange.fixture import lane_keys, scope_fixture, scope_nodes
    from interchange.kept import BPMN_FLOWS, BPMN_ID, BPMN_PROCESS, BPMN_TYPE
    from repository.wire import ContentItem, ElementInput

    model = imported.model

    def stable_id(bpmn_id: str) -> str:
        key = "\n".join((tenant.collection_id, tenant.storage_id, file_name, model.plane_element, bpmn_id))
        return str(uuid.uuid5(BPMN_ID_NAMESPACE, key))

    def kept(bpmn_id: str, tag: str, **more: Any) -> dict[str, dict[int, Any]]:
        return {BPMN_ID: {catalog.NEUTRAL: bpmn_id}, BPMN_TYPE: {catalog.NEUTRAL: tag},
                **{name: {catalog.NEUTRAL: value} for name, value in more.items()}}

    def element_input(facet: str, bpmn_id: str, type_key: str, attributes: dict[str, dict[int, Any]],
                      related: dict[str, list[str]] | None = None,
                      children: list[str] | None = None) -> tuple[str, ElementInput]:
        return facet, ElementInput(id=stable_id(bpmn_id), version_id=None, type=type_key, facet=facet,
                                   attributes=attributes, related=related, children=children, content=None)

    pool_process = {pool.id: pool.process for pool in model.pools}
    lane_ids = {lane.id for lane in model.lanes}
    units = []
    for unit in imported.fixture["elements"]:
        tag = "participant" if unit["id"] in pool_process else "lane" if unit["id"] in lane_ids else "process"
        process = {BPMN_PROCESS: pool_process[unit["id"]]} if pool_process.get(unit["id"]) else {}
        units.append(element_input("organization", unit["id"], "orgUnit",
                                   {**_names(unit), **kept(unit["id"], tag, **process)},
                                   children=[stable_id(child["id"]) for child in unit.get("children", [])]))

    scope_of = {node.id: node.parent for node in model.nodes}
    flows: dict[str | None, list[dict[str, Any]]] = {}
    for flow in model.flows:
        entry: dict[str, Any] = {"id": flow.id, "type": flow.tag, "source": flow.source, "target": flow.target}
        if flow.names:
            entry["name"] = {str(culture): text for culture, text in flow.names.items()}
        flows.setdefault(scope_of.get(flow.source), []).append(entry)

    bands = lane_keys(model)
    scopes = [None] + [node.id for node in model.nodes if node.expandable and scope_nodes(model, node.id)]
    process_names = _names(imported.fixture["diagram"]) or {"name": {catalog.NEUTRAL: Path(file_name).stem}}
    process_kept = kept(model.plane_element, "collaboration" if model.pools else "process",
                        **{BPMN_FLOWS: flows.get(None, [])})
    every_unit = [stable_id(unit["id"]) for unit in imported.fixture["elements"]]  # so export finds them all
    elements = [element_input(PROCESS_FACET, model.plane_element, "mainProcess", {**process_names, **process_kept},
                              related={"executedBy": every_unit})]
    contents: dict[str, list[ContentItem]] = {}
    for scope in scopes:
        values = scope_fixture(model, scope_nodes(model, scope), bands).fixture["values"]
        items = []
        for value in values:
            raw = value["element"]
            node = model.node(raw["id"])
            assert node is not None, "every shape of the fixture is a node of the model"
            more = {BPMN_FLOWS: flows.get(node.id, [])} if node.id in scopes else {}
            type_key = raw["type"]
            elements.append(element_input(
                catalog.facet_of_type(type_key, PROCESS_FACET) or PROCESS_FACET, node.id, type_key,
                {**_names(raw), **kept(node.id, node.tag, **more)},
                related={"executedBy": [stable_id(ref["id"]) for ref in raw.get("related", {}).get("executedBy", [])]}))
            items.append(ContentItem(index=value["shapeInfo"]["index"], shape_id=None, element_id=stable_id(node.id),
                                     type=None, attributes={}, related={},
                                     predecessors=tuple(value["shapeInfo"]["predecessors"])))
        contents[stable_id(scope or model.plane_element)] = items
    return ImportPlan(units, elements, contents)


def _names(fixture_element: Mapping[str, Any]) -> dict[str, dict[int, Any]]:
    """The fixture's `name` attribute with culture ids as numbers, as the store keeps them."""
    names = fixture_element.get("attributes", {}).get("name", {})
    return {"name": {int(culture): text for culture, text in names.items()}} if names else {}
