"""The Flask application factory: configuration, database, caches, render pool,
blueprints, error envelopes.

Every response that is not a success carries the contract's error envelope; a request
commits its one transaction only when it answers below 400 (repository/api/session.py).
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import replace
from typing import Any

import sqlalchemy.exc
from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from repository.api import openapi_doc
from repository.api.common import refuse_invalid_text
from repository.api.registry import RESOURCES
from repository.api.session import register_session_life
from repository.errors import RepositoryError, ServiceUnavailable, TooManyRequests
from repository.front_door import register_front_door
from repository.http_contract import MAX_BODY_BYTES, RENDER_BLUEPRINT, RENDER_PATH_PART, error_body
from repository.json_provider import OrjsonProvider
from repository.listing_cache import make_listing_cache
from repository.render_cache import DEFAULT_NAMESPACE, make_render_cache
from repository.render_pool import RenderPool
from repository.render_refusals import make_timed_out_renders
from repository.settings import Settings
from repository.store.db import RETRY_AFTER_SECONDS, create_schema, make_engine, session_factory
from repository.store.positions import ListingPositions
from repository.viewer import register_viewer
from repository.webhooks.feed_source import FEED_SOURCE
from repository.webhooks.source import EVENT_SOURCE

_log = logging.getLogger(__name__)


#: app config key → the `Settings` field it overrides (tests, and one-off apps).
CONFIG_SETTINGS = {"DATABASE_URL": "database_url", "REDIS_URL": "redis_url",
                   "STATEMENT_TIMEOUT": "statement_timeout", "DB_POOL_SIZE": "db_pool_size",
                   "RENDER_TIMEOUT": "render_timeout", "SERVICE_TOKEN": "service_token",
                   "EVENT_RETENTION_DAYS": "event_retention_days"}


def create_app(config: dict[str, Any] | None = None, settings: Settings | None = None) -> Flask:
    """An app on `settings` (None: read from the environment, once, here;
    repository/settings.py), each overridden by its `config` key where one is given
    (CONFIG_SETTINGS: DATABASE_URL, REDIS_URL, STATEMENT_TIMEOUT, DB_POOL_SIZE,
    RENDER_TIMEOUT, SERVICE_TOKEN, EVENT_RETENTION_DAYS). `config`
    may also set ENGINE_OPTIONS (keyword arguments of sqlalchemy.create_engine),
    RENDER_CACHE_NAMESPACE or RENDER_CACHE, a ready `RenderCache` (tests); the listing
    cache lives beside it (LISTING_CACHE, a ready one), and the listing milestones
    (LISTING_POSITIONS, a ready `ListingPositions`; repository/store/positions.py);
    EVENT_SOURCE, what webhooks read of the change feed (repository/webhooks/source.py;
    tests). The app owns its render pool
    (repository/render_pool.py; RENDER_POOL, a ready one its giver stops), whose
    deadline is `config["RENDER_TIMEOUT"]` from then on."""
    app = Flask(__name__)
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES)
    app.config.update(config or {})
    settings = replace(settings or Settings.from_environment(), **{
        field_name: app.config[key] for key, field_name in CONFIG_SETTINGS.items()
        if app.config.get(key) is not None})
    app.config["RENDER_TIMEOUT"] = settings.render_timeout
    app.extensions["elrepo.settings"] = settings
    app.json = OrjsonProvider(app)
    cache_url = settings.redis_url
    namespace = app.config.get("RENDER_CACHE_NAMESPACE", DEFAULT_NAMESPACE)
    cache = app.config.get("RENDER_CACHE")
    if cache is None:  # not `or`: an empty cache is falsy
        cache = make_render_cache(cache_url, namespace)
    listing_cache = app.config.get("LISTING_CACHE")
    if listing_cache is None:
        listing_cache = make_listing_cache(cache_url, namespace)
    engine = make_engine(settings.database_url, statement_timeout=settings.statement_timeout,
                         **{"pool_size": settings.db_pool_size, **app.config.get("ENGINE_OPTIONS", {})})
    create_schema(engine)
    app.extensions["elrepo.engine"] = engine
    app.extensions["elrepo.sessions"] = session_factory(engine)
    app.extensions["elrepo.render_cache"] = cache
    app.extensions["elrepo.listing_cache"] = listing_cache
    app.extensions["elrepo.timed_out_renders"] = make_timed_out_renders(
        cache_url, namespace, app.config.get("RUN_DIRECTORY"))
    app.extensions["elrepo.listing_positions"] = app.config.get("LISTING_POSITIONS",
                                                                ListingPositions())
    app.extensions["elrepo.render_pool"] = _render_pool(app)
    # What webhooks read of the change feed: the feed's own; tests may give another.
    app.extensions[EVENT_SOURCE] = app.config.get("EVENT_SOURCE", FEED_SOURCE)
    app.url_map.strict_slashes = False
    # A `//` in a path is a plain 404: merging it would answer a redirect whose Location
    # is built from the Host header (docs/contract.md, "Limits and robustness").
    app.url_map.merge_slashes = False
    _register_blueprints(app)
    app.before_request(refuse_invalid_text)
    register_session_life(app, error_response)
    _register_error_handlers(app)
    register_front_door(app, settings.service_token)
    return app


def _render_pool(app: Flask) -> RenderPool:
    """RENDER_POOL, a ready pool its giver stops (tests share one), else the app's own,
    whose render processes stop when the app is collected or the interpreter exits
    (they leave by themselves once their worker's ends close, but only once loaded)."""
    given: RenderPool | None = app.config.get("RENDER_POOL")
    if given is not None:
        return given
    pool = RenderPool()
    weakref.finalize(app, pool.close)
    return pool


def _register_blueprints(app: Flask) -> None:
    for resource in RESOURCES:
        app.register_blueprint(resource.blueprint)
    app.register_blueprint(openapi_doc.blueprint)
    register_viewer(app)


def error_response(status: int, result_type: str, message: str,
                   details: list[str] | None = None) -> Response:
    """`error_body` as the response to the current request."""
    response = jsonify(error_body(status, result_type, message, details,
                                  render=_is_render_request()))
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="elrepo"'
    return response


def _is_render_request() -> bool:
    """By blueprint, or by path when routing failed (405 on a render URL)."""
    return request.blueprint == RENDER_BLUEPRINT or RENDER_PATH_PART in request.path


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(RepositoryError)
    def repository_error(error: RepositoryError) -> Response:
        response = error_response(error.status, error.result_type, error.message, error.details)
        if isinstance(error, (ServiceUnavailable, TooManyRequests)):
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.errorhandler(sqlalchemy.exc.TimeoutError)
    def no_database_connection(_error: sqlalchemy.exc.TimeoutError) -> Response:
        # A worker has more request threads than pooled connections: a wait past the
        # pool's timeout is load, not a fault.
        return repository_error(ServiceUnavailable(
            "Every database connection is in use; nothing was written, try again",
            retry_after=RETRY_AFTER_SECONDS))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        status = error.code or 500
        messages = {
            404: "Not found",
            # The server layer's body refusals (repository/server.py) say which rule.
            408: str(error.description),
            503: str(error.description),
            405: f"Method {request.method} is not allowed here",
            413: f"The body is larger than {MAX_BODY_BYTES // (1024 * 1024)} MiB",
        }
        message = messages.get(status, error.name)
        response = error_response(status, "critical" if status >= 500 else "error", message)
        if isinstance(error, MethodNotAllowed) and error.valid_methods:
            response.headers["Allow"] = ", ".join(error.valid_methods)  # RFC 9110 15.5.6
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, int):
            response.headers["Retry-After"] = str(retry_after)
        return response

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception) -> Response:
        _log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "critical", "Internal error; nothing was written",
                              ["internal error"])
