"""Elements → wire dicts (seed "Element"), loading everything a page needs in a fixed
number of batched queries (attributes, links, children, shapes, referenced elements)
rather than one query per element. Everything but the references comes from the version
being shown, so a released version shows its own content and children.

Attribute values keep the store's culture ids (numbers) as keys: the service's JSON
encoder writes them as the strings of the wire (repository/jsonio.py, `OPT_NON_STR_KEYS`;
the standard library's fallback does the same), so a page's 600 values are not copied
into new dicts first. Dicts made here are shared (references, display names): nothing
changes them after they are made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from renderer.culture import text_keyed
from repository import catalog
from repository.jsonio import decode
from repository.store import Link, Store
from repository.store.plain import ElementRef, ShapeRow

RESOURCES = frozenset({"attributes", "related", "children", "content", "displayNames",
                       "rootPath", "stereotype"})
DEFAULT_RESOURCES = frozenset({"attributes", "related", "children", "content", "displayNames"})

# What the serializer reads of elements and versions: mapped objects (the page) and plain
# rows (`Store.element_refs`, `Store.version_refs`: the references) alike.
class ElementLike(Protocol):
    @property
    def pk(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def facet(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def versioned(self) -> bool: ...
    @property
    def current_version_pk(self) -> int | None: ...


class VersionLike(Protocol):
    @property
    def pk(self) -> int: ...
    @property
    def version_id(self) -> str: ...
    @property
    def state(self) -> str | None: ...


UriOf = Callable[[ElementLike], str]
# Each known type's display names by culture, shared by every element of the type.
_DISPLAY_NAMES = {name: text_keyed(known.display_names) for name, known in catalog.TYPES.items()}


@dataclass(frozen=True, slots=True)
class Shaping:
    """What a response includes: `$resources`, `$select`, `$expandRelated`."""

    resources: frozenset[str] = DEFAULT_RESOURCES
    select: frozenset[str] | None = None
    expand: frozenset[str] = frozenset()

    def wants(self, name: str) -> bool:
        return self.select is None or name in self.select

    def selected_resources(self) -> Shaping:
        """For a `$select` without `$resources`: only the resources it narrows (attributes
        and related) and those it names, so an answer is no larger than asked
        (`$select=version` on versions carries no content)."""
        if self.select is None:
            return self
        return replace(self, resources=frozenset({"attributes", "related"})
                       | (self.resources & self.select))


def detail_uri(base: str) -> UriOf:
    return lambda e: f"{base}/_api/rest/facets/{e.facet}/views/detail/elements/{e.id}"


def reporting_uri(base: str) -> UriOf:
    return lambda e: f"{base}/_api/rest/facets/{e.facet}/reporting/{e.id}"


class Serializer:
    def __init__(self, store: Store, shaping: Shaping, uri_of: UriOf) -> None:
        self.store = store
        self.shaping = shaping
        self.uri_of = uri_of
        self._versions: dict[int, VersionLike] = {}
        self._references_made: dict[tuple[int, int | None], dict[str, Any]] = {}

    def elements(self, pairs: Sequence[tuple[ElementLike, VersionLike | None]]
                 ) -> list[dict[str, Any]]:
        """Full elements; a None version means the element's newest version."""
        wants = self.shaping.resources
        self._versions.update((v.pk, v) for _, v in pairs if v is not None)
        root_paths = (self.store.reads.root_paths([e.pk for e, _ in pairs])
                      if "rootPath" in wants else {})
        # The path references name their newest versions: loaded with the page's own.
        self._preload_versions([e.current_version_pk for e, v in pairs if v is None]
                               + [p.current_version_pk for path in root_paths.values()
                                  for p in path])
        resolved: list[tuple[ElementLike, VersionLike]] = [
            (e, v or self._version_of(e)) for e, v in pairs]
        version_pks = [v.pk for _, v in resolved]
        attributes = self.store.reads.attributes(version_pks) if "attributes" in wants else {}
        need_links = bool({"related", "stereotype"} & wants)
        links = self.store.reads.links(version_pks) if need_links else {}
        children = self.store.reads.child_pks(version_pks) if "children" in wants else {}
        shapes = self.store.reads.shapes_of(version_pks) if "content" in wants else {}
        refs = self._references(links, children, shapes)
        expanded = self._expansions(links)
        return [self._element(e, v, attributes.get(v.pk, {}), links.get(v.pk, {}),
                              children.get(v.pk, []), shapes.get(v.pk, []),
                              root_paths.get(e.pk, []), refs, expanded)
                for e, v in resolved]

    def reference(self, element: ElementLike,
                  version: VersionLike | None = None) -> dict[str, Any]:
        """The reduced form used inside related, children, content and rootPath. Made
        once per element and version and then shared (a page names the same users and
        org units hundreds of times): callers that add to it copy it first."""
        key = (element.pk, None if version is None else version.pk)
        made = self._references_made.get(key)
        if made is None:
            made = self._references_made[key] = self._new_reference(element, version)
        return made

    def _new_reference(self, element: ElementLike,
                       version: VersionLike | None) -> dict[str, Any]:
        ref: dict[str, Any] = {"facetName": element.facet, "id": element.id}
        if element.versioned:
            target = version or self._version_of(element)
            ref["versionId"] = target.version_id
            ref["type"] = element.type
            ref["state"] = target.state
        else:
            ref["creationId"] = element.id
            ref["type"] = element.type
        ref["expandUri"] = self.uri_of(element)
        return ref

    def related_values(self, element: ElementLike, version: VersionLike,
                       contexts: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        """Related get: the named contexts, expanded when `$expandRelated` names them."""
        links = self.store.reads.links([version.pk])
        refs = self._references(links, {}, {})
        expanded = self._expansions(links)
        mine = links[version.pk]
        return {c: [self._linked(link, refs, expanded) for link in mine.get(c, [])]
                for c in contexts}

    # ---- internals -----------------------------------------------------------------

    def _element(self, element: ElementLike, version: VersionLike,
                 attributes: dict[str, dict[int, Any]],
                 links: dict[str, list[Link]], children: list[int], shapes: list[ShapeRow],
                 root_path: Sequence[ElementLike], refs: dict[int, ElementRef],
                 expanded: dict[int, dict[str, Any]]) -> dict[str, Any]:
        wants = self.shaping.resources
        body: dict[str, Any] = {"id": element.id, "creationId": element.id}
        if element.versioned:
            body["versionId"] = version.version_id
            body["state"] = version.state
        body.update(type=element.type, facetName=element.facet,
                    expandUri=self.uri_of(element), setReadOnly=False)
        if "attributes" in wants:
            body["attributes"] = (attributes if self.shaping.select is None else
                                  {n: v for n, v in attributes.items() if n in self.shaping.select})
        if "related" in wants:
            body["related"] = {c: [self._linked(link, refs, expanded) for link in ls]
                               for c, ls in links.items() if self.shaping.wants(c)}
        if "children" in wants:
            body["children"] = [self._reference_to(pk, None, refs) for pk in children]
        if "content" in wants:
            body["content"] = [{**self._reference_to(s.element_pk, None, refs),
                                "shapeId": s.shape_id, "predecessors": decode(s.predecessors)}
                               for s in shapes]
        if "displayNames" in wants:
            body["displayNames"] = _DISPLAY_NAMES.get(element.type, {})
        if "rootPath" in wants:
            body["rootPath"] = [self.reference(p) for p in root_path]
        if "stereotype" in wants:
            stereotype = links.get("stereotype", [])
            body["stereotype"] = (self._linked(stereotype[0], refs, {}) if stereotype else None)
        return body

    def _linked(self, link: Link, refs: dict[int, ElementRef],
                expanded: dict[int, dict[str, Any]]) -> dict[str, Any]:
        ref = self._reference_to(link.target_pk, link.target_version_pk, refs)
        if link.context in self.shaping.expand and link.target_version_pk is None:
            return {**ref, **expanded.get(link.target_pk, {})}
        return ref

    def _reference_to(self, element_pk: int, version_pk: int | None,
                      refs: dict[int, ElementRef]) -> dict[str, Any]:
        """`reference` by pks (None: the newest version), found in one look-up once made."""
        made = self._references_made.get((element_pk, version_pk))
        if made is None:
            made = self.reference(refs[element_pk],
                                  None if version_pk is None else self._version(version_pk))
        return made

    def _version_of(self, element: ElementLike) -> VersionLike:
        assert element.current_version_pk is not None, "every element has a version"
        return self._version(element.current_version_pk)

    def _references(self, links: dict[int, dict[str, list[Link]]],
                    children: dict[int, list[int]],
                    shapes: dict[int, list[ShapeRow]]) -> dict[int, ElementRef]:
        pks = {link.target_pk for per_context in links.values()
               for ls in per_context.values() for link in ls}
        pks.update(pk for cs in children.values() for pk in cs)
        pks.update(s.element_pk for ss in shapes.values() for s in ss)
        elements = self.store.reads.element_refs(pks)
        self._preload_versions([e.current_version_pk for e in elements.values()]
                               + [link.target_version_pk for per_context in links.values()
                                  for ls in per_context.values() for link in ls])
        return elements

    def _preload_versions(self, version_pks: Sequence[int | None]) -> None:
        """Load the versions a response will name in one query (not one per element)."""
        wanted = {pk for pk in version_pks if pk is not None} - set(self._versions)
        if wanted:
            self._versions.update(self.store.reads.version_refs(wanted))

    def _version(self, pk: int) -> VersionLike:
        if pk not in self._versions:
            self._preload_versions([pk])
        return self._versions[pk]

    def _expansions(self, links: dict[int, dict[str, list[Link]]]) -> dict[int, dict[str, Any]]:
        """Attributes and related of every element in an expanded context (one level)."""
        targets = {link.target_pk for per_context in links.values()
                   for context, ls in per_context.items() if context in self.shaping.expand
                   for link in ls}
        if not targets:
            return {}
        elements = self.store.reads.element_refs(targets)
        version_pks = [e.current_version_pk for e in elements.values() if e.current_version_pk]
        attributes = self.store.reads.attributes(version_pks)
        nested_links = self.store.reads.links(version_pks)
        nested_refs = self._references(nested_links, {}, {})
        result = {}
        for pk, element in elements.items():
            vpk = element.current_version_pk or 0
            result[pk] = {
                "attributes": attributes.get(vpk, {}),
                "related": {c: [self._reference_to(link.target_pk, None, nested_refs)
                                for link in ls]
                            for c, ls in nested_links.get(vpk, {}).items()},
            }
        return result

