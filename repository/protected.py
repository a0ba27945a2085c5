"""The elements only the service itself and administrators may write (docs/contract.md,
"Authentication and permissions"): what the audit trail and the release workflow rest
on. No I/O here; `repository.store.guard` applies the rule on every write.

- Every element of facet `automation`: the access tokens (`authToken`, each the actor a
  token's writes name in createdBy, changedBy and relBy) and the tasks the release
  workflow opens ("Approve expiry", closed only by its transitions).
- Every element an audit link (createdBy, changedBy, relBy) points to: the actors of
  the audit trail. The service's own actors are tokens; a database brought from
  elsewhere may name users (`ACTOR_TYPES`), which then may not be renamed either.

"The service itself" is a write with no acting token (the command line: `elrepo token`,
`elrepo import`, the demo loader) or one the service makes on its own behalf (the release
workflow's tasks); over HTTP only a token of role `ADMINISTRATOR` may write them.
"""

from __future__ import annotations

from repository.errors import Forbidden

SERVICE_FACET = "automation"
AUDIT_CONTEXTS = frozenset({"createdBy", "changedBy", "relBy"})
#: Types outside the service facet that an older database may name as an actor: only
#: changes to these look up the audit links, so other writes pay nothing.
ACTOR_TYPES = frozenset({"user"})
ADMINISTRATOR = "administrator"


def may_write_protected(roles: frozenset[str]) -> bool:
    """Whether an actor holding tokens of these roles may write protected elements."""
    return ADMINISTRATOR in roles


def refusal(element: str, role: str) -> Forbidden:
    """The 403 for a caller of `role` (`the token's roles` spelled out) writing a
    protected element (`element` says which, or which kind)."""
    return Forbidden(f"{element} belongs to the audit trail or the release workflow: only "
                     f"the service and the {ADMINISTRATOR} role may create or change it, "
                     f"not the role {role!r}. Nothing was written")
