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
from typing import TypedDict, TypeVar

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
# Webhook deliveries (repository/webhooks/, docs/events.md, "Webhooks").
WEBHOOKS_ALLOW_PRIVATE_ENV = "ELREPO_WEBHOOKS_ALLOW_PRIVATE"
WEBHOOK_RETRY_FOR_ENV = "ELREPO_WEBHOOK_RETRY_FOR"
WEBHOOK_BACKOFF_FIRST_ENV = "ELREPO_WEBHOOK_BACKOFF_FIRST"
WEBHOOK_BACKOFF_MAX_ENV = "ELREPO_WEBHOOK_BACKOFF_MAX"
DAY_SECONDS = 24 * 3600.0
# Retries after 5 s, 10 s, 20 s ... one hour at most between two: a receiver back after a
# restart gets its events within seconds, one down for hours is asked hourly.
DEFAULT_WEBHOOK_BACKOFF_FIRST_SECONDS = 5.0
DEFAULT_WEBHOOK_BACKOFF_MAX_SECONDS = 3600.0
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
    # Webhooks: deliver to private, loopback and link-local addresses too; how long an
    # event is retried (and an endpoint may fail) before it is given up (and disabled);
    # the first retry's delay and the longest between two.
    webhooks_allow_private: bool = False
    webhook_retry_for: float = DAY_SECONDS
    webhook_backoff_first: float = DEFAULT_WEBHOOK_BACKOFF_FIRST_SECONDS
    webhook_backoff_max: float = DEFAULT_WEBHOOK_BACKOFF_MAX_SECONDS
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
                                                  DEFAULT_EVENT_RETENTION_DAYS),
            **webhook_settings(env))


class WebhookSettings(TypedDict):
    webhooks_allow_private: bool
    webhook_retry_for: float
    webhook_backoff_first: float
    webhook_backoff_max: float


def webhook_settings(environ: Mapping[str, str]) -> WebhookSettings:
    """The webhooks' fields of `Settings` from their variables (ValueError naming a bad
    one); `elrepo serve` reads them so too."""
    return {
        "webhooks_allow_private": allows_private_webhooks(environ),
        "webhook_retry_for": positive_setting(environ, WEBHOOK_RETRY_FOR_ENV, float,
                                              DAY_SECONDS),
        "webhook_backoff_first": positive_setting(environ, WEBHOOK_BACKOFF_FIRST_ENV, float,
                                                  DEFAULT_WEBHOOK_BACKOFF_FIRST_SECONDS),
        "webhook_backoff_max": positive_setting(environ, WEBHOOK_BACKOFF_MAX_ENV, float,
                                                DEFAULT_WEBHOOK_BACKOFF_MAX_SECONDS)}


def database_url(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """`--db` wins, then ELREPO_DATABASE_URL, then ./elrepo.db."""
    return explicit or (os.environ if environ is None else environ).get(DATABASE_URL_ENV) \
        or DEFAULT_DATABASE_URL


def redis_url(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """`--redis` wins, then ELREPO_REDIS_URL; None means the in-memory caches."""
    return explicit or (os.environ if environ is None else environ).get(REDIS_URL_ENV) or None


def allows_private_webhooks(environ: Mapping[str, str] | None = None) -> bool:
    """ELREPO_WEBHOOKS_ALLOW_PRIVATE: 1 (or true, yes) lets webhooks reach private and
    loopback addresses; unset, empty, 0 (or false, no): refused. ValueError otherwise."""
    text = (os.environ if environ is None else environ).get(WEBHOOKS_ALLOW_PRIVATE_ENV, "")
    choice = {"1": True, "true": True, "yes": True, "": False, "0": False, "false": False,
              "no": False}.get(text.strip().lower())
    if choice is None:
        raise ValueError(f"{WEBHOOKS_ALLOW_PRIVATE_ENV} must be 1 or 0, not {text!r}")
    return choice


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
