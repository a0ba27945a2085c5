"""Reading and writing elements of one tenant. No Flask here: the CLI, the demo loader
and the web layer all go through `Store`, so every element gets the same versions,
states and server-set attributes however it was made.

The store never commits: the caller owns the transaction (one per request).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Exists,
    Integer,
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
from repository.errors import Conflict, InvalidInput, NotFound
from repository.models import (
    AttributeValue,
    Child,
    Element,
    ElementVersion,
    RelatedLink,
    Shape,
    Tenant,
)
from repository.wire import AttributeMap, ContentEntry, ContentItem, ElementInput

OPEN_ENDED = "9999-12-31T23:59:59"
NEUTRAL = catalog.NEUTRAL
MAX_TREE_DEPTH = 256
SORT_NAME_LENGTH = 512
TENANT_PART = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def now_timestamp() -> str:
    """ISO 8601 local form without offset (UTC wall clock), seconds precision."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")


def new_id() -> str:
    return str(uuid.uuid4())


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
        element = self.session.scalar(select(Element).where(
            Element.tenant_pk == self.tenant.pk, Element.id == element_id))
        if element is None or (facet is not None and element.facet != facet):
            where = f" in facet {facet!r}" if facet else ""
            raise NotFound(f"Element {element_id!r} not found{where}")
        return element

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

    def parent(self, element: Element) -> Element | None:
        """The first element whose newest version has `element` as a child."""
        return self.session.scalar(
            select(Element).join(Child, and_(Child.parent_pk == Element.pk,
                                             Child.version_pk == Element.current_version_pk))
            .where(Child.child_pk == element.pk).order_by(Child.pk).limit(1))

    def root_path(self, element: Element) -> list[Element]:
        """Parents from the nearest up to the root (the seed's example order)."""
        path: list[Element] = []
        seen = {element.pk}
        current = self.parent(element)
        while current is not None and current.pk not in seen and len(path) < MAX_TREE_DEPTH:
            path.append(current)
            seen.add(current.pk)
            current = self.parent(current)
        return path

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
        if data.type is None:
            raise InvalidInput("A new element needs a 'type'")
        type_key = self._check_type(facet, data.type)
        chosen_id = element_id or data.id or new_id()
        if self.session.scalar(select(Element.pk).where(
                Element.tenant_pk == self.tenant.pk, Element.id == chosen_id)) is not None:
            raise Conflict(f"Element {chosen_id!r} already exists")
        versioned = catalog.is_versioned(facet, type_key)
        state = release.IN_PROCESS if versioned else None
        element = Element(tenant_pk=self.tenant.pk, id=chosen_id, facet=facet, type=type_key,
                          versioned=versioned, state=state, sort_name="")
        self.session.add(element)
        self.session.flush()
        version = self._add_version(element, seq=1, state=state)
        stamp = now_timestamp()
        server: dict[str, Any] = {"createdOn": stamp, "changedOn": stamp,
                                  "state1": state or "show"}
        if versioned:
            server.update(version=release.FIRST_VERSION, isReleased=False)
        attributes = {**self._client_attributes(data),
                      **{k: {NEUTRAL: v} for k, v in server.items()}}
        self._write_attributes(version, attributes, fresh=True)
        links = self._client_links(data)
        if actor_pk is not None:
            links.update(createdBy=[actor_pk], changedBy=[actor_pk])
        for context, target_pks in links.items():
            self._set_links(version, context, target_pks, fresh=True)
        self._set_structure(element, version, data)
        element.sort_name = sort_key(attributes.get("name", {}), self.tenant.default_culture)
        return element

    def update(self, element: Element, data: ElementInput, actor_pk: int | None) -> Element:
        """Merge `data` into the element (CONTRACT 5); frozen versions get a successor."""
        newest = self.current_version(element)
        if data.version_id is not None and data.version_id != newest.version_id:
            raise Conflict(f"versionId {data.version_id!r} is not the newest version of "
                           f"{element.id!r} (that is {newest.version_id!r}); reload and retry")
        if data.type is not None and data.type.lower() != element.type.lower():
            raise InvalidInput(f"The type of {element.id!r} is {element.type!r} and cannot "
                               "change")
        version = self._writable_version(element)
        self.touch(element, version, actor_pk)
        self._apply(element, version, data)
        return element

    def append_content(self, diagram: Element, items: Sequence[ContentItem],
                       actor_pk: int | None) -> list[tuple[str, int]]:
        """Append shapes to the diagram's writable version (a released diagram gets a new
        in-process version first, as on update); returns (shape id, request index) per item."""
        version = self._writable_version(diagram)
        existing = {s.shape_id: s for s in self.shapes(version)}
        shapes_by_index: dict[int, Shape] = {}
        position = max((s.position for s in existing.values()), default=-1) + 1
        for item in items:
            if item.shape_id is not None:
                shape = existing.get(item.shape_id)
                if shape is None:
                    raise InvalidInput(f"Item {item.index}: shape {item.shape_id!r} is not a "
                                       f"shape of diagram {diagram.id!r}")
            else:
                target = self._content_element(diagram, item, actor_pk)
                shape = Shape(shape_id=new_id(), version_pk=version.pk, diagram_pk=diagram.pk,
                              element_pk=target.pk, position=position, predecessors="[]")
                position += 1
                self.session.add(shape)
            shapes_by_index[item.index] = shape
        for item in items:
            shape = shapes_by_index[item.index]
            predecessors = json.loads(shape.predecessors)
            for index in item.predecessors:
                predecessor_id = shapes_by_index[index].shape_id
                if predecessor_id not in predecessors:
                    predecessors.append(predecessor_id)
            shape.predecessors = json.dumps(predecessors)
        self.touch(diagram, version, actor_pk)
        self.session.flush()
        return [(shapes_by_index[item.index].shape_id, item.index) for item in items]

    def transition(self, element: Element, transition: release.Transition,
                   actor_pk: int | None) -> Element:
        """Run a release transition (409 when it does not start from the current state)."""
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

    def _check_type(self, facet: str, type_key: str) -> str:
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

    def _apply(self, element: Element, version: ElementVersion, data: ElementInput) -> None:
        self._write_attributes(version, self._client_attributes(data))
        for context, target_pks in self._client_links(data).items():
            self._set_links(version, context, target_pks)
        self._set_structure(element, version, data)
        names = self.attributes([version.pk])[version.pk].get("name", {})
        element.sort_name = sort_key(names, self.tenant.default_culture)

    def _client_attributes(self, data: ElementInput) -> AttributeMap:
        """What the client may write: server-set attributes are ignored, not refused, so
        an element read from the service can be sent back as it is."""
        return {name: values for name, values in data.attributes.items()
                if name not in catalog.SERVER_ATTRIBUTES}

    def _client_links(self, data: ElementInput) -> dict[str, list[int]]:
        return {context: self._existing_pks(ids, f"related.{context}")
                for context, ids in (data.related or {}).items()
                if context not in catalog.SERVER_RELATED}

    def _set_structure(self, element: Element, version: ElementVersion,
                       data: ElementInput) -> None:
        if data.children is not None:
            self._set_children(element, version, data.children)
        if data.content is not None:
            self._replace_content(element, version, data.content)

    def _write_attributes(self, version: ElementVersion, values: AttributeMap,
                          fresh: bool = False) -> None:
        """Upsert per (name, culture); None deletes. `fresh`: the version has no rows yet."""
        if not values:
            return
        existing: dict[tuple[str, int], int] = {} if fresh else {
            (name, culture): pk for pk, name, culture in self.session.execute(
                select(AttributeValue.pk, AttributeValue.name, AttributeValue.culture)
                .where(AttributeValue.version_pk == version.pk,
                       AttributeValue.name.in_(list(values))))}
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        deletes: list[int] = []
        for name, per_culture in values.items():
            for culture, value in per_culture.items():
                pk = existing.get((name, culture))
                if value is None:
                    if pk is not None:
                        deletes.append(pk)
                    continue
                exact, text, number = encode_value(value)
                row = {"value_json": exact, "value_text": text, "value_num": number}
                if pk is None:
                    inserts.append({"version_pk": version.pk, "name": name, "culture": culture,
                                    **row})
                else:
                    updates.append({"pk": pk, **row})
        if deletes:
            self.session.execute(delete(AttributeValue).where(AttributeValue.pk.in_(deletes)))
        if inserts:
            self.session.execute(insert(AttributeValue), inserts)
        if updates:
            self.session.execute(update(AttributeValue), updates)

    def _set_links(self, version: ElementVersion, context: str, target_pks: Sequence[int],
                   target_version_pks: Sequence[int | None] | None = None,
                   fresh: bool = False) -> None:
        """Replace one context's links; `fresh`: the version has none yet."""
        if not fresh:
            self.session.execute(delete(RelatedLink).where(
                RelatedLink.version_pk == version.pk, RelatedLink.context == context))
        if not target_pks:
            return
        versions = target_version_pks or [None] * len(target_pks)
        self.session.execute(insert(RelatedLink), [
            {"version_pk": version.pk, "context": context, "position": i, "target_pk": pk,
             "target_version_pk": vpk}
            for i, (pk, vpk) in enumerate(zip(target_pks, versions, strict=True))])

    def _existing_pks(self, ids: Sequence[str], where: str) -> list[int]:
        if not ids:
            return []
        found = dict(self.session.execute(select(Element.id, Element.pk).where(
            Element.tenant_pk == self.tenant.pk, Element.id.in_(set(ids)))).all())
        missing = [i for i in ids if i not in found]
        if missing:
            raise InvalidInput(f"{where}: unknown element id(s) {', '.join(map(repr, missing))}")
        return [found[i] for i in ids]

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
        self.session.add_all(Child(version_pk=version.pk, parent_pk=element.pk, child_pk=pk,
                                   position=i)
                             for i, pk in enumerate(child_pks))
        self.session.flush()

    def _replace_content(self, diagram: Element, version: ElementVersion,
                         entries: Sequence[ContentEntry]) -> None:
        """Keep the named shapes in the given order, add shapes for bare ids, drop the rest."""
        existing = {s.shape_id: s for s in self.shapes(version)}
        kept: list[Shape] = []
        for i, entry in enumerate(entries):
            if entry.shape_id is not None:
                shape = existing.get(entry.shape_id)
                if shape is None:
                    raise InvalidInput(f"content[{i}]: shape {entry.shape_id!r} is not a shape "
                                       f"of {diagram.id!r}")
                if shape in kept:
                    raise InvalidInput(f"content[{i}]: shape {entry.shape_id!r} listed twice")
            else:
                assert entry.element_id is not None
                target_pk = self._existing_pks([entry.element_id], f"content[{i}].id")[0]
                shape = Shape(shape_id=new_id(), version_pk=version.pk, diagram_pk=diagram.pk,
                              element_pk=target_pk, predecessors="[]")
                self.session.add(shape)
            shape.position = i
            kept.append(shape)
        kept_ids = {s.shape_id for s in kept}
        for i, (entry, shape) in enumerate(zip(entries, kept, strict=True)):
            if entry.predecessors is None:
                predecessors = [p for p in json.loads(shape.predecessors) if p in kept_ids]
            else:
                bad = [p for p in entry.predecessors if p not in kept_ids or p == shape.shape_id]
                if bad:
                    raise InvalidInput(f"content[{i}].predecessors: {bad} must be other shapes "
                                       "of this content list")
                predecessors = list(dict.fromkeys(entry.predecessors))
            shape.predecessors = json.dumps(predecessors)
        for shape_id, shape in existing.items():
            if shape_id not in kept_ids:
                self.session.delete(shape)
        self.session.flush()

    def _content_element(self, diagram: Element, item: ContentItem,
                         actor_pk: int | None) -> Element:
        if item.element_id is not None:
            try:
                return self.element(item.element_id)
            except NotFound:
                raise InvalidInput(f"Item {item.index}: element {item.element_id!r} does not "
                                   "exist") from None
        assert item.type is not None
        known = catalog.find_type(item.type)
        facet = catalog.facet_of_type(known.key, diagram.facet) if known else None
        if known is None or facet is None:
            raise InvalidInput(f"Item {item.index}: unknown element type {item.type!r}")
        data = ElementInput(id=None, version_id=None, type=known.key, facet=facet,
                            attributes=item.attributes, related=item.related, children=None,
                            content=None)
        return self.create(facet, data, actor_pk)

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
