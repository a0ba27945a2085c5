"""The release workflow as a pure state machine (docs/contract.md, "Elements, versions
and release workflow"). No I/O here.

The store asks three questions: which transitions may this caller run now, where does
one lead (or why not), and which version number comes next.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

IN_PROCESS = "inProcess"
IN_REVIEW = "inReview"
READY_FOR_QA = "readyForQa"
READY_FOR_RELEASE = "readyForRelease"
RELEASED = "released"
REQUEST_TO_EXPIRE = "requestToExpire"
EXPIRED = "expired"

FIRST_VERSION = "0.1"
# States whose version is frozen: an update starts a new in-process version instead.
FROZEN_STATES = frozenset({RELEASED, REQUEST_TO_EXPIRE, EXPIRED})

APPROVE = "ApproveElement"
EDIT = "EditElement"


class Effect(Enum):
    NONE = "none"
    RELEASE = "release"  # new major version, previous released version expires
    REQUEST_EXPIRY = "requestExpiry"  # an "Approve expiry" task for the approvers
    EXPIRE = "expire"  # validUntil now, the expiry task is accepted
    KEEP_RELEASED = "keepReleased"  # expiry rejected, the task is declined


@dataclass(frozen=True, slots=True)
class Transition:
    transition_id: str
    source: str
    target: str
    effect: Effect = Effect.NONE

    @property
    def permission(self) -> str:
        """Moves into released or expired need approval; the others need edit rights."""
        return APPROVE if self.target in (RELEASED, EXPIRED) else EDIT


TRANSITIONS: tuple[Transition, ...] = (
    Transition("InProcessToInReview", IN_PROCESS, IN_REVIEW),
    Transition("InProcessToReadyForQA", IN_PROCESS, READY_FOR_QA),
    Transition("InProcessToReadyForRelease", IN_PROCESS, READY_FOR_RELEASE),
    Transition("InProcessToReleased", IN_PROCESS, RELEASED, Effect.RELEASE),
    Transition("InProcessToReleasedQA", IN_PROCESS, RELEASED, Effect.RELEASE),
    Transition("InProcessToReleasedExternal", IN_PROCESS, RELEASED, Effect.RELEASE),
    Transition("InReviewToInProcess", IN_REVIEW, IN_PROCESS),
    Transition("InReviewToReadyForQA", IN_REVIEW, READY_FOR_QA),
    Transition("ReadyForQAToInProcess", READY_FOR_QA, IN_PROCESS),
    Transition("ReadyForQAToReadyForRelease", READY_FOR_QA, READY_FOR_RELEASE),
    Transition("ReadyForReleaseToInProcess", READY_FOR_RELEASE, IN_PROCESS),
    Transition("ReadyForReleaseToReleased", READY_FOR_RELEASE, RELEASED, Effect.RELEASE),
    Transition("ReleasedToRequestToExpire", RELEASED, REQUEST_TO_EXPIRE, Effect.REQUEST_EXPIRY),
    Transition("RequestToExpireToExpired", REQUEST_TO_EXPIRE, EXPIRED, Effect.EXPIRE),
    Transition("RequestToExpireToReleased", REQUEST_TO_EXPIRE, RELEASED, Effect.KEEP_RELEASED),
)
_BY_ID = {t.transition_id.lower(): t for t in TRANSITIONS}


class UnknownTransition(LookupError):
    pass


class TransitionNotAllowed(Exception):
    pass


def find(transition_id: str) -> Transition:
    """The transition of that id (case-insensitive), or UnknownTransition."""
    try:
        return _BY_ID[transition_id.lower()]
    except KeyError:
        raise UnknownTransition(transition_id) from None


def allowed(state: str | None, permissions: frozenset[str]) -> list[Transition]:
    """Transitions that leave `state` and that a caller with `permissions` may run."""
    return [t for t in TRANSITIONS if t.source == state and t.permission in permissions]


def check(transition: Transition, state: str | None) -> Transition:
    """The transition itself when it starts from `state`, else TransitionNotAllowed."""
    if transition.source != state:
        raise TransitionNotAllowed(
            f"Transition {transition.transition_id} is not allowed from state {state!r}; "
            f"it starts from {transition.source!r}"
        )
    return transition


def released_version(current: str) -> str:
    """`0.1` → `1.0`, `1.1` → `2.0`: a release bumps the major number."""
    major, _minor = _parse(current)
    return f"{major + 1}.0"


def revision_version(released: str) -> str:
    """The in-process version started by updating a released one: `1.0` → `1.1`."""
    major, _minor = _parse(released)
    return f"{major}.1"


def _parse(version: str) -> tuple[int, int]:
    try:
        major, minor = version.split(".", 1)
        return int(major), int(minor)
    except ValueError:
        return 0, 1
