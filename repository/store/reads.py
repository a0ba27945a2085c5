"""Reading one tenant's elements: by id, by pk, listing pages, the hierarchy (children
and root paths), versions, content and the per-version batches (attributes, links).
What responses show is read as plain rows (repository/store/plain.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Exists,
    ScalarSelect,
    Select,
    and_,
    bindparam,
    exists,
    func,
    literal,
    not_,
    select,
    tuple_,
)
from sqlalchemy.orm import InstrumentedAttribute, aliased

from repository.errors import NotFound
from repository.store import batch, plain
from repository.store.base import StoreContext, current_version_pk
from repository.store.filters import ONE_ELEMENT, SMALL_TENANT, VERSIONS, compile_filter, for_tenant
from repository.store.generation import content_generation, generation_column
from repository.store.models import AttributeValue, Child, Element, ElementVersion, Shape
from repository.store.plain import (
    ELEMENT_REF_COLUMNS,
    AnySelect,
    ElementRef,
    ListedElement,
    ShapeRow,
    VersionRef,
)
from repository.store.positions import ListingKey, Milestones
from repository.store.values import Link, PageRequest, label
from repository.wire import AttributeMap

MAX_TREE_DEPTH = 256
_LIST, _TREE, _DIAGRAM = "list", "tree", "diagram"
# Parameters of the page statements.
_TENANT, _FACET, _LIMIT, _OFFSET = "tenant_pk", "facet", "page_limit", "page_offset"
_LISTED = (select(*ELEMENT_REF_COLUMNS, ElementVersion.version_id, ElementVersion.state)
           .join(ElementVersion, ElementVersion.pk == Element.current_version_pk))
_LISTING_ORDER = (Element.sort_name, Element.id)
_LISTING_KEY = tuple_(*_LISTING_ORDER)
#: A statement and its parameters.
Statement = tuple[AnySelect, dict[str, Any]]


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
    """The parent of `child_pk` that `Reads.root_paths` follows: the owner of the first
    child row (by pk) listing it in the owner's newest version; NULL for a root."""
    owner = aliased(Element)
    return (select(Child.parent_pk)
            .join(owner, and_(owner.pk == Child.parent_pk,
                              owner.current_version_pk == Child.version_pk))
            .where(Child.child_pk == child_pk).order_by(Child.pk).limit(1).scalar_subquery())


def _in_view(view: str, tenant_pk: Any, facet: Any) -> ColumnElement[bool]:
    """The elements of a tenant's facet that `view` lists (values or bound parameters)."""
    conditions = [Element.tenant_pk == tenant_pk, Element.facet == facet]
    if view == _TREE:
        # Roots of the hierarchy: nobody's child and not merely a shape of a diagram.
        conditions.append(not_(_listed_in_a_current_version(
            Child.child_pk, Child.parent_pk, Child.version_pk)))
        conditions.append(not_(_listed_in_a_current_version(
            Shape.element_pk, Shape.diagram_pk, Shape.version_pk)))
    elif view == _DIAGRAM:
        conditions.append(with_content())
    return and_(*conditions)


def _page_query(condition: ColumnElement[bool]) -> AnySelect:
    """A page of the elements matching `condition` (parameters `_LIMIT`, `_OFFSET`): its
    pks first, from the listing index, so the OFFSET steps over the elements before the
    page in the index alone (joined to their versions, it would read each of their rows
    and versions too); then the page's rows."""
    pks = (select(Element.pk).where(condition).order_by(*_LISTING_ORDER)
           .limit(bindparam(_LIMIT)).offset(bindparam(_OFFSET)).correlate(None))
    return _LISTED.where(Element.pk.in_(pks)).order_by(*_LISTING_ORDER)


# A page without a `$filter`, per view (every other view lists as `list` does): built and
# compiled once, the tenant and facet given when it runs; building the statement anew
# cost more than running it.
_PAGES = {view: _page_query(_in_view(view, bindparam(_TENANT), bindparam(_FACET)))
          for view in (_LIST, _TREE, _DIAGRAM)}


