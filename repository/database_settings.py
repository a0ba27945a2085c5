"""The service's database settings, by name and default: read by `elrepo serve` for its
help and checks without loading SQLAlchemy, applied by repository/store/db.py."""

from __future__ import annotations

STATEMENT_TIMEOUT_ENV = "ELREPO_STATEMENT_TIMEOUT"
# Far above the longest statement of a legitimate request (a 5,000-shape content create
# takes ~1.4 s on PostgreSQL, all its statements together), far below a client's patience.
DEFAULT_STATEMENT_TIMEOUT_SECONDS = 15.0
DB_POOL_SIZE_ENV = "ELREPO_DB_POOL_SIZE"
# PostgreSQL connections per worker process, and how many more at peaks: four
# `elrepo serve` of two workers hold at most 4 x 2 x (8 + 2) = 80 of PostgreSQL's
# default max_connections of 100, leaving 20 for the command line and administration.
DEFAULT_POOL_SIZE = 8
POOL_OVERFLOW = 2
