"""Release transitions and their side effects (docs/contract.md, "Elements, versions and
release workflow"): releasing bumps the major version and expires the previous release;
a request to expire opens an approval task for the approvers, which expiring accepts and
keeping the release declines. Which transitions exist is `repository.release`'s answer."""

from __future__ import annotations

from sqlalchemy import exists, select

from repository import catalog, protected, release
from repository.errors import Conflict
from repository.store.base import StoreContext, current_version_pk
from repository.store.changes import STATE_CHANGED, UPDATED, element_change
from repository.store.guard import Guard
from repository.store.models import AttributeValue, Element, ElementVersion, RelatedLink
from repository.store.reads import Reads
from repository.store.rows import Rows
from repository.store.values import NEUTRAL, OPEN_ENDED, label, now_timestamp
from repository.store.writes import Writes
from repository.wire import ElementInput

EXPIRY_TASK = "approveExpiry"  # the task's actionType; its names are in catalog.TASK_NAMES
APPROVER_FLAG = "roleApprover"


class Releases:
    """`transition` and what each transition's effect writes."""

    def __init__(self, context: StoreContext, reads: Reads, rows: Rows, writes: Writes,
                 guard: Guard) -> None:
        self.context = context
        self.reads = reads
        self.rows = rows
        self.writes = writes
        self.guard = guard

    def transition(self, element: Element, transition: release.Transition,
                   actor_pk: int | None, *, comment: str | None = None) -> Element:
        """Run a release transition (409 when it does not start from the current state);
        a release keeps `comment` as the released version's `releaseComment`."""
        self.guard.refuse_protected_changes([element], actor_pk)
        self.rows.count_writes([element])
        version = self.reads.current_version(element)
        try:
            release.check(transition, version.state if element.versioned else None)
        except release.TransitionNotAllowed as error:
            raise Conflict(str(error)) from None
        stamp = now_timestamp()
        old_state = version.state
        self._set_state(element, version, transition.target)
        if transition.effect is release.Effect.RELEASE:
            self._release(element, version, stamp, actor_pk)
            if comment:
                self.rows.write_attributes(version, {"releaseComment": {NEUTRAL: comment}})
        elif transition.effect is release.Effect.REQUEST_EXPIRY:
            self._open_expiry_task(element, actor_pk)
        elif transition.effect is release.Effect.EXPIRE:
            self.rows.write_attributes(version, {"validUntil": {NEUTRAL: stamp},
                                                 "isReleased": {NEUTRAL: False}})
            self._close_expiry_tasks(element, "accepted")
        elif transition.effect is release.Effect.KEEP_RELEASED:
            self._close_expiry_tasks(element, "declined")
        self.rows.touch(element, version, actor_pk)
        self.context.record([element_change(STATE_CHANGED, element, version.version_id,
                                            transitionId=transition.transition_id,
                                            oldState=old_state, newState=transition.target)])
        return element

    def _set_state(self, element: Element, version: ElementVersion, state: str) -> None:
        version.state = state
        element.state = state
        self.rows.write_attributes(version, {"state1": {NEUTRAL: state}})

    def _release(self, element: Element, version: ElementVersion, stamp: str,
                 actor_pk: int | None) -> None:
        attributes = self.reads.attributes([version.pk])[version.pk]
        current_label = str(attributes.get("version", {}).get(NEUTRAL, release.FIRST_VERSION))
        self.rows.write_attributes(version, {
            "version": {NEUTRAL: release.released_version(current_label)},
            "validFrom": {NEUTRAL: stamp}, "validUntil": {NEUTRAL: OPEN_ENDED},
            "isReleased": {NEUTRAL: True}, "relOn": {NEUTRAL: stamp},
        })
        if actor_pk is not None:
            self.rows.set_links(version, "relBy", [actor_pk])
        for previous in self.reads.versions(element):
            if previous.pk != version.pk and previous.state in (
                    release.RELEASED, release.REQUEST_TO_EXPIRE):
                previous.state = release.EXPIRED
                self.rows.write_attributes(previous, {
                    "state1": {NEUTRAL: release.EXPIRED}, "validUntil": {NEUTRAL: stamp},
                    "isReleased": {NEUTRAL: False}})
        history = self.reads.links([version.pk])[version.pk].get("releaseHistory", [])
        self.rows.set_links(version, "releaseHistory",
                        [link.target_pk for link in history] + [element.pk],
                        [link.target_version_pk for link in history] + [version.pk])

    def _open_expiry_task(self, element: Element, actor_pk: int | None) -> None:
        """An open task asking the approvers to approve the element's expiry, named in
        each culture of its catalog entry after the element."""
        version_pk = current_version_pk(element)
        names = self.reads.names_of([version_pk])[version_pk]
        task_names = {culture: template.format(
                          name=label(names, culture, self.context.tenant.default_culture))
                      for culture, template in catalog.TASK_NAMES[EXPIRY_TASK].items()}
        approvers = [user.id for user in self.reads.users_with_role_flag(APPROVER_FLAG)]
        with self.guard.acting_as_service():  # the caller may not create tasks, the workflow may
            self.writes.create(protected.SERVICE_FACET, ElementInput(
                id=None, version_id=None, type="task", facet=protected.SERVICE_FACET,
                attributes={"name": task_names, "actionType": {NEUTRAL: EXPIRY_TASK},
                            "taskStatus": {NEUTRAL: "open"}},
                related={"subject": [element.id], "assignedTo": approvers},
                children=None, content=None), actor_pk)

    def _close_expiry_tasks(self, element: Element, status: str) -> None:
        open_tasks = self.context.session.scalars(
            select(ElementVersion)
            .join(Element, Element.pk == ElementVersion.element_pk)
            .join(RelatedLink, RelatedLink.version_pk == ElementVersion.pk)
            .where(Element.tenant_pk == self.context.tenant.pk, Element.facet == protected.SERVICE_FACET,
                   Element.type == "task", RelatedLink.context == "subject",
                   RelatedLink.target_pk == element.pk,
                   exists(select(AttributeValue.pk).where(
                       AttributeValue.version_pk == ElementVersion.pk,
                       AttributeValue.name == "taskStatus",
                       AttributeValue.value_text == "open"))))
        for task_version in list(open_tasks):
            task = self.context.session.get_one(Element, task_version.element_pk)
            self.rows.count_writes([task])
            self.rows.write_attributes(task_version, {"taskStatus": {NEUTRAL: status}})
            self.context.record([element_change(UPDATED, task, task_version.version_id,
                                                attributes=["taskStatus"], related=[],
                                                children=False)])
