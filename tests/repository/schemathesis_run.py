"""The full schemathesis run by hand (issue 18): every check, N fuzzed cases per operation,
against a fresh `elrepo serve` on SQLite or PostgreSQL. The CI test
(tests/repository/test_schemathesis.py) runs the same configuration, smaller.

    .venv/bin/python -m tests.repository.schemathesis_run --examples 100
    .venv/bin/python -m tests.repository.schemathesis_run --examples 100 \\
        --db postgresql+psycopg://postgres@127.0.0.1:5432/elrepo_schemathesis

The database must be empty (the server loads the demo into it). It prints the counts of
cases and the failures by kind, and leaves schemathesis.toml, report.json, output.txt
and serve.log in --directory to replay or read a failure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tests.repository.test_cli import Server
from tests.repository.test_schemathesis import ALL_CHECKS, SEED, run_schemathesis


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.repository.schemathesis_run",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="an empty database (default: SQLite in --directory)")
    parser.add_argument("--examples", type=int, default=100,
                        help="fuzzed cases per operation (default 100)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--directory", type=Path,
                        help="where the files go (default: a new temporary folder)")
    parser.add_argument("--timeout", type=float, default=3 * 3600,
                        help="seconds for the whole run (default 3 h)")
    args = parser.parse_args(argv)
    directory = args.directory or Path(tempfile.mkdtemp(prefix="elrepo-schemathesis-"))
    directory.mkdir(parents=True, exist_ok=True)
    database = args.db or f"sqlite:///{directory / 'fuzzed.db'}"
    started = time.monotonic()
    server = Server(database, directory)
    try:
        report, output, exit_code = run_schemathesis(
            server, directory, database, examples=args.examples, checks=ALL_CHECKS,
            seed=args.seed, timeout=args.timeout)
    finally:
        server.stop()
    (directory / "output.txt").write_text(output, encoding="utf-8")
    cases = report["test_cases"]
    print(f"database {database.split('://')[0]}, seed {args.seed}, "
          f"{args.examples} fuzzed cases per operation, every check, "
          f"{time.monotonic() - started:.0f} s")
    print(f"operations tested {report['operations']['tested']} of "
          f"{report['operations']['total']}; cases generated {cases['generated']}, "
          f"with failures {cases['with_failures']}, unique failures {cases['unique_failures']}, "
          f"skipped {cases['without_checks']}; errors {len(report['errors'])}; exit code "
          f"{exit_code}")
    for failure in report["failures"]:
        print(f"  {failure['code']} {failure['title']} x{failure['count']}: "
              f"{'; '.join(failure['operations'])}")
    for error in report["errors"]:
        print(f"  error: {error}")
    print(f"files in {directory}")
    return 0 if not report["failures"] and not report["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
