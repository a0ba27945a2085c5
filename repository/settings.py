"""The service's settings: each read once, from the command line, an app's config or the
environment, into one `Settings` that is then passed in. No other module of the service
reads the environment for them (docs/architecture.md). Light on purpose: `elrepo serve
--help` reads the names and defaults here without loading SQLAlchemy or Flask.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

DATABASE_URL_ENV = "ELREPO_DATABASE_URL"
DEFAULT_DATABASE_URL = "sqlite:///elrepo.db"
REDIS_URL_ENV = "ELREPO_REDIS_URL"
STATEMENT_TIMEOUT_ENV = "ELREPO_STATEMENT_TIMEOUT"
# Far above the longest statement of a legitimate request (a 5,000-shape content create
# takes ~1.4 s on PostgreSQL, all its statements together), far below a client's patience.
DEFAULT_STATEMENT_TIMEOUT_SECONDS = 15.0
DB_POOL_SIZE_ENV = "ELREPO_DB_POOL_SIZE"
# PostgreSQL connections per worker process, and how many more at peaks: four
# `elrepo serve` of two workers hold at most 4 x 2 x (8 + 2) = 80 of PostgreSQL's
# default max_connections of 100, leaving 20 for the command line and administration.
DEFAULT_POOL_SIZE = 8
POOL_OVERFLOW = 2
RENDER_TIMEOUT_ENV = "ELREPO_RENDER_TIMEOUT"
DEFAULT_RENDER_TIMEOUT_SECONDS = 10.0
SERVICE_TOKEN_ENV = "ELREPO_SERVICE_AUTH_TOKEN"
EVENT_RETENTION_ENV = "ELREPO_EVENT_RETENTION_DAYS"
# How long the change feed keeps an event (docs/events.md): pool maintenance removes older.
DEFAULT_EVENT_RETENTION_DAYS = 30.0

Number = TypeVar("Number", int, float)


@dataclass(frozen=True, slots=True)
class Settings:
    """What an app needs from its surroundings. `redis_url` None: in-memory caches per
    process; `service_token` None: maintenance answers 401 to everyone."""

    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str | None = None
    statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT_SECONDS
    db_pool_size: int = DEFAULT_POOL_SIZE
    render_timeout: float = DEFAULT_RENDER_TIMEOUT_SECONDS
    service_token: str | None = field(default=None, repr=False)
    event_retention_days: float = DEFAULT_EVENT_RETENTION_DAYS

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Each setting from its ELREPO_ variable, else its default. ValueError, naming
        the variable, for a number that is not positive."""
        env = os.environ if environ is None else environ
        return cls(
            database_url=database_url(None, env), redis_url=redis_url(None, env),
            statement_timeout=positive_setting(env, STATEMENT_TIMEOUT_ENV, float,
                                               DEFAULT_STATEMENT_TIMEOUT_SECONDS),
            db_pool_size=positive_setting(env, DB_POOL_SIZE_ENV, int, DEFAULT_POOL_SIZE),
            render_timeout=positive_setting(env, RENDER_TIMEOUT_ENV, float,
                                            DEFAULT_RENDER_TIMEOUT_SECONDS),
            service_token=env.get(SERVICE_TOKEN_ENV) or None,
            event_retention_days=positive_setting(env, EVENT_RETENTION_ENV, float,
                                                  DEFAULT_EVENT_RETENTION_DAYS))


def database_url(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """`--db` wins, then ELREPO_DATABASE_URL, then ./elrepo.db."""
    return explicit or (os.environ if environ is None else environ).get(DATABASE_URL_ENV) \
        or DEFAULT_DATABASE_URL


def redis_url(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """`--redis` wins, then ELREPO_REDIS_URL; None means the in-memory caches."""
    return explicit or (os.environ if environ is None else environ).get(REDIS_URL_ENV) or None


def positive_setting(environ: Mapping[str, str], name: str, kind: Callable[[str], Number],
                     default: Number) -> Number:
    text = environ.get(name)
    if text is None:
        return default
    refusal = ValueError(f"{name} must be a positive number, not {text!r}")
    try:
        value = kind(text)
    except ValueError:
        raise refusal from None
    if not (math.isfinite(value) and value > 0):
        raise refusal
    return value
