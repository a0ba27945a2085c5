"""Versions of versioned elements: a change never touches a frozen version (released,
requestToExpire, expired) but goes to a new in-process revision copying it
(docs/contract.md, "Elements, versions and release workflow")."""

from __future__ import annotations

from sqlalchemy import Integer, insert, literal, select

from repository import release
from repository.store.base import StoreContext
from repository.store.changes import VERSION_CREATED, element_change
from repository.store.models import Child, Element, ElementVersion, Shape
from repository.store.reads import Reads
from repository.store.rows import Rows
from repository.store.values import NEUTRAL, new_id


class Versions:
    """Choosing and starting the version a write goes to."""

    def __init__(self, context: StoreContext, reads: Reads, rows: Rows) -> None:
        self.context = context
        self.reads = reads
        self.rows = rows

    def writable_version(self, element: Element) -> ElementVersion:
        """The version a change goes to: the newest one, or a new in-process revision of it
        when it is frozen."""
        version = self.reads.current_version(element)
        if element.versioned and version.state in release.FROZEN_STATES:
            return self._start_revision(element, version)
        return version

    def _start_revision(self, element: Element, frozen: ElementVersion) -> ElementVersion:
        """A new in-process version copying the frozen one's attributes, links, children
        and content (same shape ids)."""
        revision = self._add_version(element, seq=frozen.seq + 1, state=release.IN_PROCESS)
        element.state = release.IN_PROCESS
        attributes = self.reads.attributes([frozen.pk])[frozen.pk]
        label_of_frozen = str(attributes.get("version", {}).get(NEUTRAL, release.FIRST_VERSION))
        for dropped in ("validFrom", "validUntil", "relOn", "releaseComment"):
            attributes.pop(dropped, None)
        attributes.update({
            "version": {NEUTRAL: release.revision_version(label_of_frozen)},
            "isReleased": {NEUTRAL: False},
            "state1": {NEUTRAL: release.IN_PROCESS},
        })
        self.rows.write_attributes(revision, attributes)
        for context, links in self.reads.links([frozen.pk])[frozen.pk].items():
            if context != "relBy":
                self.rows.set_links(revision, context, [link.target_pk for link in links],
                                [link.target_version_pk for link in links])
        self._copy_structure(frozen, revision)
        self.context.record([element_change(VERSION_CREATED, element, revision.version_id,
                                            previousVersionId=frozen.version_id,
                                            oldState=frozen.state, newState=release.IN_PROCESS)])
        return revision

    def _add_version(self, element: Element, seq: int, state: str | None) -> ElementVersion:
        version = ElementVersion(element_pk=element.pk, version_id=new_id(), seq=seq,
                                 state=state)
        self.context.session.add(version)
        self.context.session.flush()
        element.current_version_pk = version.pk
        return version

    def _copy_structure(self, source: ElementVersion, target: ElementVersion) -> None:
        """Copy the children and shapes of `source` to the (empty) `target`, in SQL."""
        target_pk = literal(target.pk, Integer)
        self.context.session.execute(insert(Child).from_select(
            ["version_pk", "parent_pk", "child_pk", "position"],
            select(target_pk, Child.parent_pk, Child.child_pk, Child.position)
            .where(Child.version_pk == source.pk)))
        self.context.session.execute(insert(Shape).from_select(
            ["shape_id", "version_pk", "diagram_pk", "element_pk", "position", "predecessors"],
            select(Shape.shape_id, target_pk, Shape.diagram_pk, Shape.element_pk,
                   Shape.position, Shape.predecessors)
            .where(Shape.version_pk == source.pk)))
