"""What every `elrepo` command shares: the one-line error, exit statuses, the help
format, the `--db` option, a tenant's arguments and its lookup, positive numbers, and a
session on a database at this elrepo's schema."""

from __future__ import annotations

import argparse
import math
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from repository import catalog

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session

    from repository.store.models import Tenant

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
LAYOUT_KEYS_HELP = f"layout key: {', '.join(catalog.LAYOUT_KEYS)}"
CULTURE_HELP = "culture id of the labels (1031 German, 1033 English, ...)"

Subcommands = argparse._SubParsersAction  # argparse names no public type for it


class CommandError(Exception):
    """A one-line message for the user and the exit status that goes with it."""

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.status = status


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, except options without one (None,
    False): their help says where the value comes from instead."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def add_command(parent: Subcommands[argparse.ArgumentParser], name: str,
                help_text: str, *, on_tenant: bool = False) -> argparse.ArgumentParser:
    """A (sub)command; `on_tenant`: it works on one tenant, named by its first two
    arguments, `collection` and `storage` (`tenant_session` opens it)."""
    command = parent.add_parser(name, help=help_text, description=help_text,
                                formatter_class=HelpFormatter)
    if on_tenant:
        command.add_argument("collection", help="the tenant's collection id")
        command.add_argument("storage", help="the tenant's storage id")
    return command


def db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help=(
        "SQLAlchemy URL; PostgreSQL (postgresql+psycopg://user@host/db) needs pip install "
        "-e '.[postgres]' (default: ELREPO_DATABASE_URL, else sqlite:///elrepo.db)"))


def positive_number(text: str) -> float | None:
    """`text` as a positive, finite number (fractions allowed), else None."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) and number > 0 else None


def positive_option(unit: str) -> Callable[[str], float]:
    """An argparse `type` for an option taking a positive number of `unit` (days, seconds):
    anything else is a usage error that says so."""
    def parse(text: str) -> float:
        number = positive_number(text)
        if number is None:
            raise argparse.ArgumentTypeError(f"a positive number of {unit}, not {text!r}")
        return number
    return parse


def with_db(db: str | None) -> str:
    """The `--db` part of a command printed as a hint, so it runs as printed: the URL
    given on the command line, else nothing (the environment or the default then finds
    the same database again)."""
    return f" --db {shlex.quote(db)}" if db else ""


def engine_or_hint(make: Callable[[str], Engine], url: str) -> Engine:
    """`make(url)`, or, when the URL's database driver is not installed, a one-line
    refusal saying what to install (instead of a ModuleNotFoundError)."""
    try:
        return make(url)
    except ModuleNotFoundError as error:
        backend = url.split(":", 1)[0]
        install = ("pip install -e '.[postgres]' and write the URL as "
                   "postgresql+psycopg://USER@HOST/DATABASE") if backend.startswith("postgres") \
            else "install the driver the URL names"
        raise CommandError(f"The database driver for {backend} is not installed "
                           f"(no module {error.name!r}): {install}") from None


@contextmanager
def session_on(db: str | None, *, write: bool = True,
               schema_lock: bool = False) -> Iterator[Session]:
    """A session on the database, which is at this elrepo's schema (an empty one gets
    it; an older one is refused with the command that upgrades it); commits on success.
    `write=False` for a command that only reads (an export must not hold the write lock
    while it reads a whole tenant); `schema_lock`: `open_session`'s."""
    from repository.settings import database_url
    from repository.store.db import (
        SchemaMismatch,
        create_schema,
        make_engine,
        open_session,
        session_factory,
    )

    engine = engine_or_hint(make_engine, database_url(db))
    try:
        try:
            create_schema(engine)
        except SchemaMismatch as error:
            raise CommandError(f"{error}; run: elrepo db upgrade{with_db(db)}"
                               if error.upgradable else str(error)) from None
        # A write is locked from BEGIN (IMMEDIATE on SQLite), as the service's writes
        # are: a read that turns into a write after another connection wrote (a server's
        # workers starting) fails at once, where a wait for the lock waits its timeout.
        session = open_session(session_factory(engine), write=write, schema_lock=schema_lock)
        try:
            yield session
            session.commit()
        finally:
            session.close()
    finally:
        engine.dispose()


@contextmanager
def tenant_session(args: argparse.Namespace, *, write: bool = True) -> Iterator[tuple[Session, Tenant]]:
    """`session_on` the command's `--db`, and the tenant of its `collection` and `storage`
    arguments (`add_command(on_tenant=True)`), refused with how to create it when there
    is none."""
    with session_on(args.db, write=write) as session:
        yield session, existing_tenant(session, args.collection, args.storage, args.db)


def existing_tenant(session: Session, collection: str, storage: str, db: str | None) -> Tenant:
    """The tenant `collection`/`storage` of the database `db` (the command's `--db`), or
    the one line that says how to create it."""
    from repository.store import find_tenant

    tenant = find_tenant(session, collection, storage)
    if tenant is None:
        raise CommandError(f"no tenant {collection}/{storage}; create it with: "
                           f"elrepo tenant create {shlex.quote(collection)} "
                           f"{shlex.quote(storage)}{with_db(db)}")
    return tenant
