"""Reading and writing elements of one tenant. No Flask here: the CLI, the demo loader
and the web layer all go through `Store`, so every element gets the same versions,
states and server-set attributes however it was made.

The store never commits: the caller owns the transaction (one per request).
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVarTuple, Unpack, cast

from sqlalchemy import (
    ColumnElement,
    Exists,
    Integer,
    Row,
    ScalarSelect,
    Select,
    Table,
    and_,
    delete,
    exists,
    func,
    insert,
    literal,
    not_,
    or_,
    select,
    update,
)
from sqlalchemy.orm import InstrumentedAttribute, Session, aliased

from repository import catalog, release
from repository.db import qualified_name, refusing_when_busy
from repository.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from repository.models import (
    AttributeValue,
    Base,
    Child,
    Element,
    ElementVersion,
    RelatedLink,
    Shape,
    Tenant,
)
from repository.wire import (
    AttributeMap, ContentEntry, ContentItem, ElementInput, check_link_count,
)

if TYPE_CHECKING:
    import psycopg

OPEN_ENDED = "9999-12-31T23:59:59"
NEUTRAL = catalog.NEUTRAL
MAX_TREE_DEPTH = 256
SORT_NAME_LENGTH = 512
TENANT_PART = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Values per IN list: far below every backend's cap on the parameters of one statement.
IN_CHUNK = 1000
_Columns = TypeVarTuple("_Columns")
# Rows from which PostgreSQL gets COPY instead of INSERT (`Store._insert`).
COPY_FROM = 100


def now_timestamp() -> str:
    """ISO 8601 local form without offset (UTC wall clock), seconds precision."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")


def new_id() -> str:
    return str(uuid.uuid4())


def _table(model: type[Base]) -> Table:
    return Base.metadata.tables[model.__tablename__]


def _pks_of(found: dict[str, int], ids: Sequence[str], where: str) -> list[int]:
    """The pks of `ids` from a lookup, or 400 naming the ones that do not exist."""
    missing = [i for i in ids if i not in found]
    if missing:
        raise InvalidInput(f"{where}: unknown element id(s) {', '.join(map(repr, missing))}")
    return [found[i] for i in ids]


def _attribute_row(version_pk: int, name: str, culture: int, value: Any) -> dict[str, Any]:
    return {"version_pk": version_pk, "name": name, "culture": culture, **_encoded(value)}


def _encoded(value: Any) -> dict[str, Any]:
    exact, text, number = encode_value(value)
    return {"value_json": exact, "value_text": text, "value_num": number}


def _link_rows(version_pk: int, context: str, target_pks: Sequence[int],
               target_version_pks: Sequence[int | None] | None = None) -> list[dict[str, Any]]:
    versions = target_version_pks or [None] * len(target_pks)
    return [{"version_pk": version_pk, "context": context, "position": i, "target_pk": pk,
             "target_version_pk": version_pk_of_target}
            for i, (pk, version_pk_of_target) in enumerate(zip(target_pks, versions,
                                                                strict=True))]


def encode_value(value: Any) -> tuple[str, str, float | None]:
    """(exact JSON, comparable text, comparable number) of an attribute value."""
    exact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return exact, "true" if value else "false", None
    if isinstance(value, (int, float)):
        return exact, exact, float(value)
    if isinstance(value, str):
        return exact, value, None
    return exact, exact, None


def with_content() -> Exists:
    """Elements (the outer query's `Element`) whose newest version has shapes."""
    return exists(select(Shape.pk).where(Shape.version_pk == Element.current_version_pk))


def _listed_in_a_current_version(member: InstrumentedAttribute[int],
                                 owner: InstrumentedAttribute[int],
                                 version: InstrumentedAttribute[int]) -> Exists:
    """The outer query's `Element` is the `member` of a child or shape row that belongs to
    the newest version of its `owner` (rows of older versions do not count)."""
    owner_element = aliased(Element)
    return exists(select(version).join(owner_element, owner_element.pk == owner).where(
        member == Element.pk, version == owner_element.current_version_pk))


def _first_parent(
        child_pk: ColumnElement[int] | InstrumentedAttribute[int]) -> ScalarSelect[int]:
    """The parent of `child_pk` that `Store.root_paths` follows: the owner of the first
    child row (by pk) listing it in the owner's newest version; NULL for a root."""
    owner = aliased(Element)
    return (select(Child.parent_pk)
            .join(owner, and_(owner.pk == Child.parent_pk,
                              owner.current_version_pk == Child.version_pk))
            .where(Child.child_pk == child_pk).order_by(Child.pk).limit(1).scalar_subquery())


def find_tenant(session: Session, collection_id: str, storage_id: str) -> Tenant | None:
    return session.scalar(select(Tenant).where(
        Tenant.collection_id == collection_id, Tenant.storage_id == storage_id))


def create_tenant(session: Session, collection_id: str, storage_id: str) -> Tenant:
    for part in (collection_id, storage_id):
        # No dots: the maintenance pool id is `<collection>.<storage>` and must be unique.
        if not TENANT_PART.match(part):
            raise InvalidInput(f"Tenant ids use letters, digits, '_' and '-' (at most 64): "
                               f"{part!r}")
    if find_tenant(session, collection_id, storage_id) is not None:
        raise Conflict(f"Tenant {collection_id}/{storage_id} already exists")
    tenant = Tenant(collection_id=collection_id, storage_id=storage_id,
                    default_culture=catalog.ENGLISH)
    session.add(tenant)
    session.flush()
    return tenant