_ELEMENT_ID = "element_id"
_NEWEST_VERSION = select(Element.current_version_pk).where(
    Element.tenant_pk == bindparam(_TENANT), Element.id == bindparam(_ELEMENT_ID))


class Reads:
    """Everything the store reads; nothing here writes."""

    def __init__(self, context: StoreContext) -> None:
        self.context = context

    # Whether the tenant has more than filters.SMALL_TENANT elements: read once per store
    # (a request), when its first `$filter` is used.
    _large_tenant: bool | None = None

    # ---- elements ------------------------------------------------------------------

    def element(self, element_id: str, facet: str | None = None) -> Element:
        return self.elements_by_id([element_id], facet)[element_id]

    def newest_version_pk(self, element_id: str) -> int:
        """The pk of the element's newest version, or 404: half of a render cache key,
        read as one plain row (a cache hit needs nothing else of the element)."""
        version_pk = self.context.rows(_NEWEST_VERSION, **{_TENANT: self.context.tenant.pk,
                                                           _ELEMENT_ID: element_id}).scalar()
        if version_pk is None:
            raise NotFound(f"Element {element_id!r} not found")
        return int(version_pk)

    def elements_by_id(self, element_ids: Sequence[str],
                       facet: str | None = None) -> dict[str, Element]:
        """The tenant's elements of these ids; 404 for the first one missing (or in
        another facet)."""
        query = select(Element).where(Element.tenant_pk == self.context.tenant.pk)
        found = {element.id: element for (element,)
                 in batch.chunked_rows(self.context.session, query, Element.id, element_ids)}
        for element_id in element_ids:
            element = found.get(element_id)
            if element is None or (facet is not None and element.facet != facet):
                where = f" in facet {facet!r}" if facet else ""
                raise NotFound(f"Element {element_id!r} not found{where}")
        return found

    def elements_by_pk(self, pks: Iterable[int]) -> dict[int, Element]:
        return {element.pk: element for (element,)
                in batch.chunked_rows(self.context.session, select(Element), Element.pk, pks)}

    def resolve(self, element_or_version_id: str, facet: str) -> tuple[Element, ElementVersion]:
        """An element id (its newest version) or a version id (that version)."""
        element = self.context.session.scalar(select(Element).where(
            Element.tenant_pk == self.context.tenant.pk, Element.id == element_or_version_id))
        if element is not None and element.facet == facet:
            return element, self.current_version(element)
        row = self.context.session.execute(
            select(Element, ElementVersion)
            .join(ElementVersion, ElementVersion.element_pk == Element.pk)
            .where(Element.tenant_pk == self.context.tenant.pk, Element.versioned.is_(True),
                   ElementVersion.version_id == element_or_version_id, Element.facet == facet)
        ).first()
        if row is None:
            raise NotFound(f"Element {element_or_version_id!r} not found in facet {facet!r}")
        return row[0], row[1]

    def element_matches(self, element: Element, filter_text: str) -> bool:
        """Whether the element's newest version matches a `$filter` (400 if invalid)."""
        condition = compile_filter(filter_text, ONE_ELEMENT)
        return bool(self.context.session.scalar(select(exists(
            select(Element.pk).where(Element.pk == element.pk, condition)))))

    def users_with_role_flag(self, flag: str) -> list[Element]:
        return list(self.context.session.scalars(
            select(Element).where(
                Element.tenant_pk == self.context.tenant.pk, Element.type == "user",
                exists(select(AttributeValue.pk).where(
                    AttributeValue.version_pk == Element.current_version_pk,
                    AttributeValue.name == flag, AttributeValue.value_text == "true")))
            .order_by(Element.sort_name, Element.id)))

    def content_generation(self) -> int:
        """The tenant's content generation (repository/store/generation.py)."""
        return content_generation(self.context.session, self.context.tenant.pk)

    # ---- versions ------------------------------------------------------------------

    def current_version(self, element: Element) -> ElementVersion:
        version = self.context.session.get(ElementVersion, element.current_version_pk)
        assert version is not None, "every element has a current version"
        return version

    def versions(self, element: Element) -> list[ElementVersion]:
        """The element's versions, oldest first."""
        return list(self.context.session.scalars(_versions_of(element)))

    def versions_matching(self, element: Element,
                          filter_text: str | None) -> list[ElementVersion]:
        """The versions (oldest first) matching a `$filter` on each version's own values;
        an element without versioning lists none, yet a bad filter is still a 400."""
        query = _versions_of(element)
        if filter_text is not None:
            query = query.join(Element, Element.pk == ElementVersion.element_pk).where(
                compile_filter(filter_text, VERSIONS))
        return list(self.context.session.scalars(query)) if element.versioned else []

    def versions_by_pk(self, pks: Iterable[int | None]) -> dict[int, ElementVersion]:
        return {version.pk: version for (version,) in batch.chunked_rows(
            self.context.session, select(ElementVersion), ElementVersion.pk, pks)}

    def version_refs(self, pks: Iterable[int | None]) -> dict[int, VersionRef]:
        """`versions_by_pk` as plain rows: what a response names of a version, without
        the cost of mapped objects (a page names hundreds)."""
        return {row.pk: VersionRef(*row) for row in self.context.rows_of(plain.VERSION_REFS, pks)}

    def element_refs(self, pks: Iterable[int]) -> dict[int, ElementRef]:
        """`elements_by_pk` as plain rows (see `version_refs`)."""
        return {row.pk: ElementRef(*row) for row in self.context.rows_of(plain.ELEMENT_REFS, pks)}

    # ---- listing pages -------------------------------------------------------------

    def page(self, request: PageRequest) -> list[ListedElement]:
        """Page `request.page` of the listing, in listing order. Without a `$filter`, the
        view's statement is the one built at import, given the tenant and facet."""
        offset = (request.page - 1) * request.page_size
        if request.condition is None and offset >= self.context.positions.spacing:
            from_milestone = self._page_from_milestone(request, offset)
            if from_milestone is not None:
                return from_milestone
        parameters: dict[str, Any] = {_LIMIT: request.page_size, _OFFSET: offset}
        if request.condition is not None:
            query = _page_query(self._view_condition(request))
        else:
            query = _PAGES.get(request.view, _PAGES[_LIST])
            parameters.update({_TENANT: self.context.tenant.pk, _FACET: request.facet})
        return [ListedElement(*row) for row in self.context.rows(query, **parameters).all()]

    def page_holding(self, request: PageRequest, element_id: str) -> list[ListedElement]:
        """The page of `request`'s listing that holds the element (404 if none): the same
        page `$page` numbers, whatever `request.page` says.

        Its place is the number of elements before it, counted in the listing index
        alone; the page is then read by seeking the listing order from the element's key
        (sort name, id), its elements before the element backwards and the rest forwards:
        two index ranges of at most a page each, however deep the element lies, where an
        OFFSET reads every element before the page. The element's key is read by its id
        alone; whether the view and `$filter` list it shows in the forward read, which
        starts with it if they do (each statement evaluates a `$filter` anew)."""
        condition = self._view_condition(request)
        key = self.context.rows(select(*_LISTING_ORDER).where(
            Element.tenant_pk == self.context.tenant.pk, Element.facet == request.facet,
            Element.id == element_id)).first()
        rest = [] if key is None else self._listed(
            and_(condition, _LISTING_KEY >= tuple_(*key)), _LISTING_ORDER, request.page_size)
        if key is None or not rest or rest[0].id != element_id:
            raise NotFound(f"$pageSelectionKey {element_id!r} is not in this listing")
        position = None
        if request.condition is None:
            position = self._position_from_milestone(request, condition, (key[0], key[1]))
        if position is None:
            position = self.context.rows(select(_count_before(condition, key, request))).scalar_one()
        earlier = position % request.page_size
        head = self._listed(and_(condition, _LISTING_KEY < tuple_(*key)),
                            tuple(column.desc() for column in _LISTING_ORDER), earlier)
        return head[::-1] + rest[:request.page_size - earlier]

    # ---- milestones (repository/store/positions.py) ----------------------------------

    def _page_from_milestone(self, request: PageRequest,
                             offset: int) -> list[ListedElement] | None:
        """Page `request.page` of an unfiltered listing read from the last milestone at or
        before its first element (an OFFSET of fewer than `SPACING` entries); None when
        that cannot be told right (a write in between, a page past the end)."""
        condition = self._view_condition(request)

        def page_after(milestones: Milestones) -> Statement:
            position, key = milestones.at_or_before(offset)
            return (_page_query(and_(condition, _LISTING_KEY >= tuple_(*key)))
                    .add_columns(generation_column(self.context.tenant.pk)),
                    {_LIMIT: request.page_size, _OFFSET: offset - position})

        rows = self._with_milestones(request, page_after)
        return None if rows is None else [ListedElement(*row[:-1]) for row in rows]

    def _position_from_milestone(self, request: PageRequest, condition: ColumnElement[bool],
                                 key: tuple[str, str]) -> int | None:
        """The number of elements before `key` in an unfiltered listing: the last
        milestone before it and a count of fewer than `SPACING` entries from there."""
        def count_from(milestones: Milestones) -> Statement:
            found = milestones.before(key)
            if found is None:  # the first element
                return select(literal(0), generation_column(self.context.tenant.pk)), {}
            position, milestone = found
            return select(position + _count(condition, _LISTING_KEY >= tuple_(*milestone),
                                            _LISTING_KEY < tuple_(*key)),
                          generation_column(self.context.tenant.pk)), {}

        rows = self._with_milestones(request, count_from)
        return None if rows is None else int(rows[0][0])

    def _with_milestones(self, request: PageRequest,
                         statement: Callable[[Milestones], Statement]) -> list[Any] | None:
        """The rows of `statement(milestones)` (its last column the tenant's generation)
        if they were read in the milestones' generation: the kept ones, else ones read
        now. None for an empty answer or a write that came in between, twice."""
        listing = _listing_key(self.context.tenant.pk, request)
        milestones = self.context.positions.get(listing)
        for _ in range(2):
            if milestones is None:
                milestones = self._read_milestones(request)
                if milestones is None:
                    return None
                if self.context.session.info.get("writes") is False:
                    # Kept for other requests only when read outside a write: a write's
                    # transaction may roll back, and its generation be another write's next.
                    self.context.positions.put(listing, milestones)
            query, parameters = statement(milestones)
            rows = self.context.rows(query, **parameters).all()
            if rows and rows[0][-1] == milestones.generation:
                return list(rows)
            if rows:
                milestones = None  # read before a write: read them anew, once
            else:
                return None
        return None

    def _read_milestones(self, request: PageRequest) -> Milestones | None:
        """Every `SPACING`-th key of the listing, with the generation in the same
        statement (None for an empty listing): from each milestone the next one is the
        element `SPACING` further on in the listing index (an OFFSET in the index alone,
        the cheapest pass over it on SQLite: a window function numbering every element
        took three times as long; on PostgreSQL both cost the same)."""
        spacing = self.context.positions.spacing
        view = self._view_condition(request)
        first = (select(Element.pk.label("pk"), literal(0).label("position"))
                 .where(view).order_by(*_LISTING_ORDER).limit(1).subquery())
        milestones = select(first.c.pk, first.c.position).cte("milestones", recursive=True)
        at = aliased(Element)
        next_pk = (select(Element.pk).where(view, _LISTING_KEY > tuple_(at.sort_name, at.id))
                   .order_by(*_LISTING_ORDER).offset(spacing - 1).limit(1)
                   .correlate(at).scalar_subquery())
        following = aliased(Element)
        milestones = milestones.union_all(
            select(following.pk, milestones.c.position + spacing)
            .select_from(milestones)
            .join(at, at.pk == milestones.c.pk)
            .join(following, following.pk == next_pk))
        found = aliased(Element)
        rows = sorted(self.context.rows(
            select(milestones.c.position, found.sort_name, found.id,
                   generation_column(self.context.tenant.pk))
            .join(found, found.pk == milestones.c.pk)).all())  # a few rows: sorted here
        if not rows:
            return None
        return Milestones(rows[0][-1], spacing, [(row[1], row[2]) for row in rows])

    def _listed(self, condition: ColumnElement[bool], order: Sequence[Any],
                limit: int) -> list[ListedElement]:
        if limit == 0:
            return []
        query = _LISTED.where(condition).order_by(*order).limit(limit)
        return [ListedElement(*row) for row in self.context.rows(query).all()]

    def diagrams(self) -> list[Element]:
        """Every element whose newest version has content, in listing order."""
        return list(self.context.session.scalars(
            select(Element).where(Element.tenant_pk == self.context.tenant.pk, with_content())
            .order_by(Element.sort_name, Element.id)))

    def _view_condition(self, request: PageRequest) -> ColumnElement[bool]:
        condition = _in_view(request.view, self.context.tenant.pk, request.facet)
        if request.condition is None:
            return condition
        return and_(condition, self._for_tenant(request.condition))

    def _for_tenant(self, condition: ColumnElement[bool]) -> ColumnElement[bool]:
        """A `$filter` condition limited to the tenant (repository/store/filters.py)."""
        if self._large_tenant is None:
            first = (select(Element.current_version_pk).where(Element.tenant_pk == self.context.tenant.pk)
                     .limit(SMALL_TENANT + 1).subquery())
            counted = self.context.session.scalar(select(func.count()).select_from(first)) or 0
            self._large_tenant = counted > SMALL_TENANT
        return for_tenant(condition, self.context.tenant.pk, large=self._large_tenant)

    # ---- hierarchy -----------------------------------------------------------------

    def children(self, version: ElementVersion) -> list[Element]:
        """The version's children, in order."""
        return list(self.context.session.scalars(
            select(Element).join(Child, Child.child_pk == Element.pk)
            .where(Child.version_pk == version.pk).order_by(Child.position)))

    def child_pks(self, version_pks: Sequence[int]) -> dict[int, list[int]]:
        """The ordered child element pks of each version."""
        return self.context.load(plain.CHILDREN, version_pks)

    def root_path(self, element: Element) -> list[Element]:
        """Parents from the nearest up to the root (the seed's example order)."""
        return self.root_paths([element.pk])[element.pk]

    def root_paths(self, element_pks: Sequence[int]) -> dict[int, list[Element]]:
        """`root_path` of each element (by pk), in one statement whatever their number and the
        depth of the tree: a recursive query collects the first parent of every element
        and ancestor, then each path is walked here. An element's parent is the first
        element (by child row) whose newest version has it as a child."""
        if not element_pks:
            return {}
        start = (select(Element.pk.label("pk"), _first_parent(Element.pk).label("parent_pk"))
                 .where(Element.pk.in_(set(element_pks))).cte("up", recursive=True))
        # UNION, not UNION ALL: a row seen before is dropped, so the recursion ends even
        # where first parents loop (children lists can make such a loop across several
        # parents); the walk below then stops at the repeat.
        up = start.union(select(start.c.parent_pk, _first_parent(start.c.parent_pk))
                         .where(start.c.parent_pk.is_not(None)))
        parent_of = {pk: parent for pk, parent in self.context.session.execute(
            select(up.c.pk, Element).select_from(up)
            .outerjoin(Element, Element.pk == up.c.parent_pk))}
        paths: dict[int, list[Element]] = {}
        for element_pk in element_pks:
            path: list[Element] = []
            seen = {element_pk}
            current = parent_of[element_pk]
            while (current is not None and current.pk not in seen
                   and len(path) < MAX_TREE_DEPTH):
                path.append(current)
                seen.add(current.pk)
                current = parent_of[current.pk]
            paths[element_pk] = path
        return paths

    # ---- content -------------------------------------------------------------------

    def shapes(self, version: ElementVersion) -> list[ShapeRow]:
        """The version's content, in order."""
        return self.shapes_of([version.pk])[version.pk]

    def shapes_of(self, version_pks: Sequence[int]) -> dict[int, list[ShapeRow]]:
        """The ordered shapes of each version."""
        return self.context.load(plain.SHAPES, version_pks)

    def shape_count(self, element: Element, version: ElementVersion | None = None) -> int:
        """How many shapes the element's newest version (or `version` of it) holds, counted
        in the index: what a render checks before it reads them (content stored before the
        limits held)."""
        version_pk = element.current_version_pk if version is None else version.pk
        return int(self.context.session.scalar(select(func.count()).select_from(Shape).where(
            Shape.version_pk == version_pk)) or 0)

    def has_content(self, element: Element) -> bool:
        """Whether the element's newest version has shapes."""
        return bool(self.context.session.scalar(select(exists(
            select(Shape.pk).where(Shape.version_pk == element.current_version_pk)))))

    def shape_ids_of(self, element: Element) -> list[str]:
        """Shape ids through which the element appears in the newest version of a diagram."""
        return list(self.context.session.scalars(
            select(Shape.shape_id)
            .join(Element, and_(Element.pk == Shape.diagram_pk,
                                Element.current_version_pk == Shape.version_pk))
            .where(Shape.element_pk == element.pk).order_by(Shape.pk)))

    # ---- attributes and links ------------------------------------------------------

    def attributes(self, version_pks: Sequence[int]) -> dict[int, AttributeMap]:
        """Each version's attributes by name and culture."""
        return self.context.load(plain.ATTRIBUTES, version_pks)

    def links(self, version_pks: Sequence[int]) -> dict[int, dict[str, list[Link]]]:
        """Each version's related links by context, in order."""
        return self.context.load(plain.LINKS, version_pks)

    def name_of(self, element: Element, culture: int) -> str:
        """The element's name in `culture` (with the label fallbacks)."""
        version_pk = current_version_pk(element)
        return label(self.names_of([version_pk])[version_pk], culture,
                     self.context.tenant.default_culture)

    def names_of(self, version_pks: Sequence[int]) -> dict[int, dict[int, Any]]:
        """The `name` values of each version, by culture."""
        return self.context.load(plain.NAMES, version_pks)


def _count_before(condition: ColumnElement[bool], key: Sequence[str],
                  request: PageRequest) -> ColumnElement[int]:
    """The number of elements of the listing before `key`, counted in the index."""
    if request.condition is None:
        # Two ranges of the index (names before its name, then its ties) rather than
        # one on (sort name, id): SQLite then compares the name alone per entry, 1.7
        # times as fast at 100,000 elements.
        sort_name, key_id = key
        return (_count(condition, Element.sort_name < sort_name)
                + _count(condition, Element.sort_name == sort_name, Element.id < key_id))
    return _count(condition, _LISTING_KEY < tuple_(*key))  # the `$filter` evaluated once


def _listing_key(tenant_pk: int, request: PageRequest) -> ListingKey:
    """Views that list as `list` does share its milestones."""
    view = request.view if request.view in (_TREE, _DIAGRAM) else _LIST
    return tenant_pk, request.facet, view


def _count(*conditions: ColumnElement[bool]) -> ScalarSelect[int]:
    return select(func.count()).select_from(Element).where(*conditions).scalar_subquery()


def _versions_of(element: Element) -> Select[ElementVersion]:
    return (select(ElementVersion).where(ElementVersion.element_pk == element.pk)
            .order_by(ElementVersion.seq))
