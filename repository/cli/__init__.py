"""`elrepo`: serve, db upgrade, tenant create, token create, render, layout, diff, export,
import, events tail, webhook test (README, "Commands").

Every command that touches the store takes `--db URL` (else ELREPO_DATABASE_URL, else
./elrepo.db); an empty database gets the schema, an older one is refused with the command
that upgrades it. Errors are one line on standard error, never a traceback: exit 2 for
bad input, 1 for failures.

Only light modules are imported here: `elrepo --help` and the commands that neither
render nor touch the store must not load SQLAlchemy, Flask or the engine; each command
imports its own. `elrepo render` run as a program first asks the resident renderer
(`repository.cli.resident`, docs/cli.md), before even the command modules and argparse
are loaded: that is most of what makes a warm render fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

#: typing.TYPE_CHECKING (mypy knows the name) without loading typing on render's path
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = ["main", "run"]


def main(argv: Sequence[str] | None = None) -> int:
    """The `elrepo` program. Called with `argv` (tests, other Python code) it always runs
    here, writing to this process's `sys.stdout`; as the program (`argv` None), `render`
    goes to the resident renderer when one answers."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if argv is None and arguments[:1] == ["render"]:
        from repository.cli.resident import render_resident

        status = render_resident(arguments)
        if status is not None:
            return status
    return run(arguments)


def run(arguments: Sequence[str]) -> int:
    """One command, in this process: its exit status; errors are one line on stderr."""
    from repository.cli.common import EXIT_BAD_INPUT, EXIT_FAILURE, CommandError
    from repository.errors import RepositoryError

    args = _parser().parse_args(arguments)
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
    import argparse

    from repository.cli import admin, bpmn, diff, events, files, serve, webhook, worker
    from repository.cli.common import HelpFormatter

    parser = argparse.ArgumentParser(prog="elrepo", description="Element repository service "
                                     "and diagram renderer", formatter_class=HelpFormatter)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for module in (serve, admin, files, diff, bpmn, worker, events, webhook):
        module.add_commands(commands)
    return parser
