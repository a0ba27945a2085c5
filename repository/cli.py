"""`elrepo`: serve, tenant create, token create, render, export (docs/contract.md,
"Names and commands").

Every command that touches the store takes `--db URL` (else ELREPO_DATABASE_URL, else
./elrepo.db) and creates the schema on an empty database. Errors are one line on
standard error, never a traceback: exit 2 for bad input, 1 for failures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from repository import auth, catalog
from repository.db import create_schema, database_url, make_engine, session_factory
from repository.errors import RepositoryError
from repository.models import Element
from repository.render_cache import RedisRenderCache, redis_url
from repository.render_pool import DEFAULT_TIMEOUT_SECONDS, RENDER_TIMEOUT_ENV
from repository.store import Store, create_tenant, find_tenant, with_content

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
HEADER_TIMEOUT_ENV = "ELREPO_HEADER_TIMEOUT"
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_EXPORT_LAYOUTS = ("horizontal",)


class CommandError(Exception):
    """A one-line message for the user and the exit status that goes with it."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.status = status


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.command
    try:
        return command(args)
    except CommandError as error:
        print(f"elrepo: {error}", file=sys.stderr)
        return error.status
    except RepositoryError as error:
        print(f"elrepo: {error.message}", file=sys.stderr)
        return EXIT_BAD_INPUT if error.status < 500 else EXIT_FAILURE
    except KeyboardInterrupt:
        return EXIT_FAILURE
    except Exception as error:  # last resort: one line, no traceback
        print(f"elrepo: failed: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_FAILURE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="elrepo", description="Element repository service "
                                     "and diagram renderer")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the REST service (gunicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8080)
    _db_option(serve)
    serve.add_argument("--no-demo", action="store_true",
                       help="do not load the demo tenant on an empty database")
    serve.add_argument("--workers", type=int, default=2,
                       help="worker processes, each with a pool of request threads "
                            "(default 2)")
    serve.add_argument("--render-timeout", metavar="SECONDS",
                       help=f"deadline of one render, past it 503 (default: "
                            f"{RENDER_TIMEOUT_ENV}, else {DEFAULT_TIMEOUT_SECONDS:g})")
    serve.add_argument("--header-timeout", metavar="SECONDS",
                       help=f"time a client has to send a request's line and headers, past "
                            f"it 408 (default: {HEADER_TIMEOUT_ENV}, else "
                            f"{DEFAULT_HEADER_TIMEOUT:g})")
    serve.add_argument("--redis", metavar="URL",
                       help="share rendered diagrams through Redis (default: "
                            "ELREPO_REDIS_URL, else an in-memory cache per worker)")
    serve.set_defaults(command=_serve)

    tenant = commands.add_parser("tenant", help="manage tenants")
    tenant_commands = tenant.add_subparsers(required=True, metavar="ACTION")
    tenant_create = tenant_commands.add_parser("create", help="create a tenant")
    tenant_create.add_argument("collection")
    tenant_create.add_argument("storage")
    _db_option(tenant_create)
    tenant_create.set_defaults(command=_tenant_create)

    token = commands.add_parser("token", help="manage bearer tokens")
    token_commands = token.add_subparsers(required=True, metavar="ACTION")
    token_create = token_commands.add_parser("create", help="create a bearer token")
    token_create.add_argument("collection")
    token_create.add_argument("storage")
    token_create.add_argument("--role", required=True, choices=list(auth.ROLE_PERMISSIONS))
    token_create.add_argument("--name")
    _db_option(token_create)
    token_create.set_defaults(command=_token_create)

    render = commands.add_parser("render", help="render a diagram fixture file to SVG")
    render.add_argument("fixture", type=Path)
    render.add_argument("--layout", required=True)
    render.add_argument("--culture", type=int, default=catalog.ENGLISH)
    render.add_argument("-o", "--output", type=Path)
    render.set_defaults(command=_render)

    export = commands.add_parser("export", help="export every diagram of a tenant")
    export.add_argument("collection")
    export.add_argument("storage")
    export.add_argument("-o", "--output", type=Path, required=True)
    export.add_argument("--layout", action="append", dest="layouts",
                        help=f"layout key, repeatable (default {DEFAULT_EXPORT_LAYOUTS[0]})")
    export.add_argument("--format", choices=("svg", "png"), default="svg")
    export.add_argument("--culture", type=int, default=catalog.ENGLISH)
    export.add_argument("--jobs", type=int, default=1)
    _db_option(export)
    export.set_defaults(command=_export)
    return parser


def _db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", help="SQLAlchemy URL (default: ELREPO_DATABASE_URL or "
                                     "sqlite:///elrepo.db)")


@contextmanager
def _session(db: str | None) -> Iterator[Session]:
    """A session on the database, schema created; commits on success."""
    engine = make_engine(database_url(db))
    try:
        create_schema(engine)
        with session_factory(engine)() as session, session.begin():
            yield session
    finally:
        engine.dispose()


