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
import shlex
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

# Only light modules here: `elrepo --help` and the commands that neither render nor touch
# the store must not load SQLAlchemy, Flask or the engine; each command imports its own.
from repository import catalog
from repository.errors import RepositoryError
from repository.render_pool import DEFAULT_TIMEOUT_SECONDS, RENDER_TIMEOUT_ENV

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from repository.models import Element
    from repository.store import Store

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
HEADER_TIMEOUT_ENV = "ELREPO_HEADER_TIMEOUT"
DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_EXPORT_LAYOUTS = ("horizontal",)
_LAYOUT_KEYS_HELP = f"layout key: {', '.join(catalog.LAYOUT_KEYS)}"
_CULTURE_HELP = "culture id of the labels (1031 German, 1033 English, ...)"


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


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, except options without one (None,
    False): their help says where the value comes from instead."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


class _Roles:
    """The roles `--role` accepts, read from `repository.auth` only when `token create`
    parses or shows its help: auth loads the store, which `elrepo --help` must not."""

    def _names(self) -> list[str]:
        from repository.auth import ROLE_PERMISSIONS

        return list(ROLE_PERMISSIONS)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="elrepo", description="Element repository service "
                                     "and diagram renderer", formatter_class=_HelpFormatter)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    def command(name: str, help_text: str,
                parent: argparse._SubParsersAction[argparse.ArgumentParser] = commands,
                ) -> argparse.ArgumentParser:
        return parent.add_parser(name, help=help_text, description=help_text,
                                 formatter_class=_HelpFormatter)

    serve = command("serve", "run the REST service (gunicorn); an empty database gets the "
                             "schema and the demo tenant")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8080, help="port to listen on")
    _db_option(serve)
    serve.add_argument("--no-demo", action="store_true",
                       help="do not load the demo tenant on an empty database")
    serve.add_argument("--workers", type=int, default=2,
                       help="worker processes, each with a pool of request threads")
    serve.add_argument("--render-timeout", metavar="SECONDS",
                       help=f"deadline of one render, past it 503 (default: "
                            f"{RENDER_TIMEOUT_ENV}, else {DEFAULT_TIMEOUT_SECONDS:g})")
    serve.add_argument("--header-timeout", metavar="SECONDS",
                       help=f"time a client has to send a request's line and headers, past "
                            f"it 408 (default: {HEADER_TIMEOUT_ENV}, else "
                            f"{DEFAULT_HEADER_TIMEOUT:g})")
    serve.add_argument("--redis", metavar="URL",
                       help="share rendered diagrams through Redis, e.g. "
                            "redis://127.0.0.1:6379/0; needs pip install -e '.[redis]' "
                            "(default: ELREPO_REDIS_URL, else an in-memory cache per worker)")
    serve.set_defaults(command=_serve)

    database = command("db", "manage the database schema")
    database_commands = database.add_subparsers(required=True, metavar="ACTION")
    upgrade = command("upgrade", "bring the database to the schema this elrepo needs (an "
                                 "empty database gets the whole schema)", database_commands)
    _db_option(upgrade)
    upgrade.set_defaults(command=_db_upgrade)

    tenant = command("tenant", "manage tenants")
    tenant_commands = tenant.add_subparsers(required=True, metavar="ACTION")
    tenant_create = command("create", "create a tenant", tenant_commands)
    tenant_create.add_argument("collection", help="collection id, e.g. acme")
    tenant_create.add_argument("storage", help="storage id, e.g. main")
    _db_option(tenant_create)
    tenant_create.set_defaults(command=_tenant_create)

    token = command("token", "manage bearer tokens")
    token_commands = token.add_subparsers(required=True, metavar="ACTION")
    token_create = command("create", "create a bearer token (printed once, on the last line)",
                           token_commands)
    token_create.add_argument("collection", help="the tenant's collection id")
    token_create.add_argument("storage", help="the tenant's storage id")
    token_create.add_argument("--role", required=True, choices=_Roles(), metavar="ROLE",
                              help="what the token may do: %(choices)s")
    token_create.add_argument("--name", help="the token's name in createdBy / changedBy "
                                             "(default: the role)")
    _db_option(token_create)
    token_create.set_defaults(command=_token_create)

    render = command("render", "render a diagram fixture file to SVG (no database)")
    render.add_argument("fixture", type=Path, help="diagram fixture (JSON)")
    render.add_argument("--layout", required=True, help=_LAYOUT_KEYS_HELP)
    render.add_argument("--culture", default=str(catalog.ENGLISH), help=_CULTURE_HELP)
    render.add_argument("-o", "--output", type=Path,
                        help="SVG file to write (default: standard output)")
    render.set_defaults(command=_render)

    export = command("export", "export every diagram of a tenant")
    export.add_argument("collection", help="the tenant's collection id")
    export.add_argument("storage", help="the tenant's storage id")
    export.add_argument("-o", "--output", type=Path, required=True,
                        help="directory to write the files to")
    export.add_argument("--layout", action="append", dest="layouts",
                        help=f"{_LAYOUT_KEYS_HELP}; repeatable (default: "
                             f"{', '.join(DEFAULT_EXPORT_LAYOUTS)})")
    export.add_argument("--format", choices=("svg", "png"), default="svg", help="file format")
    export.add_argument("--culture", default=str(catalog.ENGLISH), help=_CULTURE_HELP)
    export.add_argument("--jobs", type=int, default=1, help="renders in parallel")
    _db_option(export)
    export.set_defaults(command=_export)
    return parser


