"""Who may write the elements the audit trail and the release workflow rest on
(`repository.protected`): one check in the write layer, which every write goes through
(update, create, content create, release transitions; the web layer, the command line
and the demo loader alike), before anything is written.

The acting token's role is looked up only when a write reaches a protected element, so
other writes cost nothing more: the service facet is on the element (or the create's
facet) already, and only a change to a user looks up whether it is an audit actor.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy import select

from repository import protected
from repository.store.base import StoreContext
from repository.store.batch import chunked_rows
from repository.store.models import Element, RelatedLink, Token


class Guard:
    """`refuse_protected_creates` and `refuse_protected_changes`, for the write parts;
    `acting_as_service` for the writes the service makes on its own behalf."""

    def __init__(self, context: StoreContext) -> None:
        self.context = context
        self._as_service = False

    @contextmanager
    def acting_as_service(self) -> Iterator[None]:
        """Writes inside are the service's own, whoever's request caused them (the release
        workflow opening an "Approve expiry" task for an editor's expiry request)."""
        before, self._as_service = self._as_service, True
        try:
            yield
        finally:
            self._as_service = before

    def refuse_protected_creates(self, facets: Iterable[str], actor_pk: int | None) -> None:
        """403 unless the actor may create elements in the service facet, if one is asked."""
        if protected.SERVICE_FACET in facets:
            self._require_authority(actor_pk, f"An element of facet {protected.SERVICE_FACET!r}")

    def refuse_protected_changes(self, elements: Sequence[Element],
                                 actor_pk: int | None) -> None:
        """403 unless the actor may change protected elements, if one of these is."""
        if self._as_service or actor_pk is None:
            return
        refused = next((e for e in elements if e.facet == protected.SERVICE_FACET), None)
        if refused is None:
            refused = next(iter(self._audit_actors(
                [e for e in elements if e.type in protected.ACTOR_TYPES])), None)
        if refused is not None:
            self._require_authority(actor_pk, f"Element {refused.id!r} ({refused.type})")

    def _audit_actors(self, elements: Sequence[Element]) -> list[Element]:
        """Those of `elements` that an audit link names, in their order."""
        if not elements:
            return []
        query = select(RelatedLink.target_pk).where(
            RelatedLink.context.in_(sorted(protected.AUDIT_CONTEXTS))).distinct()
        named = {pk for (pk,) in chunked_rows(self.context.session, query, RelatedLink.target_pk,
                                              [element.pk for element in elements])}
        return [element for element in elements if element.pk in named]

    def _require_authority(self, actor_pk: int | None, what: str) -> None:
        if self._as_service or actor_pk is None:
            return
        roles = frozenset(self.context.session.scalars(select(Token.role).where(
            Token.tenant_pk == self.context.tenant.pk, Token.element_pk == actor_pk)))
        if not protected.may_write_protected(roles):
            raise protected.refusal(what, ", ".join(sorted(roles)) or "none")
