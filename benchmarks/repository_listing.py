"""Listing speed with a large tenant: bulk-insert N elements (default 100,000) into one
tenant, then time listing requests through the Flask app (test client, no network).

    python benchmarks/repository_listing.py [--db URL] [--count 100000]

A database that already holds the benchmark's tenant (from an earlier run with the same
`--db`) is used as it is, with a new token: before/after comparisons then read the same
rows, and the minute of bulk inserting is paid once.

Figures are written up in docs/performance-service.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, insert, select, text
from sqlalchemy.orm import Session

from repository.app import create_app
from repository.auth import create_token
from repository.render_cache import MemoryRenderCache
from repository.store import create_tenant, encode_value, find_tenant
from repository.store.maintenance import optimize
from repository.store.models import AttributeValue, Element, ElementVersion
from repository.store.positions import ListingPositions

BATCH = 10_000
TYPES = ("task", "mainProcess", "subProcess", "evStart", "ruleXor")
COLLECTION, STORAGE = "bench", "big"
BASE = f"/{COLLECTION}/{STORAGE}/_api/rest/facets/processes/views/list/elements"


def populate(session: Session, count: int) -> str:
    """Bulk rows straight into the tables (the store's one-by-one path is for requests)."""
    tenant = create_tenant(session, COLLECTION, STORAGE)
    token = create_token(session, tenant, "viewer")
    first = (session.scalar(select(func.max(Element.pk))) or 0) + 1
    first_version = (session.scalar(select(func.max(ElementVersion.pk))) or 0) + 1
    for start in range(0, count, BATCH):
        numbers = range(start, min(start + BATCH, count))
        elements: list[dict[str, Any]] = []
        versions: list[dict[str, Any]] = []
        attributes: list[dict[str, Any]] = []
        for n in numbers:
            name = f"Process {n:06d}"
            elements.append({"pk": first + n, "tenant_pk": tenant.pk, "id": f"el-{n:06d}",
                             "facet": "processes", "type": TYPES[n % len(TYPES)],
                             "versioned": False, "state": None, "sort_name": name.lower(),
                             "current_version_pk": first_version + n})
            versions.append({"pk": first_version + n, "element_pk": first + n,
                             "version_id": f"v-{n:06d}", "seq": 1, "state": None})
            for attribute, culture, value in (("name", 1033, name),
                                              ("name", 1031, f"Prozess {n:06d}"),
                                              ("priority", 127, n % 10)):
                exact, comparable, number = encode_value(value)
                attributes.append({"version_pk": first_version + n, "name": attribute,
                                   "culture": culture, "value_json": exact,
                                   "value_text": comparable, "value_num": number})
        session.execute(insert(Element), elements)
        session.execute(insert(ElementVersion), versions)
        session.execute(insert(AttributeValue), attributes)
    if session.get_bind().dialect.name == "postgresql":
        # The rows above chose their own pks: the sequences move past them, so the
        # service's own inserts (a token of a later run) get new ones.
        for table in ("elements", "element_versions"):
            session.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'pk'), "
                                 f"(SELECT max(pk) FROM {table}))"))
    session.commit()
    return token


def vacuum(engine: Engine) -> None:
    """PostgreSQL: what autovacuum does after bulk inserts (a server may run without it):
    the visibility map lets a count read the listing index alone."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM (ANALYZE) elements")


def timed(client: Any, token: str, label: str, params: dict[str, str], runs: int = 10,
          before_each: Callable[[], None] = lambda: None) -> None:
    """Best and median of `runs` requests, after one untimed (the statements' first
    compilation, a cold page cache); `before_each` runs before each, untimed."""
    headers = {"Authorization": f"Bearer {token}"}
    client.get(BASE, headers=headers, query_string=params)
    durations = []
    for _ in range(runs):
        before_each()
        start = time.perf_counter()
        response = client.get(BASE, headers=headers, query_string=params)
        durations.append(time.perf_counter() - start)
        assert response.status_code == 200, response.json
    best, median = min(durations), sorted(durations)[len(durations) // 2]
    print(f"{label:<58} {response.json['count']:>4} elements  "
          f"best {best * 1000:7.1f} ms  median {median * 1000:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="SQLAlchemy URL of an empty database (default: a "
                                     "temporary SQLite file)")
    parser.add_argument("--count", type=int, default=100_000)
    args = parser.parse_args()
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
    # No listing cache: its hits would time the cache, not the queries.
    app = create_app({"DATABASE_URL": url, "LISTING_CACHE": MemoryRenderCache(max_bytes=0)})
    start = time.perf_counter()
    with app.extensions["elrepo.sessions"]() as session:
        existing = find_tenant(session, COLLECTION, STORAGE)
        if existing is not None:
            token = create_token(session, existing, "viewer")
            session.commit()
            print(f"using the tenant already in {url}")
        else:
            token = populate(session, args.count)
            optimize(session)  # fresh planner statistics, as maintenance (or autovacuum) gives
            session.commit()
            vacuum(app.extensions["elrepo.engine"])
            print(f"inserted {args.count} elements in {time.perf_counter() - start:.1f} s "
                  f"({url})")
        elements = session.scalar(select(func.count()).select_from(Element).where(
            Element.id.like("el-%"))) or 1
    deep = min(87_654, elements - 1)  # the element 87,654 of 100,000, or the last
    client = app.test_client()
    timed(client, token, "first page (100)", {})
    timed(client, token, "page 500 (100)", {"$page": "500"})
    timed(client, token, f"$pageSelectionKey of element {deep:,}",
          {"$pageSelectionKey": f"el-{deep:06d}"})
    if "elrepo.listing_positions" in app.extensions:
        def forget_milestones() -> None:  # as after a write in the tenant
            app.extensions["elrepo.listing_positions"] = ListingPositions()

        timed(client, token, "  the same, first after a write (milestones read)",
              {"$pageSelectionKey": f"el-{deep:06d}"}, before_each=forget_milestones)
        timed(client, token, "  page 500, first after a write (milestones read)",
              {"$page": "500"}, before_each=forget_milestones)
    if elements > 94_242:
        timed(client, token, "$pageSelectionKey of the last of contains(name, '4242')",
              {"$pageSelectionKey": "el-094242", "$filter": "contains(name, '4242')",
               "$pageSize": "5"})
    timed(client, token, "filter type eq 'mainProcess' (first page)",
          {"$filter": "type eq 'mainProcess'"})
    timed(client, token, "filter name -eq 'Process 042000'",
          {"$filter": "name -eq 'Process 042000'"})
    timed(client, token, "filter contains(name, '4242') (whole-tenant scan)",
          {"$filter": "contains(name, '4242')"})
    timed(client, token, "filter priority ge 9 and type eq 'task' (first page)",
          {"$filter": "priority ge 9 and type eq 'task'"})


if __name__ == "__main__":
    main()
