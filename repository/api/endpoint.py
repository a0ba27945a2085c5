"""One declaration per endpoint. `Resource.endpoint` decorates an endpoint function and,
from that one declaration, (a) registers its Flask rules on the resource's blueprint,
(b) runs the prelude every endpoint shares and hands the function what it needs, and
(c) keeps the operation that repository/openapi.py turns into /openapi.json.

The prelude, in the contract's order (docs/contract.md, "Authentication and permissions"):
api-version (400), the token (401), the tenant (403 for any tenant but the token's,
existing or not), the permission (403), the path's facet and view (404): all from the
request's head, on a read-only session, before any byte of the body is read, so a caller
without a valid token costs no body transfer, no parsing and no write lock. Only then is
a declared body read and parsed (its refusal waits until the function calls it, see
common.checked_body), and only after that does a writing request take its write session
(the write lock). The function then receives the `TenantRequest` positionally and the
other path parameters as keywords, `facet` as its `catalog.Facet`, a declared body as
`body`. Endpoints of the service itself (maintenance) check api-version and the service
token and receive the request's session.

Why our own decorator and not apispec or flask-smorest: flask-smorest parses arguments
and bodies with marshmallow/webargs and answers their refusals itself (422 and its own
error body), which would change the wire: the contract's error envelope, its messages
and its order of checks (body read before the lock but refused after the tenant check).
apispec only writes the document; it would still need our schemas as dicts or
marshmallow classes, and our parameters, prelude and rule registration written beside
it, so every endpoint would again be described in two places. The service's needs (one
prelude, a dozen shared parameters, dict schemas it already has) fit in this module with
no new dependency, and the document stays exactly what the endpoints do.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Blueprint, current_app, request
from flask.typing import ResponseReturnValue
from sqlalchemy.orm import Session

from interchange.ids import UniqueIds
from repository import auth
from repository.api.common import (
    TenantRequest,
    check_api_version,
    check_facet,
    checked_body,
)
from repository.api.parameters import PATH, Parameter
from repository.api.session import READ_METHODS, end_request_session, request_session
from repository.front_door import SERVICE_TOKEN_GUARD
from repository.store import Store

View = TypeVar("View", bound=Callable[..., ResponseReturnValue])
SERVICE_TOKEN_HEADER = "service-auth-token"
_RULE_VARIABLE = re.compile(r"<([^<>]+)>")


@dataclass(frozen=True, slots=True)
class Answer:
    """The success answer: a schema under #/components/schemas, its media type, and the
    response headers (under #/components/headers) it carries."""
    schema: str
    media: str = "application/json"
    headers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Body:
    """A request body: the parser that checks it, the schema that describes it."""
    parse: Callable[[Any], object]
    schema: str


@dataclass(frozen=True, slots=True)
class Declaration:
    methods: tuple[str, ...]
    rules: tuple[str, ...]  # Flask rules; their variables are keys of parameters.PATH
    summary: str
    api_version: str
    answer: Answer
    permission: str  # what the tenant's caller needs (service endpoints: unused)
    service: bool  # the service token instead of a tenant and its caller
    parameters: tuple[Parameter, ...]  # query and header parameters
    body: Body | None
    view: str | None  # the view a rule fixes in its path (content create: diagram)
    # Whether a request takes the write lock: True even on GET, False never (a POST that
    # only reads: a viewer must not queue every tenant's writes), None by its method.
    writes: bool | None
    deadline: bool  # runs under a deadline (503 past it)

    def path_parameters(self, rule: str) -> list[Parameter]:
        return [_path_parameter(rule, variable) for variable in _RULE_VARIABLE.findall(rule)]

    def openapi_path(self, rule: str) -> str:
        """The rule with OpenAPI's `{name}` for each Flask `<variable>`."""
        return _RULE_VARIABLE.sub(lambda m: "{" + _path_parameter(rule, m[1]).name + "}", rule)

    def writes_on(self, method: str) -> bool:
        return self.writes if self.writes is not None else method not in READ_METHODS


def _path_parameter(rule: str, variable: str) -> Parameter:
    if variable not in PATH:
        raise ValueError(f"Rule {rule!r}: variable <{variable}> is not in parameters.PATH")
    return PATH[variable]


class Resource:
    """One blueprint and the declarations of its endpoints. `error_schema` names the
    schema of its refusals (the render endpoint's have no `output`)."""

    def __init__(self, name: str, import_name: str, *, error_schema: str = "Error") -> None:
        self.blueprint = Blueprint(name, import_name)
        self.error_schema = error_schema
        self.declarations: list[Declaration] = []
        # Flask's endpoint names; a function declared twice (two summaries) gets two
        # (`name`, `name_2`), numbered as a BPMN document's ids are.
        self._names = UniqueIds()

    def endpoint(self, methods: str | tuple[str, ...], rules: str | tuple[str, ...], *,
                 summary: str, api_version: str, answer: str | Answer,
                 permission: str = auth.SHOW, service: bool = False,
                 parameters: tuple[Parameter, ...] = (), body: Body | None = None,
                 view: str | None = None, writes: bool | None = None,
                 deadline: bool = False) -> Callable[[View], View]:
        declaration = Declaration(
            methods=(methods,) if isinstance(methods, str) else methods,
            rules=(rules,) if isinstance(rules, str) else rules,
            summary=summary, api_version=api_version,
            answer=Answer(answer) if isinstance(answer, str) else answer,
            permission=permission, service=service, parameters=parameters, body=body,
            view=view, writes=writes, deadline=deadline)
        for rule in declaration.rules:
            declaration.path_parameters(rule)  # an unknown variable fails at import

        def register(function: View) -> View:
            self.declarations.append(declaration)
            view_function = _with_prelude(declaration, function)
            name = self._names.new(function.__name__)
            for rule in declaration.rules:
                self.blueprint.add_url_rule(rule, name, view_function,
                                            methods=list(declaration.methods))
            return function
        return register


def _with_prelude(declaration: Declaration,
                  function: Callable[..., ResponseReturnValue]) -> Callable[..., Any]:
    @functools.wraps(function)
    def view(**path: Any) -> ResponseReturnValue:
        if declaration.service:
            db = _service_session(declaration)
            if declaration.body is not None:
                path["body"] = checked_body(declaration.body.parse)
            return function(db, **path)
        return function(_tenant_request(declaration, path), **path)
    return view


def _tenant_request(declaration: Declaration, path: dict[str, Any]) -> TenantRequest:
    """Checks in the contract's order; takes the tenant's ids out of `path` and puts the
    checked `catalog.Facet` in for its name, and the parsed body (if one is declared)."""
    check_api_version(declaration.api_version)
    collection_id, storage_id = path.pop("collection_id"), path.pop("storage_id")
    caller, tenant = auth.authorise(request_session(write=False), request.headers.get("Authorization"),
                                    collection_id, storage_id, declaration.permission)
    if "facet" in path:
        path["facet"] = check_facet(path["facet"], path.get("view", declaration.view))
    if declaration.body is not None:
        # A body may take long to arrive: no pooled connection, no open transaction
        # waits for it (the checks' read session ends here).
        end_request_session()
        path["body"] = checked_body(declaration.body.parse)
    store = Store(_endpoint_session(declaration), tenant,
                  current_app.extensions["elrepo.listing_positions"])
    return TenantRequest(store, caller, f"/{collection_id}/{storage_id}")


def _service_session(declaration: Declaration) -> Session:
    check_api_version(declaration.api_version)
    current_app.extensions[SERVICE_TOKEN_GUARD].check(
        request.headers.get(SERVICE_TOKEN_HEADER))
    return _endpoint_session(declaration)


def _endpoint_session(declaration: Declaration) -> Session:
    """The session the endpoint works in. A writing request ends the read session its
    checks used and opens its write session only now, so the write lock is taken once
    the head passed every check and the body is in."""
    return request_session(write=declaration.writes_on(request.method))
