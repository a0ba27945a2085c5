"""`elrepo events tail`: the change feed (docs/events.md) as JSON lines, one CloudEvent a
line, followed as it grows (docs/cli.md)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from repository.cli.common import Subcommands, add_command, db_option, positive_option, tenant_session

DEFAULT_INTERVAL = 1.0
PAGE = 500  # events read per statement


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    events = add_command(commands, "events", "read the change feed")
    event_commands = events.add_subparsers(required=True, metavar="ACTION")
    tail = add_command(event_commands, "tail", "print a tenant's change events as JSON "
                       "lines (CloudEvents) and follow the feed; Ctrl-C stops", on_tenant=True)
    start = tail.add_mutually_exclusive_group()
    start.add_argument("--from-start", action="store_true",
                       help="begin with the oldest event kept (default: with the next one)")
    start.add_argument("--cursor", help="begin after this cursor (the change feed "
                       "endpoint's, or the one this command prints when it stops)")
    tail.add_argument("--no-follow", action="store_true",
                      help="stop once every event there is now was printed")
    tail.add_argument("--interval", type=positive_option("seconds"), default=DEFAULT_INTERVAL, metavar="SECONDS",
                      help="how often to look for new events")
    db_option(tail)
    tail.set_defaults(command=_tail)


def _tail(args: argparse.Namespace) -> int:
    from repository.events.feed import encode_cursor, read_page
    from repository.store.changes import feed_bounds

    cursor: str | None = args.cursor
    with tenant_session(args, write=False) as (session, tenant):
        if cursor is None and not args.from_start:
            cursor = encode_cursor(feed_bounds(session, tenant.pk)[1])
        try:
            while True:
                try:
                    page = read_page(session, tenant.pk, cursor, PAGE)
                finally:
                    session.rollback()  # the next read sees new commits (and holds no snapshot)
                for event in page.events:
                    sys.stdout.write(json.dumps(event.cloud_event, ensure_ascii=False) + "\n")
                sys.stdout.flush()
                cursor = page.cursor
                if len(page.events) < PAGE:
                    if args.no_follow:
                        break
                    time.sleep(args.interval)
        except KeyboardInterrupt:
            pass  # how one stops following: no failure
        print(f"elrepo: stopped; go on with --cursor {cursor}", file=sys.stderr)
    return 0
