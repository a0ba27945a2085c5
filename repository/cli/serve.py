"""`elrepo serve`: checks what it can before anything starts (port, deadlines, render
cache, the database's schema), loads the demo into an empty database, then runs gunicorn."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import TYPE_CHECKING

from repository.cli.common import (
    CommandError,
    Subcommands,
    add_command,
    db_option,
    positive_number,
    session_on,
    with_db,
)
from repository.settings import (
    DB_POOL_SIZE_ENV,
    DEFAULT_EVENT_RETENTION_DAYS,
    DEFAULT_POOL_SIZE,
    DEFAULT_RENDER_TIMEOUT_SECONDS,
    DEFAULT_STATEMENT_TIMEOUT_SECONDS,
    EVENT_RETENTION_ENV,
    POOL_OVERFLOW,
    RENDER_TIMEOUT_ENV,
    SERVICE_TOKEN_ENV,
    STATEMENT_TIMEOUT_ENV,
    WEBHOOKS_ALLOW_PRIVATE_ENV,
    Settings,
    database_url,
    redis_url,
    webhook_settings,
)

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

HEADER_TIMEOUT_ENV = "ELREPO_HEADER_TIMEOUT"
DEFAULT_HEADER_TIMEOUT = 10.0
BODY_MIN_RATE_ENV = "ELREPO_BODY_MIN_RATE"
DEFAULT_BODY_MIN_RATE = 16 * 1024.0  # repository.server's, without importing gunicorn here


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    serve = add_command(commands, "serve", "run the REST service (gunicorn) and the viewer "
                        "at /ui/; an empty database gets the schema and the demo tenant")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on")
    db_option(serve)
    serve.add_argument("--no-demo", action="store_true",
                       help="do not load the demo tenant on an empty database")
    serve.add_argument("--workers", type=int, default=2,
                       help="worker processes, each with a pool of request threads")
    serve.add_argument("--render-timeout", metavar="SECONDS",
                       help=f"deadline of one render, past it 503 (default: "
                            f"{RENDER_TIMEOUT_ENV}, else {DEFAULT_RENDER_TIMEOUT_SECONDS:g})")
    serve.add_argument("--header-timeout", metavar="SECONDS",
                       help=f"time a client has to send a request's line and headers, past "
                            f"it 408 (default: {HEADER_TIMEOUT_ENV}, else "
                            f"{DEFAULT_HEADER_TIMEOUT:g})")
    serve.add_argument("--body-min-rate", metavar="BYTES_PER_SECOND",
                       help=f"slowest average a request body may arrive at, after the "
                            f"header timeout as grace; slower: 408 (default: "
                            f"{BODY_MIN_RATE_ENV}, else {DEFAULT_BODY_MIN_RATE:g})")
    serve.add_argument("--statement-timeout", metavar="SECONDS",
                       help=f"deadline of one database statement, past it 503 (default: "
                            f"{STATEMENT_TIMEOUT_ENV}, else "
                            f"{DEFAULT_STATEMENT_TIMEOUT_SECONDS:g})")
    serve.add_argument("--db-pool-size", metavar="N",
                       help=f"PostgreSQL connections per worker, plus {POOL_OVERFLOW} at peaks "
                            f"(default: {DB_POOL_SIZE_ENV}, else {DEFAULT_POOL_SIZE}: four "
                            f"servers of two workers stay under PostgreSQL's default 100)")
    serve.add_argument("--event-retention", metavar="DAYS",
                       help=f"how long the change feed keeps an event; pool maintenance "
                            f"removes older ones (default: {EVENT_RETENTION_ENV}, else "
                            f"{DEFAULT_EVENT_RETENTION_DAYS:g})")
    serve.add_argument("--redis", metavar="URL",
                       help="share rendered diagrams through Redis, e.g. "
                            "redis://127.0.0.1:6379/0; needs pip install -e '.[redis]' "
                            "(default: ELREPO_REDIS_URL, else an in-memory cache per worker)")
    serve.add_argument("--webhooks-allow-private", action="store_true",
                       help=f"let webhooks deliver to private, loopback and link-local "
                            f"addresses (default: {WEBHOOKS_ALLOW_PRIVATE_ENV}=1 does too, "
                            f"else refused)")
    serve.set_defaults(command=_serve)


def _serve(args: argparse.Namespace) -> int:
    from repository.demo import create_role_tokens, is_empty, load_demo
    from repository.server import run

    header_timeout = _seconds(args.header_timeout, "--header-timeout", HEADER_TIMEOUT_ENV,
                              DEFAULT_HEADER_TIMEOUT)
    body_min_rate = _positive(args.body_min_rate, "--body-min-rate", BODY_MIN_RATE_ENV,
                              DEFAULT_BODY_MIN_RATE, "bytes per second")
    try:
        webhooks = webhook_settings(os.environ)
    except ValueError as error:
        raise CommandError(str(error)) from None
    if args.webhooks_allow_private:
        webhooks["webhooks_allow_private"] = True
    # Every worker's app gets these, read here once (repository/settings.py).
    settings = Settings(
        database_url=database_url(args.db), redis_url=redis_url(args.redis),
        statement_timeout=_seconds(args.statement_timeout, "--statement-timeout",
                                   STATEMENT_TIMEOUT_ENV, DEFAULT_STATEMENT_TIMEOUT_SECONDS),
        db_pool_size=_count(args.db_pool_size, "--db-pool-size", DB_POOL_SIZE_ENV,
                            DEFAULT_POOL_SIZE),
        render_timeout=_seconds(args.render_timeout, "--render-timeout", RENDER_TIMEOUT_ENV,
                                DEFAULT_RENDER_TIMEOUT_SECONDS),
        service_token=_service_token(),
        event_retention_days=_positive(args.event_retention, "--event-retention",
                                       EVENT_RETENTION_ENV, DEFAULT_EVENT_RETENTION_DAYS,
                                       "days"), **webhooks)
    with _listen(args.host, args.port) as listener:
        port = listener.getsockname()[1]  # --port 0: the free port the system chose
        cache_note = _check_render_cache(settings.redis_url)
        # the schema lock: another server starting now loads no second demo
        with session_on(args.db, schema_lock=True) as session:
            empty = is_empty(session)
            if empty and not args.no_demo:
                tenant = load_demo(session)
                token = create_role_tokens(session, tenant)["editor"]
                print("Loaded the demo tenant demo/default. Demo editor token (tokens for the "
                      f"other roles: elrepo token create demo default --role ROLE"
                      f"{with_db(args.db)}):", file=sys.stderr)
                print(token, flush=True)
                print(f"Viewer: {_viewer_url(args.host, port)} (sign in with the token)",
                      file=sys.stderr)
            else:
                _say_how_to_sign_in(session, empty, args.db, _viewer_url(args.host, port))
        print(cache_note, file=sys.stderr)
        run(settings=settings, listener=listener, workers=args.workers,
            header_timeout=header_timeout, body_min_rate=body_min_rate)
    return 0


def _say_how_to_sign_in(session: Session, empty: bool, db: str | None, viewer_url: str) -> None:
    """What a start that loads no demo says: the command that makes a token, paste-ready
    with the demo's names when the demo tenant is there (a restart of a first start)."""
    from repository.demo import DEMO_COLLECTION, DEMO_STORAGE
    from repository.store import find_tenant

    if empty:
        print(f"Empty database, no demo loaded (--no-demo). A tenant:\n  elrepo tenant create "
              f"COLLECTION STORAGE{with_db(db)}\nThen a token for it:", file=sys.stderr)
    else:
        print("Serving the data already in the database; earlier tokens stay valid. A new "
              "token:", file=sys.stderr)
    if not empty and find_tenant(session, DEMO_COLLECTION, DEMO_STORAGE) is not None:
        print(f"  elrepo token create {DEMO_COLLECTION} {DEMO_STORAGE} --role editor{with_db(db)}",
              file=sys.stderr)
        print("  (other roles: viewer, analyzer, architect, approver, administrator)", file=sys.stderr)
    else:
        print(f"  elrepo token create COLLECTION STORAGE --role ROLE{with_db(db)}", file=sys.stderr)
    print(f"Viewer: {viewer_url}", file=sys.stderr)


