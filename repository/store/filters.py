"""`$filter`: a lark grammar and its compilation to SQLAlchemy expressions.

Both operator forms (docs/contract.md, "Query parameters") parse to the same tree
(`name -eq 'x'` and `name eq 'x'`). Keywords and function names are case-insensitive.
The result is a SQL condition on `Element`; attribute properties become IN sub-queries
on the newest version's attribute rows, so nothing is filtered in Python. Each sub-query
reads the rows of one tenant only (another tenant's millions of values must not slow
this one's filter): it names the tenant by the bound parameter `FILTER_TENANT`, which
`for_tenant` fills in; a condition used without it fails at execution, never reads
across tenants.

Words are separated by ASCII whitespace only (the grammar's WS); any other character
outside a string, Unicode whitespace included, is refused as unexpected (400).

String comparisons with eq/ne/in/lt... are exact; contains/startswith/endswith ignore
case, as users of a search box expect: `lower(value) LIKE pattern` decides on every
backend. On attribute values an index finds the candidates first: PostgreSQL's pg_trgm
index serves that LIKE as written; SQLite's FTS5 trigram table is asked for the rows
holding the needle (`_TextSearch`), a superset the LIKE then checks, so results stay the
same with or without the index. A needle shorter than a trigram scans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError
from sqlalchemy import (
    Boolean,
    ColumnElement,
    Integer,
    and_,
    bindparam,
    false,
    func,
    literal,
    not_,
    or_,
    select,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import aliased
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.selectable import Join
from sqlalchemy.sql.visitors import InternalTraversal, cloned_traverse

from repository.errors import InvalidInput
from repository.input_rules import parse_culture_id, parse_finite, parse_integer
from repository.store.models import (
    DIALECTS_WITH_TEXT_SEARCH,
    TRIGRAM,
    AttributeValue,
    Element,
    ElementVersion,
    text_search,
)

GRAMMAR = r"""
?start: disjunction
?disjunction: conjunction (_OR conjunction)*
?conjunction: negation (_AND negation)*
?negation: _NOT negation -> negate
         | primary
?primary: "(" disjunction ")"
        | comparison
        | membership
        | function_call
comparison: property COMPARE literal
membership: property _IN "(" literal ("," literal)* ")"
function_call: FUNCTION "(" property ("," literal)? ")"
property: NAME ("/" (NAME | CULTURE))*
literal: STRING -> string
       | NUMBER -> number
       | _TRUE -> true
       | _FALSE -> false
       | _NULL -> null