class Link(NamedTuple):
    """One related link as read (plain values, so bulk writes never leave stale ORM
    objects behind)."""

    context: str
    target_pk: int
    target_version_pk: int | None


@dataclass(frozen=True, slots=True)
class PageRequest:
    facet: str
    view: str
    condition: ColumnElement[bool] | None
    page: int
    page_size: int


class Store:
    """Element operations within one tenant; `actor_pk` is the element that acts."""

    def __init__(self, session: Session, tenant: Tenant) -> None:
        self.session = session
        self.tenant = tenant

    # ---- reading -------------------------------------------------------------------

    def element(self, element_id: str, facet: str | None = None) -> Element:
        return self.elements_by_id([element_id], facet)[element_id]

    def elements_by_id(self, element_ids: Sequence[str],
                       facet: str | None = None) -> dict[str, Element]:
        """The tenant's elements of these ids; 404 for the first one missing (or in
        another facet)."""
        query = select(Element).where(Element.tenant_pk == self.tenant.pk)
        found = {element.id: element
                 for (element,) in self._chunked_rows(query, Element.id, element_ids)}
        for element_id in element_ids:
            element = found.get(element_id)
            if element is None or (facet is not None and element.facet != facet):
                where = f" in facet {facet!r}" if facet else ""
                raise NotFound(f"Element {element_id!r} not found{where}")
        return found

    def resolve(self, element_or_version_id: str, facet: str) -> tuple[Element, ElementVersion]:
        """An element id (its newest version) or a version id (that version)."""
        element = self.session.scalar(select(Element).where(
            Element.tenant_pk == self.tenant.pk, Element.id == element_or_version_id))
        if element is not None and element.facet == facet:
            return element, self.current_version(element)
        row = self.session.execute(
            select(Element, ElementVersion)
            .join(ElementVersion, ElementVersion.element_pk == Element.pk)
            .where(Element.tenant_pk == self.tenant.pk, Element.versioned.is_(True),
                   ElementVersion.version_id == element_or_version_id, Element.facet == facet)
        ).first()
        if row is None:
            raise NotFound(f"Element {element_or_version_id!r} not found in facet {facet!r}")
        return row[0], row[1]

    def current_version(self, element: Element) -> ElementVersion:
        version = self.session.get(ElementVersion, element.current_version_pk)
        assert version is not None, "every element has a current version"
        return version

    def versions(self, element: Element) -> list[ElementVersion]:
        return list(self.session.scalars(select(ElementVersion).where(
            ElementVersion.element_pk == element.pk).order_by(ElementVersion.seq)))

    def elements_by_pk(self, pks: Iterable[int]) -> dict[int, Element]:
        wanted = set(pks)
        if not wanted:
            return {}
        rows = self.session.scalars(select(Element).where(Element.pk.in_(wanted)))
        return {e.pk: e for e in rows}

    def page(self, request: PageRequest) -> list[Element]:
        query = (select(Element).where(self._view_condition(request))
                 .order_by(Element.sort_name, Element.id)
                 .offset((request.page - 1) * request.page_size).limit(request.page_size))
        return list(self.session.scalars(query))

    def page_of(self, request: PageRequest, element_id: str) -> int:
        """The 1-based page of `request`'s listing that holds the element (404 if none)."""
        target = self.session.scalar(select(Element).where(
            self._view_condition(request), Element.id == element_id))
        if target is None:
            raise NotFound(f"$pageSelectionKey {element_id!r} is not in this listing")
        before = self.session.scalar(select(func.count()).select_from(Element).where(
            self._view_condition(request),
            or_(Element.sort_name < target.sort_name,
                and_(Element.sort_name == target.sort_name, Element.id < target.id))))
        return int(before or 0) // request.page_size + 1

    def _view_condition(self, request: PageRequest) -> ColumnElement[bool]:
        conditions = [Element.tenant_pk == self.tenant.pk, Element.facet == request.facet]
        if request.view == "tree":
            # Roots of the hierarchy: nobody's child and not merely a shape of a diagram.
            conditions.append(not_(_listed_in_a_current_version(
                Child.child_pk, Child.parent_pk, Child.version_pk)))
            conditions.append(not_(_listed_in_a_current_version(
                Shape.element_pk, Shape.diagram_pk, Shape.version_pk)))
        elif request.view == "diagram":
            conditions.append(with_content())
        if request.condition is not None:
            conditions.append(request.condition)
        return and_(*conditions)

    def children(self, version: ElementVersion) -> list[Element]:
        """The version's children, in order."""
        return list(self.session.scalars(
            select(Element).join(Child, Child.child_pk == Element.pk)
            .where(Child.version_pk == version.pk).order_by(Child.position)))

    def child_pks(self, version_pks: Sequence[int]) -> dict[int, list[int]]:
        """The ordered child element pks of each version, in one query."""
        result: dict[int, list[int]] = {pk: [] for pk in version_pks}
        if not version_pks:
            return result
        rows = self.session.execute(
            select(Child.version_pk, Child.child_pk).where(Child.version_pk.in_(version_pks))
            .order_by(Child.version_pk, Child.position))
        for version_pk, child_pk in rows:
            result[version_pk].append(child_pk)
        return result

    def root_path(self, element: Element) -> list[Element]:
        """Parents from the nearest up to the root (the seed's example order)."""
        return self.root_paths([element])[element.pk]

    def root_paths(self, elements: Sequence[Element]) -> dict[int, list[Element]]:
        """`root_path` of each element, in one statement whatever their number and the
        depth of the tree: a recursive query collects the first parent of every element
        and ancestor, then each path is walked here. An element's parent is the first
        element (by child row) whose newest version has it as a child."""
        if not elements:
            return {}
        start = (select(Element.pk.label("pk"), _first_parent(Element.pk).label("parent_pk"))
                 .where(Element.pk.in_({e.pk for e in elements})).cte("up", recursive=True))
        # UNION, not UNION ALL: a row seen before is dropped, so the recursion ends even
        # where first parents loop (children lists can make such a loop across several
        # parents); the walk below then stops at the repeat.
        up = start.union(select(start.c.parent_pk, _first_parent(start.c.parent_pk))
                         .where(start.c.parent_pk.is_not(None)))
        parent_of = {pk: parent for pk, parent in self.session.execute(
            select(up.c.pk, Element).select_from(up)
            .outerjoin(Element, Element.pk == up.c.parent_pk))}
        paths: dict[int, list[Element]] = {}
        for element in elements:
            path: list[Element] = []
            seen = {element.pk}
            current = parent_of[element.pk]
            while (current is not None and current.pk not in seen
                   and len(path) < MAX_TREE_DEPTH):
                path.append(current)
                seen.add(current.pk)
                current = parent_of[current.pk]
            paths[element.pk] = path
        return paths

    def shapes(self, version: ElementVersion) -> list[Shape]:
        """The version's content, in order."""
        return self.shapes_of([version.pk])[version.pk]

    def shapes_of(self, version_pks: Sequence[int]) -> dict[int, list[Shape]]:
        """The ordered shapes of each version, in one query."""
        result: dict[int, list[Shape]] = {pk: [] for pk in version_pks}
        if not version_pks:
            return result
        rows = self.session.scalars(
            select(Shape).where(Shape.version_pk.in_(version_pks))
            .order_by(Shape.version_pk, Shape.position))
        for shape in rows:
            result[shape.version_pk].append(shape)
        return result

    def has_content(self, element: Element) -> bool:
        """Whether the element's newest version has shapes."""
        return bool(self.session.scalar(select(exists(
            select(Shape.pk).where(Shape.version_pk == element.current_version_pk)))))

    def shape_ids_of(self, element: Element) -> list[str]:
        """Shape ids through which the element appears in the newest version of a diagram."""
        return list(self.session.scalars(
            select(Shape.shape_id)
            .join(Element, and_(Element.pk == Shape.diagram_pk,
                                Element.current_version_pk == Shape.version_pk))
            .where(Shape.element_pk == element.pk).order_by(Shape.pk)))

    def attributes(self, version_pks: Sequence[int]) -> dict[int, AttributeMap]:
        result: dict[int, AttributeMap] = {pk: {} for pk in version_pks}
        if not version_pks:
            return result
        rows = self.session.execute(
            select(AttributeValue.version_pk, AttributeValue.name, AttributeValue.culture,
                   AttributeValue.value_json)
            .where(AttributeValue.version_pk.in_(version_pks))
            .order_by(AttributeValue.name, AttributeValue.culture))
        for version_pk, name, culture, value_json in rows:
            result[version_pk].setdefault(name, {})[culture] = json.loads(value_json)
        return result

    def links(self, version_pks: Sequence[int]) -> dict[int, dict[str, list[Link]]]:
        result: dict[int, dict[str, list[Link]]] = {pk: {} for pk in version_pks}
        if not version_pks:
            return result
        rows = self.session.execute(
            select(RelatedLink.version_pk, RelatedLink.context, RelatedLink.target_pk,
                   RelatedLink.target_version_pk)
            .where(RelatedLink.version_pk.in_(version_pks))
            .order_by(RelatedLink.context, RelatedLink.position))
        for version_pk, context, target_pk, target_version_pk in rows:
            result[version_pk].setdefault(context, []).append(
                Link(context, target_pk, target_version_pk))
        return result

    def name_of(self, element: Element, culture: int) -> str:
        names = self.attributes([element.current_version_pk or 0]).get(
            element.current_version_pk or 0, {}).get("name", {})
        return label(names, culture, self.tenant.default_culture)

    def users_with_role_flag(self, flag: str) -> list[Element]:
        return list(self.session.scalars(
            select(Element).where(
                Element.tenant_pk == self.tenant.pk, Element.type == "user",
                exists(select(AttributeValue.pk).where(
                    AttributeValue.version_pk == Element.current_version_pk,
                    AttributeValue.name == flag, AttributeValue.value_text == "true")))
            .order_by(Element.sort_name, Element.id)))

    # ---- writing -------------------------------------------------------------------

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
        elements = self.elements_by_pk(pks)
        for pk, (_, data) in zip(pks, inputs, strict=True):
            if data.children is not None or data.content is not None:
                self._set_structure(elements[pk], self.current_version(elements[pk]), data)
        return [elements[pk] for pk in pks]

    def create_many(self, inputs: Sequence[tuple[str, ElementInput]],
                    actor_pk: int | None) -> list[int]:
        """New elements (facet, input) in a fixed number of bulk statements however many
        there are; their pks in input order. Children and content are not written: they
        need the element first (see `create`)."""
        if not inputs:
            return []
        type_keys = [self._check_type(facet, data.type) for facet, data in inputs]
        ids = [data.id or new_id() for _, data in inputs]
        taken = [i for i, n in Counter(ids).items() if n > 1] + list(self._pks_by_id(ids))
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
            values = {**self._client_attributes(data),
                      **{k: {NEUTRAL: v} for k, v in server.items()}}
            attributes.append(values)
            element_rows.append({
                "tenant_pk": self.tenant.pk, "id": chosen_id, "facet": facet,
                "type": type_key, "versioned": versioned, "state": state, "revision": 1,
                "sort_name": sort_key(values.get("name", {}), self.tenant.default_culture)})
        element_pks = self._insert_returning_pks(Element, element_rows, key="id")
        version_pks = self._insert_returning_pks(ElementVersion, [
            {"element_pk": pk, "version_id": new_id(), "seq": 1, "state": row["state"]}
            for pk, row in zip(element_pks, element_rows, strict=True)], key="version_id")
        self.session.execute(update(Element), [
            {"pk": pk, "current_version_pk": version_pk}
            for pk, version_pk in zip(element_pks, version_pks, strict=True)])
        self._insert(AttributeValue, [
            _attribute_row(version_pk, name, culture, value)
            for version_pk, values in zip(version_pks, attributes, strict=True)
            for name, per_culture in values.items()
            for culture, value in per_culture.items() if value is not None])
        actor_links = {} if actor_pk is None else {"createdBy": [actor_pk],
                                                   "changedBy": [actor_pk]}
        self._insert(RelatedLink, [
            row for version_pk, client_links in zip(version_pks, links, strict=True)
            for context, target_pks in {**client_links, **actor_links}.items()
            for row in _link_rows(version_pk, context, target_pks)])
        return element_pks

    def update(self, element: Element, data: ElementInput, actor_pk: int | None,
               if_match: frozenset[int] | None = None) -> Element:
        """Merge `data` into the element (CONTRACT 5); frozen versions get a successor.
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
        for batch in batches:
            self._update_batch(batch, actor_pk, if_match)
        return [element for element, _ in changes]

    def _update_batch(self, batch: Sequence[tuple[Element, ElementInput]],
                      actor_pk: int | None, if_match: frozenset[int] | None) -> None:
        """`update_many` for distinct elements."""
        self._count_writes([element for element, _ in batch], if_match)
        newest = self._versions_by_pk(element.current_version_pk for element, _ in batch)
        for element, data in batch:
            current = newest[element.current_version_pk]
            if data.version_id is not None and data.version_id != current.version_id:
                raise Conflict(f"versionId {data.version_id!r} is not the newest version of "
                               f"{element.id!r} (that is {current.version_id!r}); reload and "
                               "retry")
            if data.type is not None and data.type.lower() != element.type.lower():
                raise InvalidInput(f"The type of {element.id!r} is {element.type!r} and cannot "
                                   "change")
        versions = [self._writable_version(element) for element, _ in batch]
        changed_on = {"changedOn": {NEUTRAL: now_timestamp()}}
        self._write_attributes_of({version.pk: {**self._client_attributes(data), **changed_on}
                                   for version, (_, data) in zip(versions, batch, strict=True)})
        changed_by = {} if actor_pk is None else {"changedBy": [actor_pk]}
        self._set_links_of({version.pk: {**links, **changed_by} for version, links in zip(
            versions, self._client_links_of([data for _, data in batch]), strict=True)})
        for (element, data), version in zip(batch, versions, strict=True):
            self._set_structure(element, version, data)
        names = self._names_of([version.pk for version in versions])
        for (element, _), version in zip(batch, versions, strict=True):
            element.sort_name = sort_key(names.get(version.pk, {}), self.tenant.default_culture)

    def append_content(self, diagram: Element, items: Sequence[ContentItem],
                       actor_pk: int | None,
                       if_match: frozenset[int] | None = None) -> list[tuple[str, int]]:
        """Append shapes to the diagram's writable version (a released diagram gets a new
        in-process version first, as on update); returns (shape id, request index) per
        item. A fixed number of statements however many items: new elements in bulk
        (`create_many`), new shapes in one insert, changed ones in one update."""
        self._count_writes([diagram], if_match)
        version = self._writable_version(diagram)
        named_shapes = [item.shape_id for item in items if item.shape_id is not None]
        existing = {shape_id: (pk, json.loads(predecessors))
                    for pk, shape_id, predecessors in self._chunked_rows(
                        select(Shape.pk, Shape.shape_id, Shape.predecessors)
                        .where(Shape.version_pk == version.pk), Shape.shape_id, named_shapes)}
        for item in items:
            if item.shape_id is not None and item.shape_id not in existing:
                raise InvalidInput(f"Item {item.index}: shape {item.shape_id!r} is not a "
                                   f"shape of diagram {diagram.id!r}")
        target_pks = self._content_targets(diagram, items, actor_pk)
        shape_ids = {item.index: item.shape_id or new_id() for item in items}
        predecessors = {shape_id: list(previous) for shape_id, (_, previous)
                        in existing.items()} | {shape_ids[i]: [] for i in target_pks}
        for item in items:
            listed = predecessors[shape_ids[item.index]]
            listed.extend(p for p in dict.fromkeys(shape_ids[i] for i in item.predecessors)
                          if p not in listed)
        self._check_link_total(version, existing, predecessors)
        position = self.session.scalar(select(func.coalesce(func.max(Shape.position), -1) + 1)
                                       .where(Shape.version_pk == version.pk)) or 0
        self._insert(Shape, [
            {"shape_id": shape_ids[index], "version_pk": version.pk,
             "diagram_pk": diagram.pk, "element_pk": target_pk, "position": position + offset,
             "predecessors": json.dumps(predecessors[shape_ids[index]])}
            for offset, (index, target_pk) in enumerate(target_pks.items())])
        changed = [{"pk": pk, "predecessors": json.dumps(predecessors[shape_id])}
                   for shape_id, (pk, previous) in existing.items()
                   if predecessors[shape_id] != previous]
        if changed:
            self.session.execute(update(Shape), changed)
        self.touch(diagram, version, actor_pk)
        return [(shape_ids[item.index], item.index) for item in items]

    def _check_link_total(self, version: ElementVersion, changed: Mapping[str, Any],
                          predecessors: Mapping[str, list[str]]) -> None:
        """The diagram's links after an append, the untouched shapes' included, within
        the limit the wire layer applies to one request (CONTRACT section 9)."""
        untouched = sum(len(json.loads(listed)) for shape_id, listed in self.session.execute(
            select(Shape.shape_id, Shape.predecessors).where(Shape.version_pk == version.pk))
            if shape_id not in changed)
        check_link_count(untouched + sum(len(listed) for listed in predecessors.values()),
                         "the diagram after this append")

    def transition(self, element: Element, transition: release.Transition,
                   actor_pk: int | None) -> Element:
        """Run a release transition (409 when it does not start from the current state)."""
        self._count_writes([element])
        version = self.current_version(element)
        try:
            release.check(transition, version.state if element.versioned else None)
        except release.TransitionNotAllowed as error:
            raise Conflict(str(error)) from None
        stamp = now_timestamp()
        self._set_state(element, version, transition.target)
        if transition.effect is release.Effect.RELEASE:
            self._release(element, version, stamp, actor_pk)
        elif transition.effect is release.Effect.REQUEST_EXPIRY:
            self._create_expiry_task(element, actor_pk)
        elif transition.effect is release.Effect.EXPIRE:
            self._write_attributes(version, {"validUntil": {NEUTRAL: stamp},
                                             "isReleased": {NEUTRAL: False}})
            self._close_expiry_tasks(element, "accepted")
        elif transition.effect is release.Effect.KEEP_RELEASED:
            self._close_expiry_tasks(element, "declined")
        self.touch(element, version, actor_pk)
        return element

    def touch(self, element: Element, version: ElementVersion, actor_pk: int | None) -> None:
        """Refresh changedOn and changedBy, as every write does."""
        self._write_attributes(version, {"changedOn": {NEUTRAL: now_timestamp()}})
        if actor_pk is not None:
            self._set_links(version, "changedBy", [actor_pk])

    # ---- helpers -------------------------------------------------------------------

    def _count_writes(self, elements: Sequence[Element],
                      if_match: frozenset[int] | None = None) -> None:
        """Bump each element's revision (its ETag) first thing in a write: a stale
        `if_match` fails before anything is written, and on PostgreSQL the row locks this
        takes order concurrent writers of an element (the later one then reloads the
        element and sees the earlier one's revision and rows)."""
        pks = [element.pk for element in elements]
        bumped: set[int] = set()
        for start in range(0, len(pks), IN_CHUNK):
            statement = (update(Element).where(Element.pk.in_(pks[start:start + IN_CHUNK]))
                         .values(revision=Element.revision + 1).returning(Element.pk)
                         .execution_options(synchronize_session=False))
            if if_match is not None:
                statement = statement.where(Element.revision.in_(sorted(if_match)))
            bumped.update(self.session.scalars(statement))
        stale = [element for element in elements if element.pk not in bumped]
        if stale:
            current = self.session.scalar(select(Element.revision)
                                          .where(Element.pk == stale[0].pk))
            raise PreconditionFailed(
                f"If-Match: {stale[0].id!r} has changed since; its ETag is now "
                f'"{current}". Nothing was written: reload it and retry')
        # Reload them: on PostgreSQL an earlier writer may have changed them meanwhile.
        list(self._chunked_rows(select(Element).execution_options(populate_existing=True),
                                Element.pk, pks))

    def _versions_by_pk(self, pks: Iterable[int | None]) -> dict[int | None, ElementVersion]:
        return {version.pk: version for (version,) in self._chunked_rows(
            select(ElementVersion), ElementVersion.pk, pks)}

    def _names_of(self, version_pks: Sequence[int]) -> dict[int, dict[int, Any]]:
        """The `name` values of each version, by culture."""
        names: dict[int, dict[int, Any]] = {}
        for version_pk, culture, value_json in self._chunked_rows(
                select(AttributeValue.version_pk, AttributeValue.culture,
                       AttributeValue.value_json).where(AttributeValue.name == "name"),
                AttributeValue.version_pk, version_pks):
            names.setdefault(version_pk, {})[culture] = json.loads(value_json)
        return names

    def _chunked_rows(self, query: Select[Unpack[_Columns]], column: InstrumentedAttribute[Any],
                      values: Iterable[Any]) -> Iterator[Row[Unpack[_Columns]]]:
        """The rows of `query` whose `column` is one of `values`, asking for at most
        IN_CHUNK values at a time (backends cap the parameters of one statement)."""
        wanted = list(dict.fromkeys(values))
        for start in range(0, len(wanted), IN_CHUNK):
            yield from self.session.execute(
                query.where(column.in_(wanted[start:start + IN_CHUNK])))

    def _pks_by_id(self, ids: Iterable[str]) -> dict[str, int]:
        """Pks of the tenant's elements with these ids (the ones that exist)."""
        query = select(Element.id, Element.pk).where(Element.tenant_pk == self.tenant.pk)
        return {element_id: pk for element_id, pk in self._chunked_rows(query, Element.id, ids)}

    def _insert(self, model: type[Base], rows: list[dict[str, Any]]) -> None:
        """Rows that all have the same keys, nothing loaded back: PostgreSQL's COPY for
        many (half the CPU of an executemany, on both ends), else one executemany. Core,
        not the ORM's bulk insert: the rows are complete, and per-row ORM work costs more
        than the statement itself."""
        if not rows:
            return
        connection = self.session.connection()
        if connection.dialect.name != "postgresql" or len(rows) < COPY_FROM:
            self.session.execute(insert(_table(model)), rows)
            return
        columns = list(rows[0])
        preparer = connection.dialect.identifier_preparer
        command = (f"COPY {qualified_name(connection, _table(model))} "
                   f"({', '.join(preparer.quote(column) for column in columns)}) FROM STDIN")
        driver = cast("psycopg.Connection[Any]", connection.connection.dbapi_connection)
        with refusing_when_busy(), driver.cursor() as cursor, cursor.copy(command) as copy:
            for row in rows:
                copy.write_row([row[column] for column in columns])

    def _insert_returning_pks(self, model: type[Base], rows: list[dict[str, Any]],
                              key: str) -> list[int]:
        """One bulk INSERT (multi-row VALUES batches) answering the new pks in row order,
        matched through `key`, a column unique among the rows (asking the database to
        keep the order would make SQLite insert row by row)."""
        table = _table(model)
        pks = {value: pk for value, pk in self.session.execute(
            insert(table).returning(table.c[key], table.c.pk), rows)}
        return [pks[row[key]] for row in rows]

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

    def _add_version(self, element: Element, seq: int, state: str | None) -> ElementVersion:
        version = ElementVersion(element_pk=element.pk, version_id=new_id(), seq=seq,
                                 state=state)
        self.session.add(version)
        self.session.flush()
        element.current_version_pk = version.pk
        return version

    def _writable_version(self, element: Element) -> ElementVersion:
        """The version a change goes to: the newest one, or a new in-process revision of it
        when it is frozen (released, requestToExpire, expired; CONTRACT 5)."""
        version = self.current_version(element)
        if element.versioned and version.state in release.FROZEN_STATES:
            return self._start_revision(element, version)
        return version

    def _client_attributes(self, data: ElementInput) -> AttributeMap:
        """What the client may write: server-set attributes are ignored, not refused, so
        an element read from the service can be sent back as it is."""
        return {name: values for name, values in data.attributes.items()
                if name not in catalog.SERVER_ATTRIBUTES}

    def _client_links_of(self, inputs: Sequence[ElementInput]) -> list[dict[str, list[int]]]:
        """The links each input sets (server-set contexts ignored), every id looked up in
        one go."""
        wanted = [{context: ids for context, ids in (data.related or {}).items()
                   if context not in catalog.SERVER_RELATED} for data in inputs]
        found = self._pks_by_id(i for links in wanted for ids in links.values() for i in ids)
        return [{context: _pks_of(found, ids, f"related.{context}")
                 for context, ids in links.items()} for links in wanted]

    def _set_structure(self, element: Element, version: ElementVersion,
                       data: ElementInput) -> None:
        if data.children is not None:
            self._set_children(element, version, data.children)
        if data.content is not None:
            self._replace_content(element, version, data.content)

    def _write_attributes(self, version: ElementVersion, values: AttributeMap) -> None:
        """Upsert per (name, culture); None deletes."""
        self._write_attributes_of({version.pk: values})

    def _write_attributes_of(self, values_of: dict[int, AttributeMap]) -> None:
        """`_write_attributes` for many versions (by pk), in bulk statements."""
        names = {name for values in values_of.values() for name in values}
        if not names:
            return
        existing = {(version_pk, name, culture): pk
                    for pk, version_pk, name, culture in self._chunked_rows(
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
                        inserts.append(_attribute_row(version_pk, name, culture, value))
                    else:
                        updates.append({"pk": pk, **_encoded(value)})
        for start in range(0, len(deletes), IN_CHUNK):
            self.session.execute(delete(AttributeValue).where(
                AttributeValue.pk.in_(deletes[start:start + IN_CHUNK])))
        self._insert(AttributeValue, inserts)
        if updates:
            self.session.execute(update(AttributeValue), updates)

    def _set_links(self, version: ElementVersion, context: str, target_pks: Sequence[int],
                   target_version_pks: Sequence[int | None] | None = None) -> None:
        """Replace one context's links."""
        self._replace_links({context: [version.pk]}, _link_rows(
            version.pk, context, target_pks, target_version_pks))

    def _set_links_of(self, links_of: dict[int, dict[str, list[int]]]) -> None:
        """Replace the named contexts' links of many versions (by pk), in bulk."""
        versions_of: dict[str, list[int]] = {}
        for version_pk, links in links_of.items():
            for context in links:
                versions_of.setdefault(context, []).append(version_pk)
        self._replace_links(versions_of, [
            row for version_pk, links in links_of.items()
            for context, target_pks in links.items()
            for row in _link_rows(version_pk, context, target_pks)])

    def _replace_links(self, versions_of: dict[str, list[int]],
                       rows: list[dict[str, Any]]) -> None:
        """Drop the links of each context from the versions listed for it, then insert
        `rows`."""
        for context, version_pks in versions_of.items():
            for start in range(0, len(version_pks), IN_CHUNK):
                self.session.execute(delete(RelatedLink).where(
                    RelatedLink.context == context,
                    RelatedLink.version_pk.in_(version_pks[start:start + IN_CHUNK])))
        self._insert(RelatedLink, rows)

    def _existing_pks(self, ids: Sequence[str], where: str) -> list[int]:
        return _pks_of(self._pks_by_id(ids), ids, where)

    def _set_children(self, element: Element, version: ElementVersion,
                      child_ids: Sequence[str]) -> None:
        if len(set(child_ids)) != len(child_ids):
            raise InvalidInput("children: an element is listed twice")
        child_pks = self._existing_pks(child_ids, "children")
        ancestors = {element.pk} | {e.pk for e in self.root_path(element)}
        for child_id, pk in zip(child_ids, child_pks, strict=True):
            if pk in ancestors:
                raise InvalidInput(f"children: {child_id!r} is {element.id!r} itself or one "
                                   "of its parents; the hierarchy cannot loop")
        self.session.execute(delete(Child).where(Child.version_pk == version.pk))
        self._insert(Child, [{"version_pk": version.pk, "parent_pk": element.pk,
                              "child_pk": pk, "position": i}
                             for i, pk in enumerate(child_pks)])

    def _replace_content(self, diagram: Element, version: ElementVersion,
                         entries: Sequence[ContentEntry]) -> None:
        """Keep the named shapes in the given order, add shapes for bare ids, drop the
        rest; a fixed number of statements however long the list."""
        existing = {shape_id: (pk, json.loads(predecessors))
                    for pk, shape_id, predecessors in self.session.execute(
                        select(Shape.pk, Shape.shape_id, Shape.predecessors)
                        .where(Shape.version_pk == version.pk))}
        found = self._pks_by_id(entry.element_id for entry in entries
                                if entry.shape_id is None and entry.element_id is not None)
        shape_ids: list[str] = []
        listed: set[str] = set()
        new_shapes: dict[str, int] = {}  # shape id → the element it shows
        for i, entry in enumerate(entries):
            if entry.shape_id is None:
                assert entry.element_id is not None
                shape_id = new_id()
                new_shapes[shape_id] = _pks_of(found, [entry.element_id], f"content[{i}].id")[0]
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
            self.session.execute(delete(Shape).where(
                Shape.pk.in_(dropped[start:start + IN_CHUNK])))
        rows = [{"position": i, "predecessors": json.dumps(predecessors)}
                for i, predecessors in enumerate(predecessors_of)]
        kept = [{"pk": existing[shape_id][0], **row}
                for shape_id, row in zip(shape_ids, rows, strict=True) if shape_id in existing]
        if kept:
            self.session.execute(update(Shape), kept)
        self._insert(Shape, [{"shape_id": shape_id, "version_pk": version.pk,
                              "diagram_pk": diagram.pk, "element_pk": new_shapes[shape_id],
                              **row}
                             for shape_id, row in zip(shape_ids, rows, strict=True)
                             if shape_id in new_shapes])

    def _content_targets(self, diagram: Element, items: Sequence[ContentItem],
                         actor_pk: int | None) -> dict[int, int]:
        """The element each new shape shows, by request index in request order: the
        element an item names, or one created now (all of them in bulk)."""
        named = self._pks_by_id(item.element_id for item in items
                                if item.element_id is not None)
        for item in items:
            if item.element_id is not None and item.element_id not in named:
                raise InvalidInput(f"Item {item.index}: element {item.element_id!r} does not "
                                   "exist")
        fresh = [item for item in items if item.shape_id is None and item.element_id is None]
        created = dict(zip([item.index for item in fresh], self.create_many(
            [self._content_input(diagram, item) for item in fresh], actor_pk), strict=True))
        return {item.index: named[item.element_id] if item.element_id is not None
                else created[item.index] for item in items if item.shape_id is None}

    def _content_input(self, diagram: Element, item: ContentItem) -> tuple[str, ElementInput]:
        """(facet, input) of the element a content item creates."""
        assert item.type is not None
        known = catalog.find_type(item.type)
        facet = catalog.facet_of_type(known.key, diagram.facet) if known else None
        if known is None or facet is None:
            raise InvalidInput(f"Item {item.index}: unknown element type {item.type!r}")
        return facet, ElementInput(id=None, version_id=None, type=known.key, facet=facet,
                                   attributes=item.attributes, related=item.related,
                                   children=None, content=None)

    def _set_state(self, element: Element, version: ElementVersion, state: str) -> None:
        version.state = state
        element.state = state
        self._write_attributes(version, {"state1": {NEUTRAL: state}})

    def _start_revision(self, element: Element, frozen: ElementVersion) -> ElementVersion:
        """A new in-process version copying the frozen one's attributes, links, children
        and content (same shape ids)."""
        revision = self._add_version(element, seq=frozen.seq + 1, state=release.IN_PROCESS)
        element.state = release.IN_PROCESS
        attributes = self.attributes([frozen.pk])[frozen.pk]
        label_of_frozen = str(attributes.get("version", {}).get(NEUTRAL, release.FIRST_VERSION))
        for dropped in ("validFrom", "validUntil", "relOn"):
            attributes.pop(dropped, None)
        attributes.update({
            "version": {NEUTRAL: release.revision_version(label_of_frozen)},
            "isReleased": {NEUTRAL: False},
            "state1": {NEUTRAL: release.IN_PROCESS},
        })
        self._write_attributes(revision, attributes)
        for context, links in self.links([frozen.pk])[frozen.pk].items():
            if context != "relBy":
                self._set_links(revision, context, [l.target_pk for l in links],
                                [l.target_version_pk for l in links])
        self._copy_structure(frozen, revision)
        return revision

    def _copy_structure(self, source: ElementVersion, target: ElementVersion) -> None:
        """Copy the children and shapes of `source` to the (empty) `target`, in SQL."""
        target_pk = literal(target.pk, Integer)
        self.session.execute(insert(Child).from_select(
            ["version_pk", "parent_pk", "child_pk", "position"],
            select(target_pk, Child.parent_pk, Child.child_pk, Child.position)
            .where(Child.version_pk == source.pk)))
        self.session.execute(insert(Shape).from_select(
            ["shape_id", "version_pk", "diagram_pk", "element_pk", "position", "predecessors"],
            select(Shape.shape_id, target_pk, Shape.diagram_pk, Shape.element_pk,
                   Shape.position, Shape.predecessors)
            .where(Shape.version_pk == source.pk)))

    def _release(self, element: Element, version: ElementVersion, stamp: str,
                 actor_pk: int | None) -> None:
        attributes = self.attributes([version.pk])[version.pk]
        current_label = str(attributes.get("version", {}).get(NEUTRAL, release.FIRST_VERSION))
        self._write_attributes(version, {
            "version": {NEUTRAL: release.released_version(current_label)},
            "validFrom": {NEUTRAL: stamp}, "validUntil": {NEUTRAL: OPEN_ENDED},
            "isReleased": {NEUTRAL: True}, "relOn": {NEUTRAL: stamp},
        })
        if actor_pk is not None:
            self._set_links(version, "relBy", [actor_pk])
        for previous in self.versions(element):
            if previous.pk != version.pk and previous.state in (
                    release.RELEASED, release.REQUEST_TO_EXPIRE):
                previous.state = release.EXPIRED
                self._write_attributes(previous, {
                    "state1": {NEUTRAL: release.EXPIRED}, "validUntil": {NEUTRAL: stamp},
                    "isReleased": {NEUTRAL: False}})
        history = self.links([version.pk])[version.pk].get("releaseHistory", [])
        self._set_links(version, "releaseHistory",
                        [l.target_pk for l in history] + [element.pk],
                        [l.target_version_pk for l in history] + [version.pk])

    def _create_expiry_task(self, element: Element, actor_pk: int | None) -> None:
        names = self.attributes([element.current_version_pk or 0]).get(
            element.current_version_pk or 0, {}).get("name", {})
        german = label(names, catalog.GERMAN, self.tenant.default_culture)
        english = label(names, catalog.ENGLISH, self.tenant.default_culture)
        approvers = [u.id for u in self.users_with_role_flag("roleApprover")]
        task = ElementInput(
            id=None, version_id=None, type="task", facet="automation",
            attributes={
                "name": {catalog.GERMAN: f"Ablauf genehmigen: {german}",
                         catalog.ENGLISH: f"Approve expiry: {english}"},
                "actionType": {NEUTRAL: "approveExpiry"},
                "taskStatus": {NEUTRAL: "open"},
            },
            related={"subject": [element.id], "assignedTo": approvers},
            children=None, content=None)
        self.create("automation", task, actor_pk)

    def _close_expiry_tasks(self, element: Element, status: str) -> None:
        open_tasks = self.session.scalars(
            select(ElementVersion)
            .join(Element, Element.pk == ElementVersion.element_pk)
            .join(RelatedLink, RelatedLink.version_pk == ElementVersion.pk)
            .where(Element.tenant_pk == self.tenant.pk, Element.facet == "automation",
                   Element.type == "task", RelatedLink.context == "subject",
                   RelatedLink.target_pk == element.pk,
                   exists(select(AttributeValue.pk).where(
                       AttributeValue.version_pk == ElementVersion.pk,
                       AttributeValue.name == "taskStatus",
                       AttributeValue.value_text == "open"))))
        for task_version in list(open_tasks):
            self._count_writes([self.session.get_one(Element, task_version.element_pk)])
            self._write_attributes(task_version, {"taskStatus": {NEUTRAL: status}})


def sort_key(names: dict[int, Any], default_culture: int) -> str:
    """The listing order: the name in the default culture (with label fallback), folded."""
    return label(names, default_culture, default_culture).lower()[:SORT_NAME_LENGTH]


def label(values: dict[int, Any], culture: int, default_culture: int) -> str:
    """Requested culture, then neutral, then the tenant default, then any (CONTRACT 3)."""
    for key in (culture, NEUTRAL, default_culture):
        if values.get(key) not in (None, ""):
            return str(values[key])
    return next((str(v) for v in values.values() if v not in (None, "")), "")
