"""Creating and changing elements: new elements in bulk, merges into the writable
version (docs/contract.md, "Elements, versions and release workflow"), and content
appended to a diagram. Every element gets the same versions, states and server-set
attributes however it was made (CLI, demo, web)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import func, select, update

from repository import catalog, release
from repository.errors import Conflict, InvalidInput, TooLarge
from repository.store import batch, idempotency
from repository.store.base import StoreContext, current_version_pk, pks_of
from repository.store.changes import (
    CONTENT_CHANGED,
    CREATED,
    UPDATED,
    Change,
    element_change,
    new_element_change,
)
from repository.store.generation import bump_content_generation
from repository.store.guard import Guard
from repository.store.models import AttributeValue, Element, ElementVersion, RelatedLink, Shape
from repository.store.reads import Reads
from repository.store.rows import Rows
from repository.store.values import (
    NEUTRAL,
    attribute_row,
    link_rows,
    new_id,
    now_timestamp,
    sort_key,
)
from repository.store.versions import Versions
from repository.wire import (
    MAX_CONTENT_ITEMS,
    MAX_RELATED_PER_ELEMENT,
    AttributeMap,
    ContentItem,
    ElementInput,
    check_link_count,
)


class Writes:
    """create, update and append_content; `actor_pk` is the element that acts."""

    def __init__(self, context: StoreContext, reads: Reads, rows: Rows, versions: Versions,
                 guard: Guard) -> None:
        self.context = context
        self.reads = reads
        self.rows = rows
        self.versions = versions
        self.guard = guard

    def create(self, facet: str, data: ElementInput, actor_pk: int | None,
               element_id: str | None = None) -> Element:
        """A new element of `data.type` in `facet` (server sets ids, dates, version)."""
        if element_id is not None:
            data = replace(data, id=element_id)
        return self.create_all([(facet, data)], actor_pk)[0]

    def create_all(self, inputs: Sequence[tuple[str, ElementInput]],
                   actor_pk: int | None) -> list[Element]:
        """`create` for many (facet, input) pairs: the rows in bulk (`create_many`), then
        the children and content of the inputs that set them."""
        pks = self.create_many(inputs, actor_pk)
        elements = self.reads.elements_by_pk(pks)
        for pk, (_, data) in zip(pks, inputs, strict=True):
            if data.children is not None or data.content is not None:
                self.rows.set_structure(elements[pk], self.reads.current_version(elements[pk]), data)
        return [elements[pk] for pk in pks]

    def create_many(self, inputs: Sequence[tuple[str, ElementInput]],
                    actor_pk: int | None) -> list[int]:
        """New elements (facet, input) in a fixed number of bulk statements however many
        there are; their pks in input order. Children and content are not written: they
        need the element first (see `create`)."""
        if not inputs:
            return []
        self.guard.refuse_protected_creates([facet for facet, _ in inputs], actor_pk)
        # A new element is in the listings at once: their cache keys must change
        # (first thing, as in every write: repository/store/generation.py).
        bump_content_generation(self.context.session, self.context.tenant.pk)
        type_keys = [self._check_type(facet, data.type) for facet, data in inputs]
        ids = [data.id or new_id() for _, data in inputs]
        taken = [i for i, n in Counter(ids).items() if n > 1] + list(self.context.pks_by_id(ids))
        if taken:
            raise Conflict(f"Element {taken[0]!r} already exists")
        links = self._client_links_of([data for _, data in inputs])
        stamp = now_timestamp()
        element_rows: list[dict[str, Any]] = []
        attributes: list[AttributeMap] = []
        for (facet, data), type_key, chosen_id in zip(inputs, type_keys, ids, strict=True):
            versioned = catalog.is_versioned(facet, type_key)
            state = release.IN_PROCESS if versioned else None
            server: dict[str, Any] = {"createdOn": stamp, "changedOn": stamp,
                                      "state1": state or "show"}
            if versioned:
                server.update(version=release.FIRST_VERSION, isReleased=False)
            values = {**_client_attributes(data),
                      **{k: {NEUTRAL: v} for k, v in server.items()}}
            attributes.append(values)
            element_rows.append({
                "tenant_pk": self.context.tenant.pk, "id": chosen_id, "facet": facet,
                "type": type_key, "versioned": versioned, "state": state, "revision": 1,
                "sort_name": sort_key(values.get("name", {}), self.context.tenant.default_culture)})
        element_pks = self.context.insert_returning_pks(Element, element_rows, key="id")
        version_ids = [new_id() for _ in element_rows]
        version_pks = self.context.insert_returning_pks(ElementVersion, [
            {"element_pk": pk, "version_id": version_id, "seq": 1, "state": row["state"]}
            for pk, version_id, row in zip(element_pks, version_ids, element_rows, strict=True)],
            key="version_id")
        self.context.session.execute(update(Element), [
            {"pk": pk, "current_version_pk": version_pk}
            for pk, version_pk in zip(element_pks, version_pks, strict=True)])
        self.context.insert(AttributeValue, [
            attribute_row(version_pk, name, culture, value)
            for version_pk, values in zip(version_pks, attributes, strict=True)
            for name, per_culture in values.items()
            for culture, value in per_culture.items() if value is not None])
        actor_links = {} if actor_pk is None else {"createdBy": [actor_pk],
                                                   "changedBy": [actor_pk]}
        self.context.insert(RelatedLink, [
            row for version_pk, client_links in zip(version_pks, links, strict=True)
            for context, target_pks in {**client_links, **actor_links}.items()
            for row in link_rows(version_pk, context, target_pks)])
        self.context.record([
            new_element_change(CREATED, row["id"], row["facet"], row["type"], version_id,
                               1, newState=row["state"], attributes=sorted(values),
                               related=sorted({**client_links, **actor_links}))
            for row, version_id, values, client_links in zip(
                element_rows, version_ids, attributes, links, strict=True)])
        return element_pks

    def update(self, element: Element, data: ElementInput, actor_pk: int | None,
               if_match: frozenset[int] | None = None) -> Element:
        """Merge `data` into the element; frozen versions get a successor (docs/contract.md,
        "Elements, versions and release workflow").
        `if_match`: the revisions the client may change (412 otherwise)."""
        return self.update_many([(element, data)], actor_pk, if_match)[0]

    def update_many(self, changes: Sequence[tuple[Element, ElementInput]],
                    actor_pk: int | None,
                    if_match: frozenset[int] | None = None) -> list[Element]:
        """`update` for many elements in a fixed number of bulk statements (a frozen
        version's successor, children and content are written per element that needs
        them). An element listed again is merged again, after the others."""
        batches: list[list[tuple[Element, ElementInput]]] = []
        in_batch: set[int] = set()
        for element, data in changes:
            if not batches or element.pk in in_batch:
                batches.append([])
                in_batch = set()
            in_batch.add(element.pk)
            batches[-1].append((element, data))
        for distinct in batches:
            self._update_batch(distinct, actor_pk, if_match)
        return [element for element, _ in changes]

    def _update_batch(self, changes: Sequence[tuple[Element, ElementInput]],
                      actor_pk: int | None, if_match: frozenset[int] | None) -> None:
        """`update_many` for distinct elements."""
        self.guard.refuse_protected_changes([element for element, _ in changes], actor_pk)
        self.rows.count_writes([element for element, _ in changes], if_match)
        newest = self.reads.versions_by_pk(element.current_version_pk for element, _ in changes)
        for element, data in changes:
            current = newest[current_version_pk(element)]
            if data.version_id is not None and data.version_id != current.version_id:
                raise Conflict(f"versionId {data.version_id!r} is not the newest version of "
                               f"{element.id!r} (that is {current.version_id!r}); reload and "
                               "retry")
            if data.type is not None and data.type.lower() != element.type.lower():
                raise InvalidInput(f"The type of {element.id!r} is {element.type!r} and cannot "
                                   "change")
        versions = [self.versions.writable_version(element) for element, _ in changes]
        changed_on = {"changedOn": {NEUTRAL: now_timestamp()}}
        self.rows.write_attributes_of({version.pk: {**_client_attributes(data), **changed_on}
                                       for version, (_, data) in zip(versions, changes, strict=True)})
        changed_by = {} if actor_pk is None else {"changedBy": [actor_pk]}
        client_links = self._client_links_of([data for _, data in changes])
        self.rows.set_links_of({version.pk: {**links, **changed_by} for version, links in zip(
            versions, client_links, strict=True)})
        self._check_related_totals({version.pk: element.id for version, (element, _), links
                                    in zip(versions, changes, client_links, strict=True)
                                    if links})
        for (element, data), version in zip(changes, versions, strict=True):
            self.rows.set_structure(element, version, data)
        names = self.reads.names_of([version.pk for version in versions])
        for (element, _), version in zip(changes, versions, strict=True):
            element.sort_name = sort_key(names[version.pk], self.context.tenant.default_culture)
        self.context.record([event for (element, data), version, links in zip(
            changes, versions, client_links, strict=True)
            for event in _update_events(element, version, data, links)])

    def append_content(self, diagram: Element, items: Sequence[ContentItem],
                       actor_pk: int | None,
                       if_match: frozenset[int] | None = None) -> list[tuple[str, int]]:
        """Append shapes to the diagram's writable version (a released diagram gets a new
        in-process version first, as on update); returns (shape id, request index) per
        item. A fixed number of statements however many items: new elements in bulk
        (`create_many`), new shapes in one insert, changed ones in one update."""
        self.guard.refuse_protected_changes([diagram], actor_pk)
        self.rows.count_writes([diagram], if_match)
        version = self.versions.writable_version(diagram)
        named_shapes = [item.shape_id for item in items if item.shape_id is not None]
        existing = {shape_id: (pk, json.loads(predecessors))
                    for pk, shape_id, predecessors in batch.chunked_rows(
                        self.context.session, select(Shape.pk, Shape.shape_id, Shape.predecessors)
                        .where(Shape.version_pk == version.pk), Shape.shape_id, named_shapes)}
        for item in items:
            if item.shape_id is not None and item.shape_id not in existing:
                raise InvalidInput(f"Item {item.index}: shape {item.shape_id!r} is not a "
                                   f"shape of diagram {diagram.id!r}")
        self._check_shape_total(version, sum(item.shape_id is None for item in items))
        target_pks = self._content_targets(diagram, items, actor_pk)
        shape_ids = {item.index: item.shape_id or new_id() for item in items}
        predecessors = {shape_id: list(previous) for shape_id, (_, previous)
                        in existing.items()} | {shape_ids[i]: [] for i in target_pks}
        for item in items:
            listed = predecessors[shape_ids[item.index]]
            listed.extend(p for p in dict.fromkeys(shape_ids[i] for i in item.predecessors)
                          if p not in listed)
        self._check_link_total(version, existing, predecessors)
        position = self.context.session.scalar(select(func.coalesce(func.max(Shape.position), -1) + 1)
                                               .where(Shape.version_pk == version.pk)) or 0
        self.context.insert(Shape, [
            {"shape_id": shape_ids[index], "version_pk": version.pk,
             "diagram_pk": diagram.pk, "element_pk": target_pk, "position": position + offset,
             "predecessors": json.dumps(predecessors[shape_ids[index]])}
            for offset, (index, target_pk) in enumerate(target_pks.items())])
        changed = [{"pk": pk, "predecessors": json.dumps(predecessors[shape_id])}
                   for shape_id, (pk, previous) in existing.items()
                   if predecessors[shape_id] != previous]
        if changed:
            self.context.session.execute(update(Shape), changed)
        self.rows.touch(diagram, version, actor_pk)
        self.context.record([element_change(CONTENT_CHANGED, diagram, version.version_id,
                                            shapesAdded=len(target_pks))])
        return [(shape_ids[item.index], item.index) for item in items]

    def _check_related_totals(self, element_ids: Mapping[int, str]) -> None:
        """The related links of each element (by version pk) whose links this write set,
        the contexts it left alone included, within MAX_RELATED_PER_ELEMENT: a request
        holds an element to the limit, and this keeps contexts sent one request at a time
        from growing past it. Server-set contexts (history) are not counted."""
        version_pks = list(element_ids)
        for start in range(0, len(version_pks), batch.IN_CHUNK):
            over = self.context.session.execute(
                select(RelatedLink.version_pk, func.count())
                .where(RelatedLink.version_pk.in_(version_pks[start:start + batch.IN_CHUNK]),
                       RelatedLink.context.not_in(sorted(catalog.SERVER_RELATED)))
                .group_by(RelatedLink.version_pk)
                .having(func.count() > MAX_RELATED_PER_ELEMENT)).first()
            if over is not None:
                raise TooLarge(f"{element_ids[over[0]]!r} would hold {over[1]:,} related links; "
                               f"an element holds at most {MAX_RELATED_PER_ELEMENT:,}")

    def _check_shape_total(self, version: ElementVersion, new_shapes: int) -> None:
        """A diagram holds at most the shapes content create may write at once (and the
        renderer draws): appends cannot grow it past that. Checked before the new
        shapes' elements are made."""
        shapes = new_shapes + (self.context.session.scalar(
            select(func.count()).select_from(Shape).where(Shape.version_pk == version.pk)) or 0)
        if shapes > MAX_CONTENT_ITEMS:
            raise TooLarge(f"A diagram holds at most {MAX_CONTENT_ITEMS:,} shapes; after this "
                           f"append it would hold {shapes:,}")

    def _check_link_total(self, version: ElementVersion, changed: Mapping[str, Any],
                          predecessors: Mapping[str, list[str]]) -> None:
        """The diagram's links after an append, the untouched shapes' included, within
        the limit the wire layer applies to one request (docs/contract.md, "Limits and
        robustness")."""
        untouched = sum(len(json.loads(listed)) for shape_id, listed in self.context.session.execute(
            select(Shape.shape_id, Shape.predecessors).where(Shape.version_pk == version.pk))
            if shape_id not in changed)
        check_link_count(untouched + sum(len(listed) for listed in predecessors.values()),
                         "the diagram after this append")

    def _content_targets(self, diagram: Element, items: Sequence[ContentItem],
                         actor_pk: int | None) -> dict[int, int]:
        """The element each new shape shows, by request index in request order: the
        element an item names, or one created now (all of them in bulk)."""
        named = self.context.pks_by_id(item.element_id for item in items
                                       if item.element_id is not None)
        for item in items:
            if item.element_id is not None and item.element_id not in named:
                raise InvalidInput(f"Item {item.index}: element {item.element_id!r} does not "
                                   "exist")
        fresh = [item for item in items if item.shape_id is None and item.element_id is None]
        created = dict(zip([item.index for item in fresh], self.create_many(
            [_content_input(diagram, item) for item in fresh], actor_pk), strict=True))
        return {item.index: named[item.element_id] if item.element_id is not None
                else created[item.index] for item in items if item.shape_id is None}

    def claim_idempotency_key(self, actor_pk: int, key: str,
                              fingerprint: str) -> idempotency.StoredAnswer | None:
        """The answer committed under the caller's `key`, or None once the key is the
        caller's create's (repository/store/idempotency.py)."""
        return idempotency.claim(self.context.session, self.context.tenant.pk, actor_pk, key, fingerprint)

    def remember_answer(self, actor_pk: int, key: str, status: int, body: str) -> None:
        """The answer of the create that claimed `key`, committed with the create."""
        idempotency.remember(self.context.session, self.context.tenant.pk, actor_pk, key, status, body)

    def _check_type(self, facet: str, type_key: str | None) -> str:
        if type_key is None:
            raise InvalidInput("A new element needs a 'type'")
        known = catalog.find_type(type_key)
        if known is None:
            raise InvalidInput(f"Unknown element type {type_key!r}")
        if known.key not in catalog.FACETS[facet].types:
            raise InvalidInput(f"Type {known.key!r} does not belong to facet {facet!r}; "
                               f"it allows {', '.join(catalog.FACETS[facet].types)}")
        return known.key

    def _client_links_of(self, inputs: Sequence[ElementInput]) -> list[dict[str, list[int]]]:
        """The links each input sets (server-set contexts ignored), every id looked up in
        one go."""
        wanted = [{context: ids for context, ids in (data.related or {}).items()
                   if context not in catalog.SERVER_RELATED} for data in inputs]
        found = self.context.pks_by_id(i for links in wanted for ids in links.values() for i in ids)
        return [{context: pks_of(found, ids, f"related.{context}")
                 for context, ids in links.items()} for links in wanted]