def _serve(args: argparse.Namespace) -> int:
    from repository.demo import create_role_tokens, is_empty, load_demo
    from repository.server import run

    render_timeout = _seconds(args.render_timeout, "--render-timeout", RENDER_TIMEOUT_ENV,
                              DEFAULT_TIMEOUT_SECONDS)
    header_timeout = _seconds(args.header_timeout, "--header-timeout", HEADER_TIMEOUT_ENV,
                              DEFAULT_HEADER_TIMEOUT)
    _check_port_free(args.host, args.port)
    cache_url = redis_url(args.redis)
    _check_render_cache(cache_url)
    url = database_url(args.db)
    with _session(url) as session:
        if not args.no_demo and is_empty(session):
            tenant = load_demo(session)
            token = create_role_tokens(session, tenant)["editor"]
            print("Loaded the demo tenant demo/default. Demo editor token (tokens for the "
                  "other roles: elrepo token create demo default --role ROLE):",
                  file=sys.stderr)
            print(token, flush=True)
        else:
            print("Database not empty: no demo loaded. Create a token with: elrepo token "
                  "create COLLECTION STORAGE --role ROLE", file=sys.stderr)
    run(database_url=url, host=args.host, port=args.port, workers=args.workers,
        render_timeout=render_timeout, header_timeout=header_timeout, redis_url=cache_url)
    return 0


def _seconds(given: str | None, option: str, environment: str, default: float) -> float:
    """`option`'s value, else the environment variable's, else `default`: a positive,
    finite number of seconds."""
    source, text = (option, given) if given is not None else (
        environment, os.environ.get(environment))
    if text is None:
        return default
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise CommandError(f"{source} must be a positive number of seconds, not {text!r}")
    return seconds


def _check_port_free(host: str, port: int) -> None:
    """Refuses a taken address before the demo is loaded and a token printed, so a
    second ``elrepo serve`` says why it cannot start instead of retrying to bind."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise CommandError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def _check_render_cache(url: str | None) -> None:
    """Refuses an unusable Redis URL before anything starts; an unreachable Redis is only
    a hint, since the service renders without the cache until Redis answers."""
    if url is None:
        print("Render cache: in memory, per worker", file=sys.stderr)
        return
    try:
        cache = RedisRenderCache(url)
    except ValueError as error:
        raise CommandError(f"render cache: {error}") from None
    try:
        reachable = cache.ping()
    finally:
        cache.close()
    print("Render cache: Redis" if reachable else
          "Render cache: Redis does not answer now; rendering without the cache until it "
          "does", file=sys.stderr)


def _tenant_create(args: argparse.Namespace) -> int:
    with _session(args.db) as session:
        create_tenant(session, args.collection, args.storage)
    print(f"Created tenant {args.collection}/{args.storage}", file=sys.stderr)
    return 0


def _token_create(args: argparse.Namespace) -> int:
    with _session(args.db) as session:
        tenant = find_tenant(session, args.collection, args.storage)
        if tenant is None:
            raise CommandError(f"no tenant {args.collection}/{args.storage}; create it with "
                               f"elrepo tenant create {args.collection} {args.storage}")
        token = auth.create_token(session, tenant, args.role, args.name)
    print(f"Bearer token for {args.collection}/{args.storage}, role {args.role} "
          "(shown only once):", file=sys.stderr)
    print(token)
    return 0


def _render(args: argparse.Namespace) -> int:
    try:
        fixture = json.loads(args.fixture.read_text(encoding="utf-8"))
    except OSError as error:
        raise CommandError(f"cannot read {args.fixture}: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{args.fixture} is not valid JSON: {error}") from None
    from renderer.api import RenderInputError, render

    try:
        svg = render(fixture, args.layout, args.culture)
    except RenderInputError as error:
        raise CommandError(str(error)) from None
    if args.output is None:
        sys.stdout.write(svg)
    else:
        try:
            args.output.write_text(svg, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"cannot write {args.output}: {error.strerror}") from None
    return 0


def _export(args: argparse.Namespace) -> int:
    from renderer.export import ExportJob, export_many

    from repository.fixtures import diagram_fixture

    layouts = args.layouts or list(DEFAULT_EXPORT_LAYOUTS)
    unknown = [key for key in layouts if key not in catalog.LAYOUT_KEYS]
    if unknown:
        raise CommandError(f"unknown layout key(s) {', '.join(unknown)}; layout keys: "
                           f"{', '.join(catalog.LAYOUT_KEYS)}")
    if args.jobs < 1:
        raise CommandError("--jobs must be at least 1")
    with _session(args.db) as session:
        tenant = find_tenant(session, args.collection, args.storage)
        if tenant is None:
            raise CommandError(f"no tenant {args.collection}/{args.storage}")
        store = Store(session, tenant)
        jobs = [
            ExportJob(_export_name(store, diagram, args.culture), key,
                      diagram_fixture(store, diagram), args.culture)
            for diagram in _diagrams(store) for key in layouts
        ]
    report = export_many(jobs, args.output, args.format, args.jobs, progress=True)
    for failure in report.failures:
        print(f"elrepo: {failure.name}: {failure.error}", file=sys.stderr)
    print(f"Wrote {len(report.written)} file(s) to {args.output}", file=sys.stderr)
    return 0 if report.ok else EXIT_FAILURE


def _diagrams(store: Store) -> list[Element]:
    """Every element whose newest version has content, in listing order."""
    return list(store.session.scalars(
        select(Element).where(Element.tenant_pk == store.tenant.pk,
                              with_content())
        .order_by(Element.sort_name, Element.id)))


def _export_name(store: Store, diagram: Element, culture: int) -> str:
    return f"{store.name_of(diagram, culture) or diagram.type}-{diagram.id[:8]}"


if __name__ == "__main__":
    sys.exit(main())
