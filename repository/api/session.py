"""A request's database session, from its opening to its end: the one place that opens,
commits, rolls back and closes it.

- The app makes the session factory on its engine (`create_app`:
  `store.db.session_factory`, kept as `app.extensions["elrepo.sessions"]`).
- A request opens its session on first use (`request_session`): one transaction,
  read-only for GET, HEAD and OPTIONS, else writing (`store.db.open_session` takes
  SQLite's write lock at BEGIN).
- A writing endpoint's checks read in a read session; `request_session(write=True)`
  ends that one first, so the write lock is taken only once the head passed every
  check and the body is in.
- A request may end its session early (`end_request_session`): before a body arrives,
  and before a render, which holds no connection however long it takes.
- After the request (`register_session_life`), a writing session commits when the
  answer is below 400 and rolls back otherwise; a read session just closes (a commit
  would only cost time). A commit that fails answers 503 (the database was busy, past
  its deadline or lost: the change may be saved) or 500, never the success it was
  about to send. On teardown (an exception past every handler) the session rolls back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from flask import Flask, Response, current_app, g, request
from sqlalchemy.orm import Session

from repository.errors import ServiceUnavailable
from repository.store.db import open_session

__all__ = ["READ_METHODS", "ErrorResponse", "end_request_session", "register_session_life", "request_session"]

#: The app's error envelope as a response: (status, result type, message, details).
ErrorResponse = Callable[[int, str, str, "list[str] | None"], Response]

#: The methods whose session is read-only unless an endpoint declares otherwise.
READ_METHODS = ("GET", "HEAD", "OPTIONS")
_log = logging.getLogger(__name__)


def request_session(write: bool | None = None) -> Session:
    """The request's session, opened on first use: one transaction, committed only if
    the request succeeds. Writes are expected from every method but GET, HEAD and
    OPTIONS unless `write` says otherwise; `write=True` ends a read session the
    request's checks opened and opens a writing one."""
    if write and "db_session" in g and not g.db_session.info["writes"]:
        end_request_session()
    if "db_session" not in g:
        if write is None:
            write = request.method not in READ_METHODS
        g.db_session = open_session(current_app.extensions["elrepo.sessions"], write=write)
    return g.db_session  # type: ignore[no-any-return]


def end_request_session() -> None:
    """Closes the request's session, if one is open, without committing: for a read
    that is done (its connection goes back to the pool)."""
    db = g.pop("db_session", None)
    if db is not None:
        db.close()


def register_session_life(app: Flask, error_response: ErrorResponse) -> None:
    """Ends every request's session with its answer; `error_response` makes the answer
    of a commit that failed."""
    @app.after_request
    def finish_transaction(response: Response) -> Response:
        db = g.pop("db_session", None)
        if db is None:
            return response
        if not db.info["writes"]:  # closing ends the read; a commit would only cost time
            db.close()
            return response
        try:
            if response.status_code < 400:
                db.commit()
            else:
                db.rollback()
        except ServiceUnavailable as unavailable:  # busy, past its deadline, or lost
            _log.warning("commit failed: %s", unavailable.message)
            db.rollback()
            response = _commit_unconfirmed(error_response, unavailable.retry_after)
        except Exception:  # a failed commit must not report success
            _log.exception("commit failed")
            db.rollback()
            response = error_response(500, "critical", "The change could not be saved; "
                                      "nothing was written", ["commit failed"])
        finally:
            db.close()
        return response

    @app.teardown_request
    def close_session(_error: BaseException | None) -> None:
        db = g.pop("db_session", None)
        if db is not None:
            db.rollback()
            db.close()


def _commit_unconfirmed(error_response: ErrorResponse, retry_after: int) -> Response:
    """503 for a commit the database refused or did not answer: a connection lost during
    COMMIT may have saved the change, so the answer says so rather than "nothing was
    written"; a retry with the same Idempotency-Key is safe either way."""
    response = error_response(
        503, "critical", "The change could not be saved, or the database was lost before it "
        "confirmed the save: read the element back, or send the request again with the "
        "same Idempotency-Key", None)
    response.headers["Retry-After"] = str(retry_after)
    return response
