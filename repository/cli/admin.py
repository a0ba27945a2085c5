"""`elrepo db upgrade`, `elrepo tenant create`, `elrepo token create | list | revoke`."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterator

from repository.cli.common import (
    CommandError,
    Subcommands,
    add_command,
    db_option,
    engine_or_hint,
    positive_option,
    session_on,
    tenant_session,
    with_db,
)


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


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    database = add_command(commands, "db", "manage the database schema")
    database_commands = database.add_subparsers(required=True, metavar="ACTION")
    upgrade = add_command(database_commands, "upgrade", "bring the database to the schema "
                          "this elrepo needs (an empty database gets the whole schema)")
    db_option(upgrade)
    upgrade.set_defaults(command=_db_upgrade)

    tenant = add_command(commands, "tenant", "manage tenants")
    tenant_commands = tenant.add_subparsers(required=True, metavar="ACTION")
    tenant_create = add_command(tenant_commands, "create", "create a tenant")
    tenant_create.add_argument("collection", help="collection id, e.g. acme")
    tenant_create.add_argument("storage", help="storage id, e.g. main")
    db_option(tenant_create)
    tenant_create.set_defaults(command=_tenant_create)

    token = add_command(commands, "token", "manage bearer tokens")
    token_commands = token.add_subparsers(required=True, metavar="ACTION")
    token_create = add_command(token_commands, "create",
                               "create a bearer token (printed once, on the last line)", on_tenant=True)
    token_create.add_argument("--role", required=True, choices=_Roles(), metavar="ROLE",
                              help="what the token may do: %(choices)s")
    token_create.add_argument("--name", help="the token's name in createdBy / changedBy "
                                             "(default: the role)")
    token_create.add_argument("--expires-in", metavar="DAYS", type=positive_option("days"),
                              help="refuse the token (401) this many days from now; "
                                   "fractions allowed (default: never expires)")
    db_option(token_create)
    token_create.set_defaults(command=_token_create)

    token_list = add_command(token_commands, "list", "list a tenant's tokens: id, name, "
                             "role, created, expires, revoked (never the token itself)", on_tenant=True)
    db_option(token_list)
    token_list.set_defaults(command=_token_list)

    token_revoke = add_command(token_commands, "revoke", "revoke a token: from now on it "
                               "answers 401; its past changes keep naming it", on_tenant=True)
    which = token_revoke.add_mutually_exclusive_group(required=True)
    which.add_argument("--name", help="the token's name (as token list shows it)")
    which.add_argument("--id", dest="token_id", metavar="ID",
                       help="the token's id (as token list and changedBy show it)")
    db_option(token_revoke)
    token_revoke.set_defaults(command=_token_revoke)


def _db_upgrade(args: argparse.Namespace) -> int:
    from repository.settings import database_url
    from repository.store.db import SchemaMismatch, make_engine, upgrade_schema

    engine = engine_or_hint(make_engine, database_url(args.db))
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


def _tenant_create(args: argparse.Namespace) -> int:
    from repository.store import create_tenant

    with session_on(args.db) as session:
        create_tenant(session, args.collection, args.storage)
    print(f"Created tenant {args.collection}/{args.storage}. A token for it: elrepo token "
          f"create {shlex.quote(args.collection)} {shlex.quote(args.storage)} --role ROLE"
          f"{with_db(args.db)}", file=sys.stderr)
    return 0


def _token_create(args: argparse.Namespace) -> int:
    from repository.auth import create_token

    with tenant_session(args) as (session, tenant):
        token = create_token(session, tenant, args.role, args.name,
                             expires_in_days=args.expires_in)
    expiry = "" if args.expires_in is None else f", expires in {args.expires_in:g} days"
    print(f"Bearer token for {args.collection}/{args.storage}, role {args.role}{expiry} "
          "(shown only once):", file=sys.stderr)
    print(token)
    return 0


def _token_list(args: argparse.Namespace) -> int:
    from repository.store import list_tokens

    with tenant_session(args, write=False) as (session, tenant):
        records = list_tokens(session, tenant)
    rows = [("ID", "NAME", "ROLE", "CREATED", "EXPIRES", "REVOKED")] + [
        (r.id, r.name, r.role, r.created_at or "-", r.expires_at or "never",
         r.revoked_at or "-") for r in records]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f"{len(records)} token(s) of {args.collection}/{args.storage}; times in UTC",
          file=sys.stderr)
    return 0


def _token_revoke(args: argparse.Namespace) -> int:
    from repository.store import now_timestamp, revoke_token

    with tenant_session(args) as (session, tenant):
        revoked = revoke_token(session, tenant, now_timestamp(),
                               name=args.name, element_id=args.token_id)
    print(f"Revoked token {revoked.id} ({revoked.name!r}, role {revoked.role}) of "
          f"{args.collection}/{args.storage}: it answers 401 from now on", file=sys.stderr)
    return 0
