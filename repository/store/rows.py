"""The row writes every change is made of: attribute upserts, link and structure
(children, content) replacement, and the revision bump that starts each write. Each
takes a fixed number of statements however many rows it writes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, select, update

from repository.errors import InvalidInput, PreconditionFailed
from repository.store import batch
from repository.store.base import StoreContext, pks_of
from repository.store.batch import IN_CHUNK
from repository.store.generation import bump_content_generation
from repository.store.models import AttributeValue, Child, Element, ElementVersion, RelatedLink, Shape
from repository.store.reads import Reads
from repository.store.values import (
    NEUTRAL,
    attribute_row,
    encoded,
    link_rows,
    new_id,
    now_timestamp,
)
from repository.wire import AttributeMap, ContentEntry, ElementInput


class Rows:
    """Row writes on versions the caller has chosen (see `Versions.writable_version`)."""

    def __init__(self, context: StoreContext, reads: Reads) -> None:
        self.context = context
        self.reads = reads

    def touch(self, element: Element, version: ElementVersion, actor_pk: int | None) -> None:
        """Refresh changedOn and changedBy, as every write does."""
        self.write_attributes(version, {"changedOn": {NEUTRAL: now_timestamp()}})
        if actor_pk is not None:
            self.set_links(version, "changedBy", [actor_pk])

    def count_writes(self, elements: Sequence[Element],
                     if_match: frozenset[int] | None = None) -> None:
        """Bump each element's revision (its ETag) first thing in a write: a stale
        `if_match` fails before anything is written, and on PostgreSQL the row locks this
        takes order concurrent writers of an element (the later one then reloads the
        element and sees the earlier one's revision and rows). The tenant's content
        generation (the render cache's key) is bumped before that, so every write to an
        existing element invalidates the tenant's renders."""
        bump_content_generation(self.context.session, self.context.tenant.pk)
        pks = [element.pk for element in elements]
        bumped: set[int] = set()
        for start in range(0, len(pks), IN_CHUNK):
            statement = (update(Element).where(Element.pk.in_(pks[start:start + IN_CHUNK]))
                         .values(revision=Element.revision + 1).returning(Element.pk)
                         .execution_options(synchronize_session=False))
            if if_match is not None:
                statement = statement.where(Element.revision.in_(sorted(if_match)))
            bumped.update(self.context.session.scalars(statement))
        stale = [element for element in elements if element.pk not in bumped]
        if stale:
            current = self.context.session.scalar(select(Element.revision)
                                                  .where(Element.pk == stale[0].pk))
            raise PreconditionFailed(
                f"If-Match: {stale[0].id!r} has changed since; its ETag is now "
                f'"{current}". Nothing was written: reload it and retry')
        # Reload them: on PostgreSQL an earlier writer may have changed them meanwhile.
        list(batch.chunked_rows(
            self.context.session, select(Element).execution_options(populate_existing=True),
            Element.pk, pks))

    # ---- attributes and links ------------------------------------------------------

    def write_attributes(self, version: ElementVersion, values: AttributeMap) -> None:
        """Upsert per (name, culture); None deletes."""
        self.write_attributes_of({version.pk: values})

    def write_attributes_of(self, values_of: dict[int, AttributeMap]) -> None:
        """`write_attributes` for many versions (by pk), in bulk statements."""
        names = {name for values in values_of.values() for name in values}
        if not names:
            return
        existing = {(version_pk, name, culture): pk
                    for pk, version_pk, name, culture in batch.chunked_rows(
                        self.context.session,
                        select(AttributeValue.pk, AttributeValue.version_pk, AttributeValue.name,
                               AttributeValue.culture).where(AttributeValue.name.in_(names)),
                        AttributeValue.version_pk, values_of)}
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        deletes: list[int] = []
        for version_pk, values in values_of.items():
            for name, per_culture in values.items():
                for culture, value in per_culture.items():
                    pk = existing.get((version_pk, name, culture))
                    if value is None:
                        if pk is not None:
                            deletes.append(pk)
                    elif pk is None:
                        inserts.append(attribute_row(version_pk, name, culture, value))
                    else:
                        updates.append({"pk": pk, **encoded(value)})
        for start in range(0, len(deletes), IN_CHUNK):
            self.context.session.execute(delete(AttributeValue).where(
                AttributeValue.pk.in_(deletes[start:start + IN_CHUNK])))
        self.context.insert(AttributeValue, inserts)
        if updates:
            self.context.session.execute(update(AttributeValue), updates)

    def set_links(self, version: ElementVersion, context: str, target_pks: Sequence[int],
                  target_version_pks: Sequence[int | None] | None = None) -> None:
        """Replace one context's links."""
        self.replace_links({context: [version.pk]}, link_rows(
            version.pk, context, target_pks, target_version_pks))

    def set_links_of(self, links_of: dict[int, dict[str, list[int]]]) -> None:
        """Replace the named contexts' links of many versions (by pk), in bulk."""
        versions_of: dict[str, list[int]] = {}
        for version_pk, links in links_of.items():
            for context in links:
                versions_of.setdefault(context, []).append(version_pk)
        self.replace_links(versions_of, [
            row for version_pk, links in links_of.items()
            for context, target_pks in links.items()
            for row in link_rows(version_pk, context, target_pks)])

    def replace_links(self, versions_of: dict[str, list[int]],
                      rows: list[dict[str, Any]]) -> None:
        """Drop the links of each context from the versions listed for it, then insert
        `rows`."""
        for context, version_pks in versions_of.items():
            for start in range(0, len(version_pks), IN_CHUNK):
                self.context.session.execute(delete(RelatedLink).where(
                    RelatedLink.context == context,
                    RelatedLink.version_pk.in_(version_pks[start:start + IN_CHUNK])))
        self.context.insert(RelatedLink, rows)

    # ---- structure: children and content -------------------------------------------

    def set_structure(self, element: Element, version: ElementVersion,
                      data: ElementInput) -> None:
        if data.children is not None:
            self.set_children(element, version, data.children)
        if data.content is not None:
            self.replace_content(element, version, data.content)

    def set_children(self, element: Element, version: ElementVersion,
                     child_ids: Sequence[str]) -> None:
        if len(set(child_ids)) != len(child_ids):
            raise InvalidInput("children: an element is listed twice")
        child_pks = self.context.existing_pks(child_ids, "children")
        ancestors = {element.pk} | {e.pk for e in self.reads.root_path(element)}
        for child_id, pk in zip(child_ids, child_pks, strict=True):
            if pk in ancestors:
                raise InvalidInput(f"children: {child_id!r} is {element.id!r} itself or one "
                                   "of its parents; the hierarchy cannot loop")
        self.context.session.execute(delete(Child).where(Child.version_pk == version.pk))
        self.context.insert(Child, [{"version_pk": version.pk, "parent_pk": element.pk,
                                     "child_pk": pk, "position": i}
                                    for i, pk in enumerate(child_pks)])

    def replace_content(self, diagram: Element, version: ElementVersion,
                        entries: Sequence[ContentEntry]) -> None:
        """Keep the named shapes in the given order, add shapes for bare ids, drop the
        rest; a fixed number of statements however long the list."""
        existing = {shape_id: (pk, json.loads(predecessors))
                    for pk, shape_id, predecessors in self.context.session.execute(
                        select(Shape.pk, Shape.shape_id, Shape.predecessors)
                        .where(Shape.version_pk == version.pk))}
        found = self.context.pks_by_id(entry.element_id for entry in entries
                                       if entry.shape_id is None and entry.element_id is not None)
        shape_ids: list[str] = []
        listed: set[str] = set()
        new_shapes: dict[str, int] = {}  # shape id → the element it shows
        for i, entry in enumerate(entries):
            if entry.shape_id is None:
                assert entry.element_id is not None
                shape_id = new_id()
                new_shapes[shape_id] = pks_of(found, [entry.element_id], f"content[{i}].id")[0]
            elif entry.shape_id not in existing:
                raise InvalidInput(f"content[{i}]: shape {entry.shape_id!r} is not a shape "
                                   f"of {diagram.id!r}")
            elif entry.shape_id in listed:
                raise InvalidInput(f"content[{i}]: shape {entry.shape_id!r} listed twice")
            else:
                shape_id = entry.shape_id
                listed.add(shape_id)
            shape_ids.append(shape_id)
        kept_ids = set(shape_ids)
        predecessors_of: list[list[str]] = []
        for i, (entry, shape_id) in enumerate(zip(entries, shape_ids, strict=True)):
            if entry.predecessors is None:
                previous = existing[shape_id][1] if shape_id in existing else []
                predecessors_of.append([p for p in previous if p in kept_ids])
                continue
            bad = [p for p in entry.predecessors if p not in kept_ids or p == shape_id]
            if bad:
                raise InvalidInput(f"content[{i}].predecessors: {bad} must be other shapes "
                                   "of this content list")
            predecessors_of.append(list(dict.fromkeys(entry.predecessors)))
        dropped = [pk for shape_id, (pk, _) in existing.items() if shape_id not in kept_ids]
        for start in range(0, len(dropped), IN_CHUNK):
            self.context.session.execute(delete(Shape).where(
                Shape.pk.in_(dropped[start:start + IN_CHUNK])))
        rows = [{"position": i, "predecessors": json.dumps(predecessors)}
                for i, predecessors in enumerate(predecessors_of)]
        kept = [{"pk": existing[shape_id][0], **row}
                for shape_id, row in zip(shape_ids, rows, strict=True) if shape_id in existing]
        if kept:
            self.context.session.execute(update(Shape), kept)
        self.context.insert(Shape, [{"shape_id": shape_id, "version_pk": version.pk,
                                     "diagram_pk": diagram.pk, "element_pk": new_shapes[shape_id],
                                     **row}
                                    for shape_id, row in zip(shape_ids, rows, strict=True)
                                    if shape_id in new_shapes])
