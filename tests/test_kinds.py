"""Every element kind (``renderer/kinds.py``) is complete everywhere it must be.

An element type is added by adding its row to ``renderer.kinds.KINDS``; each test here
fails with the file and the name to edit when some other place does not know it yet
(docs/architecture.md, "Adding an element type").
"""
from __future__ import annotations

import ast
from collections.abc import Mapping

import pytest

from interchange.export import ACTIVITIES, DEFAULT_TAGS
from interchange.reader import DATA_TAGS, SHAPE_TYPES
from layouts.geometry import Box
from renderer import names as renderer_names
from renderer.culture import ENGLISH, GERMAN, Cultures
from renderer.flow import flow_graph
from renderer.kinds import KINDS, Kind
from renderer.measure import measure_shape
from renderer.model import KNOWN_TYPES, parse_diagram
from renderer.names import type_name
from renderer.scene import ShapeView
from renderer.symbols import SHAPE_SYMBOLS, symbol_for
from renderer.text import load_font
from repository import catalog
from tests.conftest import ROOT

ALL = sorted(KINDS)
DRAWN = sorted(key for key, kind in KINDS.items() if kind.symbol is not None)


def one_shape_each(kinds: list[Kind]) -> dict[str, object]:
    """A diagram fixture with one shape of each of ``kinds``, in a chain."""
    values = [{"shapeInfo": {"index": index, "predecessors": [index - 1] if index else []},
               "element": {"type": kind.key, "attributes": {"name": {"1033": kind.key}}}}
              for index, kind in enumerate(kinds)]
    return {"diagram": {"id": "d", "type": "mainProcess"}, "elements": [], "values": values}


@pytest.mark.parametrize("key", ALL)
def test_a_kind_has_a_name_in_every_culture(key: str) -> None:
    kind = KINDS[key]
    assert kind.key == key, f"renderer/kinds.py: the row of {key!r} is filed under another key"
    for culture in (GERMAN, ENGLISH):
        assert kind.names.get(culture), f"renderer/kinds.py: give {key!r} a name in culture {culture}"
        assert type_name(key, Cultures(culture, culture)) == kind.names[culture]


@pytest.mark.parametrize("key", ALL)
def test_a_kind_is_in_the_catalog(key: str) -> None:
    assert any(key in facet.types for facet in catalog.FACETS.values()), \
        f"repository/catalog.py: put {key!r} in the types of a Facet in FACETS (the service files elements by facet)"
    element_type = catalog.TYPES[key]
    assert (element_type.color, element_type.display_names) == (KINDS[key].color, dict(KINDS[key].names))


def test_the_catalog_names_no_type_that_is_not_a_kind() -> None:
    named = {t for facet in catalog.FACETS.values() for t in facet.types}
    named |= set(catalog.TYPE_RELATED) | set(catalog.TYPE_SELECTIONS)
    named |= {t for _, types in catalog.RELATED_TARGETS.values() for t in types}
    assert named <= set(KINDS), \
        f"repository/catalog.py names {sorted(named - set(KINDS))}: add their rows to renderer/kinds.py KINDS"


@pytest.mark.parametrize("key", ALL)
def test_a_diagram_takes_exactly_the_drawable_kinds(key: str) -> None:
    assert (key in KNOWN_TYPES) == KINDS[key].drawable, "renderer/model.py KNOWN_TYPES derives from Kind.drawable"
    kind = KINDS[key]
    assert kind.drawable or not (kind.symbol or kind.is_start or kind.pointed or kind.work), \
        f"renderer/kinds.py: {key!r} is drawn (symbol, is_start, pointed, work) but not drawable"


@pytest.mark.parametrize("key", DRAWN)
def test_a_kind_with_a_symbol_is_drawn_with_it(key: str) -> None:
    symbol = KINDS[key].symbol
    assert symbol in SHAPE_SYMBOLS, \
        f"renderer/symbols.py: add a drawer for the symbol {symbol!r} of {key!r} to SHAPE_SYMBOLS"
    drawn = symbol_for(ShapeView("s", "e", key), Box(0.0, 0.0, 120.0, 60.0), 14.0, 12.0)
    assert drawn.kind == symbol, f"renderer/symbols.py: SHAPE_SYMBOLS[{symbol!r}] must draw a Symbol of kind {symbol!r}"


@pytest.mark.parametrize("key", DRAWN)
def test_a_kind_with_a_symbol_is_documented(key: str) -> None:
    table = (ROOT / "docs" / "svg.md").read_text(encoding="utf-8").split("## Symbols", 1)[1]
    assert f"| `{key}` |" in table, f"docs/svg.md: describe the symbol of {key!r} in the table under 'Symbols'"


def test_every_symbol_of_shapes_belongs_to_a_kind() -> None:
    unused = set(SHAPE_SYMBOLS) - {kind.symbol for kind in KINDS.values()}
    assert not unused, f"renderer/symbols.py SHAPE_SYMBOLS draws {sorted(unused)} for no kind of renderer/kinds.py"


