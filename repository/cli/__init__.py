"""`elrepo`: serve, db upgrade, tenant create, token create, render, layout, export,
import (README, "Commands").

Every command that touches the store takes `--db URL` (else ELREPO_DATABASE_URL, else
./elrepo.db); an empty database gets the schema, an older one is refused with the command
that upgrades it. Errors are one line on standard error, never a traceback: exit 2 for
bad input, 1 for failures.

Only light modules are imported here: `elrepo --help` and the commands that neither
render nor touch the store must not load SQLAlchemy, Flask or the engine; each command
imports its own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from repository.cli import admin, bpmn, files, serve, worker
from repository.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, CommandError, HelpFormatter
from repository.cli.serve import HEADER_TIMEOUT_ENV
from repository.errors import RepositoryError

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILURE", "HEADER_TIMEOUT_ENV", "CommandError", "main"]


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
                                     "and diagram renderer", formatter_class=HelpFormatter)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for module in (serve, admin, files, bpmn, worker):
        module.add_commands(commands)
    return parser