COMPARE.2: /-?(eq|ne|gt|ge|lt|le)(?![A-Za-z0-9_])/i
FUNCTION.2: /(contains|startswith|endswith|isnull)(?=\s*\()/i
_AND.2: /and(?![A-Za-z0-9_])/i
_OR.2: /or(?![A-Za-z0-9_])/i
_NOT.2: /not(?![A-Za-z0-9_])/i
_IN.2: /in(?![A-Za-z0-9_])/i
_TRUE.2: /true(?![A-Za-z0-9_])/i
_FALSE.2: /false(?![A-Za-z0-9_])/i
_NULL.2: /null(?![A-Za-z0-9_])/i
NAME: /[A-Za-z_][A-Za-z0-9_]*/
STRING: /'(?:[^']|'')*'/
NUMBER: /-?[0-9]+(\.[0-9]+)?/
CULTURE: /[0-9]+/
%import common.WS
%ignore WS
"""

_PARSER = Lark(GRAMMAR, parser="lalr")
MAX_FILTER_LENGTH = 8000
# Deep enough for any hand-written filter, shallow enough for every SQL parser.
MAX_FILTER_DEPTH = 64
# Comparisons, function calls and `in` lists (one each, however long the list). Each may
# be a sub-query: PostgreSQL's planning time explodes with many of them joined by `and`
# (measured on the test tenant: 64 take 0.35 s, 128 take 4.5 s, 200 take 43 s).
MAX_FILTER_COMPARISONS = 32
_COMPARISONS = frozenset({"comparison", "membership", "function_call"})
_TEXT_FUNCTIONS = {"contains", "startswith", "endswith"}


@dataclass(frozen=True, slots=True)
class Property:
    """`id`/`type`/`state`/`facetName`, or an attribute (culture None: any culture)."""

    name: str
    culture: int | None = None
    is_attribute: bool = True


# The tenant whose attribute rows a filter's sub-queries read (`for_tenant`).
FILTER_TENANT = "filter_tenant_pk"
_TENANT_PK = bindparam(FILTER_TENANT, type_=Integer, required=True)
# Up to this many elements, a filter reads the tenant's values rather than look the
# matching values up in an index (`_TenantRows`): at most ~15 ms per comparison on SQLite
# (1.5 us per element), however many rows other tenants hold.
SMALL_TENANT = 10_000
# The sub-queries' own view of the tables: never correlated with the outer query's.
_OWNER = aliased(Element, name="filter_owner")


@dataclass(frozen=True, slots=True)
class Target:
    """The columns a filter reads: the newest version of elements by default, or each
    version's own (versions endpoint). `correlated`: for a query of a few rows (one
    element, one element's versions), each sub-query reads the rows of its outer row's
    version alone."""

    version_pk: Any = Element.current_version_pk
    state: Any = Element.state
    correlated: bool = False

    def column(self, name: str) -> Any:
        return {"id": Element.id, "type": Element.type, "state": self.state,
                "facetname": Element.facet}[name]


ELEMENTS = Target()
ONE_ELEMENT = Target(correlated=True)
VERSIONS = Target(version_pk=ElementVersion.pk, state=ElementVersion.state, correlated=True)
_ELEMENT_PROPERTIES = frozenset({"id", "type", "state", "facetname"})


def compile_filter(text: str, target: Target = ELEMENTS) -> ColumnElement[bool]:
    """The SQL condition for a `$filter` value, or InvalidInput naming the problem."""
    if len(text) > MAX_FILTER_LENGTH:
        raise InvalidInput(f"$filter is longer than {MAX_FILTER_LENGTH} characters")
    try:
        tree = _PARSER.parse(text)
    except UnexpectedEOF:
        raise _invalid(text, "the expression ends too early", len(text)) from None
    except UnexpectedCharacters as error:
        position = _position(error, text)
        raise _invalid(text, _unexpected_text(text, position), position) from None
    except UnexpectedInput as error:
        token = getattr(error, "token", None)
        if token is None or token.type == "$END":
            raise _invalid(text, "the expression ends too early", len(text)) from None
        raise _invalid(text, f"unexpected {str(token)!r}", _position(error, text)) from None
    depth, comparisons = _measure(tree)
    if depth > MAX_FILTER_DEPTH:
        raise InvalidInput(f"$filter is nested more than {MAX_FILTER_DEPTH} levels deep")
    if comparisons > MAX_FILTER_COMPARISONS:
        raise InvalidInput(f"$filter holds {comparisons} comparisons; at most "
                           f"{MAX_FILTER_COMPARISONS} (an `in` list counts as one)")
    try:
        return _Compiler(target).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, InvalidInput):
            raise error.orig_exc from None
        raise


def _measure(tree: Tree[Token]) -> tuple[int, int]:
    """Nesting depth and number of comparisons, counted without recursion (the tree may
    be arbitrarily deep)."""
    deepest = comparisons = 0
    stack: list[tuple[Tree[Token] | Token, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, Tree):
            comparisons += node.data in _COMPARISONS
            stack.extend((child, depth + 1) for child in node.children)
    return deepest, comparisons


def for_tenant(condition: ColumnElement[bool], tenant_pk: int, *,
               large: bool = False) -> ColumnElement[bool]:
    """`compile_filter`'s condition (a copy) with its sub-queries limited to the tenant;
    `large`: the tenant has more than SMALL_TENANT elements (`_TenantRows`)."""
    def name_tenant(parameter: BindParameter[Any]) -> None:
        if parameter.key == FILTER_TENANT:
            parameter.value, parameter.required = tenant_pk, False

    def size_tenant(rows: _TenantRows) -> None:
        rows.large_tenant = large
    limited: ColumnElement[bool] = cloned_traverse(
        condition, {}, {"bindparam": name_tenant, "tenant_rows": size_tenant})
    return limited


def _unexpected_text(text: str, position: int) -> str:
    """The word at `position`, or the character, when it is one the grammar does not
    take as whitespace but `str.split` does (Unicode whitespace, U+001C...)."""
    rest = text[position:]
    if not rest:
        return "the expression ends too early"
    if rest[0].isspace() or not rest[0].isprintable():
        return (f"unexpected character U+{ord(rest[0]):04X} (words are separated by "
                "spaces, tabs or line breaks)")
    return f"unexpected {rest.split(maxsplit=1)[0]!r}"


def _position(error: UnexpectedInput, text: str) -> int:
    pos = getattr(error, "pos_in_stream", None)
    return len(text) if pos is None or pos < 0 else pos


def _invalid(text: str, problem: str, position: int) -> InvalidInput:
    detail = f"Invalid $filter at position {position + 1}: {problem}"
    return InvalidInput(detail, [detail, f"$filter was: {text}"])


@v_args(inline=True)
class _Compiler(Transformer[Token, ColumnElement[bool]]):
    def __init__(self, target: Target) -> None:
        super().__init__()
        self.target = target

    def disjunction(self, *parts: ColumnElement[bool]) -> ColumnElement[bool]:
        return or_(*parts)

    def conjunction(self, *parts: ColumnElement[bool]) -> ColumnElement[bool]:
        return and_(*parts)

    def negate(self, inner: ColumnElement[bool]) -> ColumnElement[bool]:
        return not_(inner)

    def property(self, *names: Token) -> Property:
        parts = [str(n) for n in names]
        if len(parts) == 1:
            key = parts[0].lower()
            if key in _ELEMENT_PROPERTIES:
                return Property(key, is_attribute=False)
            return Property(parts[0])
        if len(parts) == 3 and parts[0].lower() == "attributes":
            return Property(parts[1], parse_culture_id(parts[2], "$filter"))
        raise InvalidInput(
            f"Invalid $filter property {'/'.join(parts)!r}: use id, type, state, facetName, "
            "an attribute name or attributes/<name>/<culture>"
        )

    def string(self, token: Token) -> str:
        return str(token)[1:-1].replace("''", "'")

    def number(self, token: Token) -> float:
        """Compared with the stored double, after the range checks of every number."""
        text = str(token)
        if "." in text:
            return parse_finite(text, "$filter")
        return float(parse_integer(text, "$filter"))

    def true(self) -> bool:
        return True

    def false(self) -> bool:
        return False

    def null(self) -> None:
        return None

    def comparison(self, prop: Property, operator: Token, value: Any) -> ColumnElement[bool]:
        op = str(operator).lower().lstrip("-")
        if value is None:
            if op not in ("eq", "ne"):
                raise InvalidInput(f"Invalid $filter: operator {str(operator)!r} cannot compare "
                                   "with null; use eq or ne")
            missing = _is_missing(self.target, prop)
            return missing if op == "eq" else not_(missing)
        if op == "ne":
            return not_(_matches(self.target, prop, "eq", value))
        return _matches(self.target, prop, op, value)

    def membership(self, prop: Property, *values: Any) -> ColumnElement[bool]:
        """One SQL IN per kind of value, not one condition per value: a long list stays
        one comparison (and one sub-query) deep."""
        texts = [v for v in values if isinstance(v, str)]
        if not prop.is_attribute:
            return self.target.column(prop.name).in_(texts) if texts else false()
        texts += ["true" if v else "false" for v in values if isinstance(v, bool)]
        numbers = [v for v in values if isinstance(v, float)]
        conditions = []
        if texts:
            conditions.append(AttributeValue.value_text.in_(texts))
        if numbers:
            conditions.append(AttributeValue.value_num.in_(numbers))
        if not conditions:  # only nulls: no value equals null
            return false()
        return _attribute_exists(self.target, prop, or_(*conditions))

    def function_call(
        self, function: Token, prop: Property, value: Any = None
    ) -> ColumnElement[bool]:
        name = str(function).lower()
        if name == "isnull":
            if value is not None:
                raise InvalidInput("Invalid $filter: isnull takes one argument, a property")
            return _is_missing(self.target, prop)
        if not isinstance(value, str):
            raise InvalidInput(f"Invalid $filter: {str(function)} needs a property and a "
                               "string, as in contains(name, 'order')")
        return _matches(self.target, prop, name, value)


def _matches(target: Target, prop: Property, op: str, value: Any) -> ColumnElement[bool]:
    if not prop.is_attribute:
        if not isinstance(value, str):
            return false()
        return _condition(target.column(prop.name), op, value)
    if isinstance(value, bool):
        return _attribute_exists(
            target, prop, _condition(AttributeValue.value_text, op, "true" if value else "false"))
    if isinstance(value, float):
        if op in _TEXT_FUNCTIONS:
            raise InvalidInput(f"Invalid $filter: {op} needs a string")
        return _attribute_exists(target, prop, _condition(AttributeValue.value_num, op, value))
    condition = _condition(AttributeValue.value_text, op, value)
    if op not in _TEXT_FUNCTIONS:
        return _attribute_exists(target, prop, condition)
    if len(value.lower()) < TRIGRAM:  # no index finds these rows: the tenant's are read
        return _attribute_exists(target, prop, condition, indexed=False)
    return _attribute_exists(target, prop, condition,
                             value_first_condition=_TextSearch(condition, value.lower()))


def _condition(column: Any, op: str, value: Any) -> ColumnElement[bool]:
    if op in _TEXT_FUNCTIONS:
        lowered = func.lower(column)
        needle = str(value).lower()
        if op == "contains":
            return lowered.contains(needle, autoescape=True)
        if op == "startswith":
            return lowered.startswith(needle, autoescape=True)
        return lowered.endswith(needle, autoescape=True)
    conditions: dict[str, ColumnElement[bool]] = {
        "eq": column == value,
        "gt": column > value,
        "ge": column >= value,
        "lt": column < value,
        "le": column <= value,
    }
    return conditions[op]


class _TextSearch(ColumnElement[bool]):
    """A contains/startswith/endswith `condition` on attribute values: as it is, except on a
    SQLite database with the trigram table, where the table first finds the attribute
    rows whose value holds `needle` (in any case)."""

    type = Boolean()
    # A condition, not a boolean value: SQLite's plan must see its `pk IN (...)`, which
    # the `= 1` SQLAlchemy adds to a boolean value would hide from it.
    _is_implicitly_boolean = True
    inherit_cache = True
    _traverse_internals = [("condition", InternalTraversal.dp_clauseelement),
                           ("phrase", InternalTraversal.dp_clauseelement)]

    def __init__(self, condition: ColumnElement[bool], needle: str) -> None:
        self.condition = condition
        # An FTS5 string (double quotes doubled): every character literal, none an operator.
        self.phrase = literal('"' + needle.replace('"', '""') + '"')


@compiles(_TextSearch)
def _compile_text_search(element: _TextSearch, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.condition, **kw)


@compiles(_TextSearch, "sqlite")
def _compile_sqlite_text_search(element: _TextSearch, compiler: SQLCompiler, **kw: Any) -> str:
    if compiler.dialect not in DIALECTS_WITH_TEXT_SEARCH:
        return compiler.process(element.condition, **kw)
    candidates = AttributeValue.pk.in_(select(text_search.c.rowid).where(
        text_search.c.value_text.match(element.phrase)))
    return compiler.process(and_(candidates, element.condition).self_group(), **kw)


def _is_missing(target: Target, prop: Property) -> ColumnElement[bool]:
    if not prop.is_attribute:
        return target.column(prop.name).is_(None)  # type: ignore[no-any-return]
    return not_(_attribute_exists(target, prop, indexed=False))


def _attribute_exists(target: Target, prop: Property,
                      value_condition: ColumnElement[bool] | None = None, *,
                      value_first_condition: ColumnElement[bool] | None = None,
                      indexed: bool = True) -> ColumnElement[bool]:
    """A value of the attribute on the target version (matching `value_condition`, if
    given), read from the rows of the tenant's versions alone.

    For elements, an uncorrelated IN sub-query rather than a correlated EXISTS: the
    database evaluates it once instead of once per element. `_TenantRows` holds it in two
    forms, the tenant's versions read first or the matching values (through an index,
    with `value_first_condition` in place of `value_condition` where given); `indexed`
    false: no index finds the values, so the second form is never better. A correlated
    target's sub-query reads the rows of its outer row's version alone."""
    def named(name: Any) -> list[ColumnElement[bool]]:
        conditions = [name == prop.name]
        if prop.culture is not None:
            conditions.append(AttributeValue.culture == prop.culture)
        return conditions
    if target.correlated:
        return target.version_pk.in_(select(AttributeValue.version_pk).where(  # type: ignore[no-any-return]
            AttributeValue.version_pk == target.version_pk, *named(AttributeValue.name),
            *([] if value_condition is None else [value_condition])))

    def rows(condition: ColumnElement[bool] | None, *, owner_first: bool) -> ColumnElement[bool]:
        versions = (_OwnerFirst if owner_first else Join)(
            _OWNER, AttributeValue, _OWNER.current_version_pk == AttributeValue.version_pk)
        # Owner first, each version's values are found by its pk, not by scanning an
        # index of the name's values (every tenant's) once per version.
        name = _NoIndex(AttributeValue.name) if owner_first else AttributeValue.name
        return target.version_pk.in_(  # type: ignore[no-any-return]
            select(AttributeValue.version_pk).select_from(versions).where(
                _OWNER.tenant_pk == _TENANT_PK, *named(name),
                *([] if condition is None else [condition])))

    owner_first = rows(value_condition, owner_first=True)
    if not indexed:
        return owner_first
    return _TenantRows(owner_first, rows(value_first_condition if value_first_condition
                                         is not None else value_condition, owner_first=False))


class _TenantRows(ColumnElement[bool]):
    """One attribute condition in two forms, compiled as `owner_first` (the tenant's
    versions read first: its cost follows the tenant's size alone) unless `for_tenant`
    found the tenant larger than SMALL_TENANT, where an index on the values is the better
    start (`value_first`: reads the values matching in any tenant, then keeps the tenant's).
    """

    __visit_name__ = "tenant_rows"
    type = Boolean()
    _is_implicitly_boolean = True
    inherit_cache = True
    _traverse_internals = [("owner_first", InternalTraversal.dp_clauseelement),
                           ("value_first", InternalTraversal.dp_clauseelement),
                           ("large_tenant", InternalTraversal.dp_boolean)]

    def __init__(self, owner_first: ColumnElement[bool], value_first: ColumnElement[bool]) -> None:
        self.owner_first = owner_first
        self.value_first = value_first
        self.large_tenant = False


@compiles(_TenantRows)
def _compile_tenant_rows(element: _TenantRows, compiler: SQLCompiler, **kw: Any) -> str:
    chosen = element.value_first if element.large_tenant else element.owner_first
    return compiler.process(chosen, **kw)


class _NoIndex(ColumnElement[Any]):
    """A column SQLite looks up through no index (its unary `+`); elsewhere as it is."""

    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: Any) -> None:
        self.column = column
        self.type = column.type


@compiles(_NoIndex)
def _compile_no_index(element: _NoIndex, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.column, **kw)


@compiles(_NoIndex, "sqlite")
def _compile_sqlite_no_index(element: _NoIndex, compiler: SQLCompiler, **kw: Any) -> str:
    return "+" + compiler.process(element.column, **kw)


class _OwnerFirst(Join):
    """A join SQLite runs in its written order (its CROSS JOIN): the tenant's newest
    versions first, then their values by primary key. SQLite's statistics are one figure
    per index, so its planner cannot tell a small tenant from a large one by itself."""

    inherit_cache = True


@compiles(_OwnerFirst, "sqlite")
def _compile_owner_first(join: _OwnerFirst, compiler: SQLCompiler, **kw: Any) -> str:
    # The left side is one aliased table: the first JOIN is this one.
    rendered: str = compiler.visit_join(join, **kw)  # type: ignore[no-untyped-call]
    return rendered.replace(" JOIN ", " CROSS JOIN ", 1)


__all__ = ["ELEMENTS", "FILTER_TENANT", "ONE_ELEMENT", "SMALL_TENANT", "VERSIONS", "Target", "compile_filter",
           "for_tenant"]
