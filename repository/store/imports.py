"""Writing a model brought from outside (a BPMN file) whose element ids are stable, so
that importing it again changes the same elements: create what is new, merge into what
exists, and give a diagram its content again (docs/interchange.md).

The same write methods as the endpoints (`Writes.create_all`, `update_many`,
`append_content`), so imported elements get the same versions, states and server-set
attributes as any other. The caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace

from sqlalchemy import select

from repository.store import Store
from repository.store.base import current_version_pk
from repository.store.batch import chunked_rows
from repository.store.models import Element
from repository.wire import AttributeMap, ContentItem, ElementInput


def existing_elements(store: Store, element_ids: Iterable[str]) -> dict[str, Element]:
    """The tenant's elements of these ids that exist, by id."""
    query = select(Element).where(Element.tenant_pk == store.tenant.pk)
    return {element.id: element for (element,) in chunked_rows(store.session, query, Element.id, element_ids)}


def upsert_elements(store: Store, inputs: Sequence[tuple[str, ElementInput]],
                    actor_pk: int | None, owned: Collection[str] = ()) -> dict[str, Element]:
    """Each (facet, input) with an id: created when no element has that id, else merged
    into it (`update_many`: attributes merged, the given related contexts, children and
    content replaced; a type that changed is refused). The `owned` attributes are the
    import's alone: what an element holds of them and the input does not give is removed
    (a timer taken out of the file is gone after the next import). New ones first, in
    bulk, so that an update may name them as children. Returns every element by id."""
    ids = [data.id for _, data in inputs]
    if None in ids:
        raise ValueError("every imported element needs its id")
    found = existing_elements(store, [element_id for element_id in ids if element_id is not None])
    created = store.writes.create_all([(facet, data) for facet, data in inputs if data.id not in found], actor_pk)
    updated = [(found[data.id], data) for _, data in inputs if data.id in found]
    stored = store.reads.attributes([current_version_pk(element) for element, _ in updated]) if owned else {}
    store.writes.update_many([(element, replace(data, id=None, facet=None, attributes=_replacing(
        stored.get(current_version_pk(element), {}), data.attributes, owned))) for element, data in updated],
        actor_pk)
    return {**found, **{element.id: element for element in created}}


def _replacing(stored: AttributeMap, given: AttributeMap, owned: Collection[str]) -> AttributeMap:
    """`given`, and every value of `stored` under an `owned` name that `given` lacks set to
    None (removed)."""
    removed = {name: {culture: None for culture in per_culture if culture not in given.get(name, {})}
               for name, per_culture in stored.items() if name in owned}
    return {name: {**removed.get(name, {}), **given.get(name, {})} for name in {**removed, **given}}


def set_content(store: Store, diagram: Element, items: Sequence[ContentItem], actor_pk: int | None) -> None:
    """The diagram shows exactly `items` (elements by id, predecessors by index): its old
    shapes dropped, the new ones appended as content create does."""
    if store.reads.shapes(store.reads.current_version(diagram)):
        store.writes.update(diagram, ElementInput(id=None, version_id=None, type=None, facet=None, attributes={},
                                                  related=None, children=None, content=[]), actor_pk)
    store.writes.append_content(diagram, items, actor_pk)
