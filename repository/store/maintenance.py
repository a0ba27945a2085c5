"""Pool maintenance (seed endpoint 17): one pool per tenant, id `<collection>.<storage>`.

Per pool: drop stale caches (recompute the denormalized listing columns `state` and
`sort_name` from the version records, which is a write to the tenant's elements and so
bumps its content generation, and drop the pool's render and listing cache entries),
remove change feed events past their retention (docs/events.md), check integrity
(database check plus the links of the tenant staying inside the tenant),
and refresh the query planner's statistics (`ANALYZE`), creating the text-search index
first if the database lacked the means for it when its schema was made
(`repository.store.db.create_text_search`). A pool succeeds when the integrity check
finds nothing wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import and_, func, select, text, update
from sqlalchemy.orm import Session, aliased

from repository.render_cache import RenderCache
from repository.store.changes import trim_changes
from repository.store.db import create_text_search, qualified_name
from repository.store.generation import bump_content_generation
from repository.store.idempotency import purge_expired
from repository.store.models import (
    AttributeValue,
    Base,
    Child,
    Element,
    ElementVersion,
    RelatedLink,
    Shape,
    Tenant,
)
from repository.store.values import sort_key

BATCH = 1000
_log = logging.getLogger(__name__)


def pool_id(tenant: Tenant) -> str:
    return f"{tenant.collection_id}.{tenant.storage_id}"


def maintain_pool(session: Session, tenant: Tenant, caches: Sequence[RenderCache],
                  event_retention_days: float) -> bool:
    """`caches`: the render and listing caches, whose entries of the pool are dropped;
    change feed events older than `event_retention_days` are removed."""
    refresh_caches(session, tenant)
    purge_expired(session, tenant.pk)  # Idempotency-Key answers older than a day
    # After refresh_caches: its content generation lock first, as every writer takes it.
    trimmed = trim_changes(session, tenant.pk, event_retention_days)
    _log.info("maintenance %s: removed %d change event(s)", pool_id(tenant), trimmed)
    for cache in caches:
        drop_entries(cache, tenant)
    healthy = database_ok(session) and tenant_consistent(session, tenant)
    optimize(session)
    return healthy


def refresh_caches(session: Session, tenant: Tenant) -> None:
    # A listing answer cached before the refresh must not answer after it.
    bump_content_generation(session, tenant.pk)
    newest_state = (select(ElementVersion.state)
                    .where(ElementVersion.pk == Element.current_version_pk)
                    .scalar_subquery())
    session.execute(update(Element).where(Element.tenant_pk == tenant.pk)
                    .values(state=newest_state).execution_options(synchronize_session=False))
    last_pk = 0
    while True:
        rows = session.execute(
            select(Element.pk, Element.current_version_pk)
            .where(Element.tenant_pk == tenant.pk, Element.pk > last_pk)
            .order_by(Element.pk).limit(BATCH)).all()
        if not rows:
            break
        names: dict[int | None, dict[int, str]] = {}
        for version_pk, culture, value in session.execute(
                select(AttributeValue.version_pk, AttributeValue.culture,
                       AttributeValue.value_text)
                .where(AttributeValue.version_pk.in_([v for _, v in rows]),
                       AttributeValue.name == "name")):
            names.setdefault(version_pk, {})[culture] = value
        session.execute(update(Element), [
            {"pk": element_pk, "sort_name": sort_key(names.get(current_pk, {}),
                                                     tenant.default_culture)}
            for element_pk, current_pk in rows])
        last_pk = rows[-1][0]
    session.flush()


def drop_entries(cache: RenderCache, tenant: Tenant) -> None:
    """Render and listing entries are keyed by content and never go stale; dropping them
    frees the memory of answers about data that has changed since. An in-memory cache is
    the calling worker's own; a Redis cache is every worker's."""
    dropped = cache.clear(pool_id(tenant))
    _log.info("maintenance %s: dropped %d cached answer(s)", pool_id(tenant), dropped)


def database_ok(session: Session) -> bool:
    if session.get_bind().dialect.name == "sqlite":
        return session.execute(text("PRAGMA quick_check")).scalar() == "ok"
    return session.execute(text("SELECT 1")).scalar() == 1


def tenant_consistent(session: Session, tenant: Tenant) -> bool:
    """No dangling newest-version pointer and no link, child or shape leaving the tenant."""
    source = aliased(Element)
    target = aliased(Element)
    mine = Element.tenant_pk == tenant.pk
    problems = [
        select(func.count()).select_from(Element).outerjoin(
            ElementVersion, and_(ElementVersion.pk == Element.current_version_pk,
                                 ElementVersion.element_pk == Element.pk))
        .where(mine, ElementVersion.pk.is_(None)),
        select(func.count()).select_from(RelatedLink)
        .join(ElementVersion, ElementVersion.pk == RelatedLink.version_pk)
        .join(source, source.pk == ElementVersion.element_pk)
        .join(target, target.pk == RelatedLink.target_pk)
        .where(source.tenant_pk == tenant.pk, target.tenant_pk != tenant.pk),
        select(func.count()).select_from(Child)
        .join(source, source.pk == Child.parent_pk).join(target, target.pk == Child.child_pk)
        .where(source.tenant_pk == tenant.pk, target.tenant_pk != tenant.pk),
        select(func.count()).select_from(Shape)
        .join(source, source.pk == Shape.diagram_pk).join(target, target.pk == Shape.element_pk)
        .where(source.tenant_pk == tenant.pk, target.tenant_pk != tenant.pk),
    ]
    return all(session.execute(query).scalar() == 0 for query in problems)


def optimize(session: Session) -> None:
    create_text_search(session.connection())
    # SQLite's `PRAGMA optimize` analyzes only tables its own connection has queried, so
    # on maintenance's fresh connection it did nothing: without statistics on `elements`
    # the planner walked the whole listing index for a one-element `$filter`.
    if session.get_bind().dialect.name == "sqlite":
        session.execute(text("ANALYZE"))
    else:  # our tables by name: the database may hold other schemas' tables too
        connection = session.connection()
        names = [qualified_name(connection, table) for table in Base.metadata.sorted_tables]
        session.execute(text(f"ANALYZE {', '.join(names)}"))