def _client_attributes(data: ElementInput) -> AttributeMap:
    """What the client may write: server-set attributes are ignored, not refused, so an
    element read from the service can be sent back as it is."""
    return {name: values for name, values in data.attributes.items()
            if name not in catalog.SERVER_ATTRIBUTES}


def _update_events(element: Element, version: ElementVersion, data: ElementInput,
                   links: Mapping[str, object]) -> list[Change]:
    """An update's events: `updated` for what it sets besides content (an update of
    nothing still changes changedOn), `contentChanged` when it sets the content."""
    events = []
    if data.content is None or _client_attributes(data) or links or data.children is not None:
        events.append(element_change(UPDATED, element, version.version_id,
                                     attributes=sorted(_client_attributes(data)),
                                     related=sorted(links), children=data.children is not None))
    if data.content is not None:
        events.append(element_change(CONTENT_CHANGED, element, version.version_id))
    return events


def _content_input(diagram: Element, item: ContentItem) -> tuple[str, ElementInput]:
    """(facet, input) of the element a content item creates."""
    assert item.type is not None
    known = catalog.find_type(item.type)
    facet = catalog.facet_of_type(known.key, diagram.facet) if known else None
    if known is None or facet is None:
        raise InvalidInput(f"Item {item.index}: unknown element type {item.type!r}")
    return facet, ElementInput(id=None, version_id=None, type=known.key, facet=facet,
                               attributes=item.attributes, related=item.related,
                               children=None, content=None)
