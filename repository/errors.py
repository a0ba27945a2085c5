"""Domain errors of the repository, free of Flask.

Each error knows its HTTP status and OperationResultType so the web layer can turn any
of them into the contract's error envelope without a lookup table of its own.
"""

from __future__ import annotations


class RepositoryError(Exception):
    """Base class: a failure the caller caused or may act on (never an internal bug)."""

    status: int = 400
    result_type: str = "error"

    def __init__(self, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details if details is not None else [message]


class InvalidInput(RepositoryError):
    status = 400


class Unauthenticated(RepositoryError):
    status = 401
    result_type = "unauthorized"


class Forbidden(RepositoryError):
    status = 403
    result_type = "unauthorized"


class NotFound(RepositoryError):
    status = 404


class Conflict(RepositoryError):
    status = 409


class TooLarge(RepositoryError):
    status = 413


class PreconditionFailed(RepositoryError):
    """An `If-Match` naming a revision that is no longer the current one."""

    status = 412


class RequestTimeout(RepositoryError):
    """The body did not arrive in time (docs/reliability.md, "Front door (issue 18)")."""

    status = 408


class TooManyRequests(RepositoryError):
    """Refused for now, whoever asks: try again after `retry_after` seconds."""

    status = 429

    def __init__(self, message: str, retry_after: int, details: list[str] | None = None) -> None:
        super().__init__(message, details)
        self.retry_after = retry_after


class ServiceUnavailable(RepositoryError):
    """A temporary refusal (a render past its deadline, a write that could not get the
    lock): the client may try again after `retry_after` seconds."""

    status = 503
    result_type = "critical"

    def __init__(self, message: str, retry_after: int, details: list[str] | None = None) -> None:
        super().__init__(message, details)
        self.retry_after = retry_after


class Gone(RepositoryError):
    """What the request asks for existed and was removed for good (the change feed's
    events past their retention)."""

    status = 410