@pytest.mark.parametrize("key", sorted(key for key, kind in KINDS.items() if kind.symbol_size is not None))
def test_a_symbol_of_fixed_size_is_measured_so(key: str) -> None:
    size = KINDS[key].symbol_size
    measured = measure_shape(key, "A label", load_font())
    assert (measured.width, measured.height) == (size, size), "renderer/measure.py reads Kind.symbol_size"
    assert measured.lines and measured.label_width > 0, "the label of a fixed-size symbol goes beside it"


def test_the_flow_builder_hands_the_layouts_the_neutral_properties() -> None:
    kinds = [KINDS[key] for key in sorted(KNOWN_TYPES)]
    graph, _ = flow_graph(parse_diagram(one_shape_each(kinds)), Cultures(ENGLISH, ENGLISH), load_font(),
                          "horizontal")
    for node, kind in zip(graph.nodes, kinds, strict=True):
        assert (node.is_start, node.pointed) == (kind.is_start, kind.pointed), \
            f"renderer/flow.py flow_graph: the node of {kind.key!r} must carry its Kind.is_start and Kind.pointed"


@pytest.mark.parametrize("key", sorted(DEFAULT_TAGS))
def test_a_kind_is_exported_as_a_tag_the_reader_reads(key: str) -> None:
    tag = DEFAULT_TAGS[key]
    assert tag in SHAPE_TYPES or tag in DATA_TAGS, \
        f"renderer/kinds.py: {key!r} is exported as <{tag}>, which interchange/reader.py reads as nothing; " \
        "name it in some kind's bpmn_reads"


def test_a_bpmn_tag_is_read_as_one_kind() -> None:
    tags = [tag for kind in KINDS.values() for tag in kind.bpmn_reads]
    twice = sorted({tag for tag in tags if tags.count(tag) > 1})
    assert not twice, f"renderer/kinds.py: the BPMN tags {twice} are in the bpmn_reads of more than one kind"
    assert not set(tags) & set(DATA_TAGS), \
        "renderer/kinds.py: bpmn_reads name flow nodes; interchange/reader.py DATA_TAGS reads the data objects"


def test_boundary_events_attach_to_the_tags_of_work() -> None:
    assert ACTIVITIES == {tag for tag, key in SHAPE_TYPES.items() if KINDS[key].work}


def test_layouts_name_no_element_type() -> None:
    """A layout reads neutral properties of ``LayoutNode`` (``is_start``, ``pointed``),
    never an element type: the builders in ``renderer/`` translate."""
    named = []
    for path in sorted((ROOT / "layouts").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in KINDS:
                named.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert not named, ("layouts/ names element types (give LayoutNode a neutral property, set it in "
                       f"renderer/flow.py flow_graph from renderer/kinds.py): {named}")


def display_name_tables() -> dict[str, Mapping[str, Mapping[int, str]]]:
    """Every table of display names (key → culture id → name) in ``renderer/names.py`` and
    ``repository/catalog.py``, by ``module.NAME`` (a selection's values per attribute, too)."""
    def is_table(value: object) -> bool:
        return isinstance(value, dict) and bool(value) and all(
            isinstance(names, dict) and names and all(isinstance(c, int) and isinstance(n, str)
                                                      for c, n in names.items())
            for names in value.values())

    tables: dict[str, Mapping[str, Mapping[int, str]]] = {}
    seen: set[int] = set()  # a table one module imports from the other is listed once
    for module in (renderer_names, catalog):
        for name, value in vars(module).items():
            if id(value) in seen:
                continue
            seen.add(id(value))
            if is_table(value):
                tables[f"{module.__name__}.{name}"] = value
            elif isinstance(value, dict) and value and all(is_table(inner) for inner in value.values()):
                tables.update({f"{module.__name__}.{name}[{key!r}]": inner for key, inner in value.items()})
    return tables


def test_the_display_name_tables_are_found() -> None:
    found = display_name_tables()
    assert {"renderer.names.RELATION_NAMES", "repository.catalog.FACET_NAMES",
            "repository.catalog.SELECTION_VALUE_NAMES['processMaturity']"} <= set(found), sorted(found)


@pytest.mark.parametrize("table", sorted(display_name_tables()))
def test_a_display_name_is_in_every_culture(table: str) -> None:
    missing = sorted(key for key, names in display_name_tables()[table].items()
                     if not all(names.get(culture) for culture in (GERMAN, ENGLISH)))
    assert not missing, f"{table}: give {missing} a name in German and English (renderer.culture.german_english)"


@pytest.mark.parametrize("table", sorted(display_name_tables()))
def test_only_the_kinds_name_element_types(table: str) -> None:
    """One fact, one place: a type's names are its row's ``Kind.names``; a second table of
    them (as ``repository/catalog.py`` had before issue 20) would drift from the drawings."""
    typed = sorted(set(display_name_tables()[table]) & set(KINDS))
    assert not typed, f"{table} names the element types {typed}: their names are Kind.names in renderer/kinds.py"
