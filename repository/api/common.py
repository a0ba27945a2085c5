"""What every endpoint shares: what a tenant's request works with (`TenantRequest`, built
by the prelude in repository/api/endpoint.py), the checks of api-version and facet,
query-parameter parsing (by the objects of repository/api/parameters.py), conditional
GET over a cache (`cached_answer`), and the response envelopes. The request's session is
repository/api/session.py's."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Response, current_app, request

from repository import auth, catalog
from repository.api import parameters
from repository.api.parameters import Parameter
from repository.errors import InvalidInput, NotFound, RepositoryError
from repository.http_contract import REVALIDATE
from repository.input_rules import check_text, load_json, parse_integer
from repository.json_provider import json_body
from repository.listing_cache import listing_key
from repository.render_cache import RenderCache
from repository.serialize import DEFAULT_RESOURCES, RESOURCES, Shaping
from repository.store import PageRequest, Store
from repository.store.filters import compile_filter

_ENTITY_TAG = r'(?:W/)?"[\x21\x23-\x7e]*"'
_ENTITY_TAGS = re.compile(rf"{_ENTITY_TAG}(?:[ \t]*,[ \t]*{_ENTITY_TAG})*")
_REVISION_TAG = re.compile(r'(W/)?"([0-9]{1,18})"')
Parsed = TypeVar("Parsed")


@dataclass(frozen=True, slots=True)
class TenantRequest:
    """What an endpoint of a tenant works with, once the request passed its checks
    (repository/api/endpoint.py)."""
    store: Store
    caller: auth.Caller
    base: str  # "/{collectionId}/{storageId}", the root of expandUri values

    @property
    def actor_pk(self) -> int:
        return self.caller.actor_pk


def check_api_version(expected: str) -> None:
    given = request.args.get(parameters.API_VERSION)
    if given is not None and given != expected:
        raise InvalidInput(f"api-version {given!r} is not supported here; use {expected}")


def check_facet(facet: str, view: str | None = None) -> catalog.Facet:
    known = catalog.FACETS.get(facet)
    if known is None:
        raise NotFound(f"Facet {facet!r} not found")
    if view is not None and view not in known.views:
        raise NotFound(f"Facet {facet!r} has no view {view!r}; views: {', '.join(known.views)}")
    return known


def shaping() -> Shaping:
    resources = _list_param(parameters.RESOURCES)
    if resources is not None:
        unknown = sorted(set(resources) - RESOURCES)
        if unknown:
            raise InvalidInput(f"{parameters.RESOURCES.name}: unknown {', '.join(unknown)}; "
                               f"allowed: {', '.join(sorted(RESOURCES))}")
    selected = _list_param(parameters.SELECT)
    return Shaping(
        resources=frozenset(resources) if resources is not None else DEFAULT_RESOURCES,
        select=frozenset(selected) if selected is not None else None,
        expand=frozenset(_list_param(parameters.EXPAND_RELATED) or ()),
    )


def page_request(facet: str, view: str) -> PageRequest:
    """$filter, $page and $pageSize as one listing request."""
    raw_filter = request.args.get(parameters.FILTER.name)
    condition = compile_filter(raw_filter) if raw_filter is not None else None
    return PageRequest(facet, view, condition, int_param(parameters.PAGE),
                       int_param(parameters.PAGE_SIZE))


def page_selection_key() -> str | None:
    return request.args.get(parameters.PAGE_SELECTION_KEY.name) or None


def request_json() -> Any:
    return load_json(request.get_data(cache=False))


def refuse_invalid_text() -> None:
    """A request hook: the text rule (docs/contract.md, "Limits and robustness") on every
    query parameter, path parameter and header, before any endpoint (tenant or not) reads
    one."""
    for name, value in request.args.items(multi=True):
        check_text(name, "A query parameter name")
        check_text(value, f"Query parameter {name}")
    for name, value in (request.view_args or {}).items():
        check_text(value, f"Path parameter {name}")
    for name, value in request.headers.items():
        check_text(value, f"Header {name}")


def cached_listing(req: TenantRequest, build: Callable[[], dict[str, Any]]) -> Response:
    """The answer of this listing request (`cached_answer`) from the listing cache
    (repository/listing_cache.py). Called once every check passed and the query was
    parsed, so a refusal never depends on the cache (`build` may refuse: an unknown
    `$pageSelectionKey`)."""
    tenant = req.store.tenant
    key = listing_key(tenant.collection_id, tenant.storage_id, tenant.default_culture,
                      req.store.reads.content_generation(), request.path,
                      request.args.items(multi=True))
    return cached_answer(key, current_app.extensions["elrepo.listing_cache"],
                         lambda: json_body(build()), "application/json", "X-Listing-Cache")


def cached_answer(key: str, cache: RenderCache, build: Callable[[], bytes], mimetype: str,
                  outcome_header: str) -> Response:
    """The answer a cache `key` names (a `pool_key`, whose digest is its strong ETag): 304
    when If-None-Match names it, without a lookup; else the cached bytes, or `build()`'s,
    kept; 304 still when If-None-Match is `*`, known once there is an answer (`build` may
    refuse). An answer says in `outcome_header` whether it was a hit or a miss, and that
    a client keeps it but asks again each time (a cheap 304)."""
    etag = key.rpartition(":")[2]
    if _names_current(etag):
        return _not_modified(etag)
    body = cache.get(key)
    outcome = "hit"
    if body is None:
        body = build()
        cache.put(key, body)
        outcome = "miss"
    if request.if_none_match.star_tag:  # "any current answer": known once there is one
        return _not_modified(etag)
    response = Response(body, mimetype=mimetype)
    response.set_etag(etag)
    response.headers["Cache-Control"] = REVALIDATE
    response.headers[outcome_header] = outcome
    return response


def _names_current(etag: str) -> bool:
    """Whether If-None-Match names `etag` (weak comparison, RFC 9110 13.1.2)."""
    conditions = request.if_none_match
    return conditions.is_strong(etag) or conditions.is_weak(etag)


def _not_modified(etag: str) -> Response:
    response = Response(status=304)
    response.set_etag(etag)
    return response


def elements_envelope(elements: list[dict[str, Any]]) -> dict[str, Any]:
    return {"count": len(elements), "elements": elements}


def values_envelope(values: list[Any] | dict[str, Any]) -> dict[str, Any]:
    return {"count": len(values), "values": values}


def _list_param(parameter: Parameter) -> list[str] | None:
    raw = request.args.get(parameter.name)
    if raw is None:
        return None
    return [part.strip() for part in raw.split(",") if part.strip()]


def int_param(parameter: Parameter) -> int:
    """An integer query parameter within the bounds and with the default its schema
    declares."""
    name, schema = parameter.name, parameter.schema
    raw = request.args.get(name)
    if raw is None or raw == "":
        return int(schema["default"])
    value = parse_integer(raw, name)
    minimum, maximum = int(schema["minimum"]), int(schema["maximum"])
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{name} must be at least {minimum} and at most {maximum}, "
                           f"got {value}")
    return value


def checked_body(parse: Callable[[Any], Parsed]) -> Callable[[], Parsed]:
    """Read and check the body now, before the request takes the write lock (a slow
    upload or a large body must not hold it). Its refusal is raised only when the result
    is called, after the checks the contract puts first (api-version, token, tenant)."""
    try:
        parsed = parse(request_json())
    except RepositoryError as error:
        refusal = error

        def refuse() -> Parsed:
            raise refusal
        return refuse
    return lambda: parsed


def if_match() -> frozenset[int] | None:
    """The revisions the request's If-Match allows, or None (no header, or `*`: any
    current one, and the element exists). Weak tags never match (strong comparison)."""
    header = request.headers.get(parameters.IF_MATCH.name)
    if header is None or header.strip() == "*":
        return None
    if not _ENTITY_TAGS.fullmatch(header.strip()):
        raise InvalidInput('If-Match must be * or a list of ETags such as "7"')
    return frozenset(int(revision) for weak, revision in _REVISION_TAG.findall(header)
                     if not weak)