def _db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help=(
        "SQLAlchemy URL; PostgreSQL (postgresql+psycopg://user@host/db) needs pip install "
        "-e '.[postgres]' (default: ELREPO_DATABASE_URL, else sqlite:///elrepo.db)"))


def _with_db(db: str | None) -> str:
    """The `--db` part of a command printed as a hint, so it runs as printed: the URL
    given on the command line, else nothing (the environment or the default then finds
    the same database again)."""
    return f" --db {shlex.quote(db)}" if db else ""


@contextmanager
def _session(db: str | None) -> Iterator[Session]:
    """A session on the database, which is at this elrepo's schema (an empty one gets
    it; an older one is refused with the command that upgrades it); commits on success."""
    from repository.db import (
        SchemaMismatch,
        create_schema,
        database_url,
        make_engine,
        session_factory,
    )

    engine = make_engine(database_url(db))
    try:
        try:
            create_schema(engine)
        except SchemaMismatch as error:
            raise CommandError(f"{error}; run: elrepo db upgrade{_with_db(db)}"
                               if error.upgradable else str(error)) from None
        with session_factory(engine)() as session, session.begin():
            yield session
    finally:
        engine.dispose()


def _db_upgrade(args: argparse.Namespace) -> int:
    from repository.db import SchemaMismatch, database_url, make_engine, upgrade_schema

    engine = make_engine(database_url(args.db))
    try:
        found = upgrade_schema(engine)
    except SchemaMismatch as error:
        raise CommandError(str(error)) from None
    finally:
        engine.dispose()
    where = f"the database at {engine.url}"
    if found.current is None:
        print(f"Created schema {found.head} in {where}", file=sys.stderr)
    elif found.current == found.head and found.recorded:
        print(f"{where[0].upper()}{where[1:]} is at schema {found.head} already",
              file=sys.stderr)
    else:
        print(f"Upgraded {where} from schema {found.current} to {found.head}",
              file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from repository.db import database_url
    from repository.demo import create_role_tokens, is_empty, load_demo
    from repository.render_cache import redis_url
    from repository.server import run

    render_timeout = _seconds(args.render_timeout, "--render-timeout", RENDER_TIMEOUT_ENV,
                              DEFAULT_TIMEOUT_SECONDS)
    header_timeout = _seconds(args.header_timeout, "--header-timeout", HEADER_TIMEOUT_ENV,
                              DEFAULT_HEADER_TIMEOUT)
    _check_port_free(args.host, args.port)
    cache_url = redis_url(args.redis)
    cache_note = _check_render_cache(cache_url)
    with _session(args.db) as session:
        empty = is_empty(session)
        if empty and not args.no_demo:
            tenant = load_demo(session)
            token = create_role_tokens(session, tenant)["editor"]
            print("Loaded the demo tenant demo/default. Demo editor token (tokens for the "
                  f"other roles: elrepo token create demo default --role ROLE"
                  f"{_with_db(args.db)}):", file=sys.stderr)
            print(token, flush=True)
        else:
            # A second start finds the data (and the tokens) the first one left.
            print(f"Empty database, no demo loaded (--no-demo). A tenant:\n  elrepo tenant "
                  f"create COLLECTION STORAGE{_with_db(args.db)}\nThen a token for it:"
                  if empty else "Serving the data already in the database; earlier tokens "
                  "stay valid. A new token:", file=sys.stderr)
            print(f"  elrepo token create COLLECTION STORAGE --role ROLE{_with_db(args.db)}",
                  file=sys.stderr)
    print(cache_note, file=sys.stderr)
    run(database_url=database_url(args.db), host=args.host, port=args.port, workers=args.workers,
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


def _tenant_create(args: argparse.Namespace) -> int:
    from repository.store import create_tenant

    with _session(args.db) as session:
        create_tenant(session, args.collection, args.storage)
    print(f"Created tenant {args.collection}/{args.storage}. A token for it: elrepo token "
          f"create {shlex.quote(args.collection)} {shlex.quote(args.storage)} --role ROLE"
          f"{_with_db(args.db)}", file=sys.stderr)
    return 0


def _token_create(args: argparse.Namespace) -> int:
    from repository.auth import create_token
    from repository.store import find_tenant

    with _session(args.db) as session:
        tenant = find_tenant(session, args.collection, args.storage)
        if tenant is None:
            raise CommandError(f"no tenant {args.collection}/{args.storage}; create it with: "
                               f"elrepo tenant create {shlex.quote(args.collection)} "
                               f"{shlex.quote(args.storage)}{_with_db(args.db)}")
        token = create_token(session, tenant, args.role, args.name)
    print(f"Bearer token for {args.collection}/{args.storage}, role {args.role} "
          "(shown only once):", file=sys.stderr)
    print(token)
    return 0


def _render(args: argparse.Namespace) -> int:
    from repository.wire import parse_culture_id

    culture = parse_culture_id(args.culture, "--culture")
    try:
        fixture = json.loads(args.fixture.read_text(encoding="utf-8"))
    except OSError as error:
        raise CommandError(f"cannot read {args.fixture}: {error.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{args.fixture} is not valid JSON: {error}") from None
    if isinstance(fixture, dict) and not fixture.get("values"):
        # The engine draws an empty diagram as an empty picture; asked for one from the
        # command line, that is a mistake in the file.
        raise CommandError(f"{args.fixture} has no shapes (its \"values\" list is empty): "
                           "nothing to render")
    from renderer.api import RenderInputError, render

    try:
        svg = render(fixture, args.layout, culture)
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
    from repository.store import Store, find_tenant
    from repository.wire import parse_culture_id

    culture = parse_culture_id(args.culture, "--culture")
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
            ExportJob(_export_name(store, diagram, culture), key,
                      diagram_fixture(store, diagram), culture,
                      default_culture=tenant.default_culture)
            for diagram in _diagrams(store) for key in layouts
        ]
    report = export_many(jobs, args.output, args.format, args.jobs, progress=True)
    for failure in report.failures:
        print(f"elrepo: {failure.name}: {failure.error}", file=sys.stderr)
    print(f"Wrote {len(report.written)} file(s) to {args.output}", file=sys.stderr)
    return 0 if report.ok else EXIT_FAILURE


def _diagrams(store: Store) -> list[Element]:
    """Every element whose newest version has content, in listing order."""
    from sqlalchemy import select

    from repository.models import Element
    from repository.store import with_content

    return list(store.session.scalars(
        select(Element).where(Element.tenant_pk == store.tenant.pk,
                              with_content())
        .order_by(Element.sort_name, Element.id)))


def _export_name(store: Store, diagram: Element, culture: int) -> str:
    return f"{store.name_of(diagram, culture) or diagram.type}-{diagram.id[:8]}"


if __name__ == "__main__":
    sys.exit(main())