def _viewer_url(host: str, port: int) -> str:
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)
    return f"http://{shown}:{port}/ui/"


def _seconds(given: str | None, option: str, environment: str, default: float) -> float:
    return _positive(given, option, environment, default, "seconds")


def _positive(given: str | None, option: str, environment: str, default: float,
              unit: str) -> float:
    """`option`'s value, else the environment variable's, else `default`: a positive,
    finite number of `unit`."""
    source, text = (option, given) if given is not None else (
        environment, os.environ.get(environment))
    if text is None:
        return default
    value = positive_number(text)
    if value is None:
        raise CommandError(f"{source} must be a positive number of {unit}, not {text!r}")
    return value


def _service_token() -> str | None:
    """ELREPO_SERVICE_AUTH_TOKEN. A maintenance token is guessed against the service
    itself: refuse a short one before anything starts (unset is fine: maintenance then
    answers 401 to everyone)."""
    from repository.auth import MIN_SERVICE_TOKEN_LENGTH

    token = os.environ.get(SERVICE_TOKEN_ENV) or None
    if token and len(token) < MIN_SERVICE_TOKEN_LENGTH:
        raise CommandError(
            f"{SERVICE_TOKEN_ENV} is {len(token)} characters; use at least "
            f"{MIN_SERVICE_TOKEN_LENGTH}, e.g. python -c 'import secrets; "
            "print(secrets.token_urlsafe(32))'")
    return token


def _count(given: str | None, option: str, environment: str, default: int) -> int:
    """`option`'s value, else the environment variable's, else `default`: a positive
    whole number."""
    source, text = (option, given) if given is not None else (
        environment, os.environ.get(environment))
    if text is None:
        return default
    if not (text.isdigit() and int(text) > 0):
        raise CommandError(f"{source} must be a positive whole number, not {text!r}")
    return int(text)


def _listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound before the demo is loaded and a token printed:
    a taken address is refused first, so a second ``elrepo serve`` says why it cannot start
    instead of retrying to bind; port 0 is a free port the system chooses, which the
    viewer's address then names (tests start their servers so)."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen()
    except OSError as error:
        listener.close()
        raise CommandError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return listener


def _check_render_cache(url: str | None) -> str:
    """Refuses an unusable Redis URL before anything starts; an unreachable Redis is only
    a note (returned, for serve to print once the database is found usable too), since
    the service renders without the cache until Redis answers."""
    from repository.render_cache import RedisRenderCache

    if url is None:
        return "Render cache: in memory, per worker"
    try:
        cache = RedisRenderCache(url)
    except ValueError as error:
        raise CommandError(f"render cache: {error}") from None
    try:
        reachable = cache.ping()
    finally:
        cache.close()
    return ("Render cache: Redis" if reachable else "Render cache: Redis does not answer "
            "now; rendering without the cache until it does")
