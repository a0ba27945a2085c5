"""schemathesis hooks (its `hooks` setting): what the OpenAPI document cannot say, for
the requests schemathesis generates as valid.

/openapi.json holds every rule on a single value (patterns, lengths, ranges, enums);
these rules relate a value to others or to the stored data, so the document leaves them
to the server (400 or 404 naming them), and a request generated as valid must keep them
to be one:
- `$filter` has the format `elrepo-filter`, the grammar of docs/service.md: drawn here
  from that grammar (comparisons, `in` lists, functions, and/or/not, parentheses);
- an update's `count` is the length of its list, its elements' `facetName` the path's
  facet, the ids it names exist, a new element's type belongs to the facet, and
  If-Match goes with a body of exactly one existing element: valid cases become
  creates of elements of the facet's types (ids, links and If-Match dropped);
- a content create's indices are 0..n-1 in list order and predecessors name other items
  of the list; shapes and elements named by id exist: valid cases get their indices
  renumbered, predecessors kept within the list, and only new elements of known types;
- the change feed's `cursor` names a position the feed handed out (an opaque string; any
  other is a 400): valid cases read from the oldest event, without one;
- a transition's `comment` goes only with a transition into released (else a 400):
  valid cases are sent without it.
Cases generated as invalid are sent as generated.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import schemathesis
from hypothesis import strategies as st
from schemathesis.generation.modes import GenerationMode

from repository import catalog, openapi
from repository.api.parameters import FILTER, FILTER_FORMAT
from repository.errors import InvalidInput
from repository.store.filters import compile_filter

_PROPERTIES = ("id", "type", "state", "facetName", "name", "description", "priority",
               "attributes/name/1033", "attributes/description/1031")
_OPERATORS = ("eq", "ne", "gt", "ge", "lt", "le", "-eq", "-ne")
_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)
_STRING_LITERALS = _TEXT.map(lambda text: "'" + text.replace("'", "''") + "'")
_NUMBER_LITERALS = st.one_of(st.integers(-10**12, 10**12).map(str),
                             st.decimals(-10**6, 10**6, places=3, allow_nan=False,
                                         allow_infinity=False).map(str))
_LITERALS = st.one_of(_STRING_LITERALS, _NUMBER_LITERALS,
                      st.sampled_from(("true", "false", "null", "TRUE", "Null")))
_PROPERTY = st.sampled_from(_PROPERTIES)
_SPACE = st.sampled_from((" ", "  ", "\t"))


@st.composite
def _comparison(draw: st.DrawFn) -> str:
    name = draw(_PROPERTY)
    kind = draw(st.sampled_from(("compare", "in", "text", "isnull")))
    if kind == "in":
        items = draw(st.lists(st.one_of(_STRING_LITERALS, _NUMBER_LITERALS),
                              min_size=1, max_size=4))
        return f"{name} in ({', '.join(items)})"
    if kind == "text":
        function = draw(st.sampled_from(("contains", "startswith", "endswith", "Contains")))
        return f"{function}({name}, {draw(_STRING_LITERALS)})"
    if kind == "isnull":
        return f"isnull({name})"
    operator = draw(st.sampled_from(_OPERATORS))
    literal = draw(_LITERALS)
    if literal.lower() == "null" and operator.lstrip("-") not in ("eq", "ne"):
        operator = "eq"
    return f"{name}{draw(_SPACE)}{operator}{draw(_SPACE)}{literal}"


@st.composite
def _expression(draw: st.DrawFn, depth: int = 0) -> str:
    terms = [draw(_comparison()) if depth >= 2 or draw(st.booleans())
             else "(" + draw(_expression(depth + 1)) + ")"
             for _ in range(draw(st.integers(1, 3)))]
    joined = terms[0]
    for term in terms[1:]:
        joined += f" {draw(st.sampled_from(('and', 'or', 'AND', 'Or')))} {term}"
    return ("not " + joined) if draw(st.integers(0, 4)) == 0 and len(terms) == 1 else joined


FILTERS = _expression()
VALID_FILTER = "id ne ''"
schemathesis.openapi.format(FILTER_FORMAT, FILTERS)


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE:
        return
    _keep_to_the_document(case)
    path = case.operation.path
    if path.endswith("/changes") and case.query:
        case.query.pop("cursor", None)
    if path.endswith("/transitions/{transitionId}") and case.query:
        case.query.pop("comment", None)
    if case.operation.method.upper() != "POST" or not isinstance(case.body, dict):
        return
    if path.endswith("/views/{viewId}/elements"):
        _valid_update(case)
    elif path.endswith("/elements/{elementId}/content"):
        _valid_content(case)


def _keep_to_the_document(case: Any) -> None:
    """The coverage phase draws its edge values without the `elrepo-filter` format, and
    (schemathesis 4.32) sometimes a header value its pattern refuses ("If-Match: 0"): a
    `$filter` the grammar refuses becomes a valid one, any other query or header value
    the document refuses is left out, so a case sent as valid is one."""
    for location, name, validator in _parameters(case.operation.path,
                                                 case.operation.method.lower()):
        values = case.query if location == "query" else case.headers
        value = (values or {}).get(name)
        if value is None:
            continue
        if name == FILTER.name and not _is_filter(str(value)):
            values[name] = VALID_FILTER
        elif not validator.is_valid(value):
            del values[name]


@cache
def _parameters(path: str, method: str) -> list[tuple[str, str, Any]]:
    """(location, name, schema validator) of the operation's query and header
    parameters."""
    document = openapi.document()
    found = []
    for reference in document["paths"][path][method]["parameters"]:
        parameter = document["components"]["parameters"][reference["$ref"].rpartition("/")[2]]
        if parameter["in"] in ("query", "header"):
            found.append((parameter["in"], parameter["name"],
                          jsonschema.Draft202012Validator(parameter["schema"])))
    return found


def _is_filter(text: str) -> bool:
    """Whether the grammar takes `text`; any other error the server answers itself (so
    a 500 of the parser is found, not hidden)."""
    try:
        compile_filter(text)
    except InvalidInput:
        return False
    except Exception:  # the server's answer shows it
        return True
    return True


def _valid_update(case: Any) -> None:
    facet = catalog.FACETS.get(case.path_parameters.get("facetId", ""))
    types = facet.types if facet is not None else ()
    elements = case.body.get("elements")
    if not isinstance(elements, list):
        return
    created = []
    for position, element in enumerate(elements):
        if not isinstance(element, dict) or not types:
            continue
        for name in ("id", "versionId", "related", "children", "content"):
            element.pop(name, None)
        element["type"] = types[position % len(types)]
        if element.get("facetName") is not None:
            element["facetName"] = facet.name if facet is not None else None
        created.append(element)
    case.body["elements"] = created
    if case.body.get("count") is not None:
        case.body["count"] = len(created)
    if case.headers:
        case.headers.pop("If-Match", None)


def _valid_content(case: Any) -> None:
    values = case.body.get("values")
    if not isinstance(values, list):
        return
    known_type = catalog.FACETS["processes"].types[0]
    for position, item in enumerate(values):
        info = item.get("shapeInfo") if isinstance(item, dict) else None
        if not isinstance(info, dict):
            continue
        info["index"] = position
        predecessors = info.get("predecessors")
        if isinstance(predecessors, list):
            info["predecessors"] = [p for p in predecessors
                                    if isinstance(p, int) and p != position and p < len(values)]
        info.pop("id", None)
        element = item.get("element")
        element = element if isinstance(element, dict) else {}
        element.pop("id", None)
        element.pop("related", None)
        if catalog.facet_of_type(str(element.get("type")), "processes") is None:
            element["type"] = known_type
        item["element"] = element
