"""`elrepo webhook test`: send a signed sample event to a URL (with the secret given) or
to a registered webhook (by its id and tenant, with its own URL and secret), to check a
receiver's signature check before real changes reach it."""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from repository.cli.common import EXIT_FAILURE, CommandError, Subcommands, add_command, db_option

TEST_EVENT = "elrepo.webhook.test"


def add_commands(commands: Subcommands[argparse.ArgumentParser]) -> None:
    webhook = add_command(commands, "webhook", "webhooks (docs/events.md)")
    actions = webhook.add_subparsers(required=True, metavar="ACTION")
    test = add_command(actions, "test", "send a signed sample event (type "
                       f"{TEST_EVENT}) to a URL or to a registered webhook; exit 0 when the "
                       "receiver answered 2xx")
    test.add_argument("target", metavar="URL_OR_ID",
                      help="an http(s) URL (with --secret), or a webhook's id (with --tenant)")
    test.add_argument("--secret", help="the whsec_ secret to sign with, for a URL")
    test.add_argument("--tenant", nargs=2, metavar=("COLLECTION", "STORAGE"),
                      help="the tenant of the webhook id: its URL and secret are read from "
                           "the database")
    test.add_argument("--allow-private", action="store_true",
                      help="send to a private or loopback address too (default: "
                           "ELREPO_WEBHOOKS_ALLOW_PRIVATE=1 does too, else refused)")
    db_option(test)
    test.set_defaults(command=_test)


def _test(args: argparse.Namespace) -> int:
    from repository.settings import allows_private_webhooks
    from repository.webhooks import sender, signing
    from repository.webhooks.worker import sample_body

    url, secret, source = _destination(args)
    try:
        signing.signing_key(secret)
        allow_private = args.allow_private or allows_private_webhooks()
    except ValueError as error:
        raise CommandError(str(error)) from None
    message_id = f"test-{uuid.uuid4()}"
    body = sample_body(message_id, TEST_EVENT, source)
    outcome = sender.post(url, body, signing.signed_headers(secret, message_id, int(time.time()),
                                                            body), allow_private=allow_private)
    if not outcome.delivered:
        raise CommandError(f"not delivered to {url}: {outcome.error}", EXIT_FAILURE)
    print(f"Delivered {message_id} to {url}: {outcome.status}", file=sys.stderr)
    return 0


def _destination(args: argparse.Namespace) -> tuple[str, str, str]:
    """URL, secret and the sample's `source`."""
    is_url = args.target.lower().startswith(("http://", "https://"))
    if is_url:
        if args.secret is None or args.tenant is not None:
            raise CommandError("a URL needs --secret whsec_... (and no --tenant)")
        return args.target, args.secret, "/elrepo/webhook-test"
    if args.tenant is None or args.secret is not None:
        raise CommandError(f"{args.target!r} is not an http(s) URL; a webhook id needs "
                           "--tenant COLLECTION STORAGE (and no --secret)")
    from repository.cli.common import existing_tenant, session_on
    from repository.errors import NotFound
    from repository.webhooks.endpoints import find

    collection, storage = args.tenant
    with session_on(args.db, write=False) as session:
        tenant = existing_tenant(session, collection, storage, args.db)
        try:
            endpoint = find(session, tenant.pk, args.target)
        except NotFound as error:
            raise CommandError(f"{error.message} in {collection}/{storage}") from None
        return endpoint.url, endpoint.secret, f"/{collection}/{storage}"
