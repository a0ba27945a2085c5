"""detailed, graphic, the matrices and entityRelationship end to end through ``render``:
the SVG contract (docs/contract.md, "SVG contract") on every demo diagram and corpus fixture, the shared checker's
counts, byte-identical output, and golden pictures of demo diagrams.

A golden that changes fails here; after looking at the new picture (rasterize the
``.obtained`` file with ``renderer.export.svg_to_png``),
``pytest tests/renderer/test_render_other_layouts.py --force-regen`` accepts it.
"""
from __future__ import annotations

import sys
from typing import Any

import pytest
from lxml import etree
from pytest_regressions.file_regression import FileRegressionFixture

from layouts.base import LayoutOptions
from layouts.graphic import CHAIN_MAX_WIDTH
from renderer.api import lay_out, render
from renderer.culture import ENGLISH, GERMAN, Cultures
from renderer.detailed import detailed_graph, satellite_elements
from renderer.kinds import KINDS
from renderer.measure import BOX_PADDING, FONT_SIZE, measure_shape
from renderer.model import Diagram, parse_diagram
from renderer.relations import children_of, hierarchy
from renderer.symbols import LABEL_PADDING, symbol_for
from renderer.text import load_font
from tests.conftest import FIXTURES, ROOT, SHARED, load_fixture
from tests.demo_fixtures import DIAGRAM_KEYS, demo_fixture, demo_fixtures
from tests.renderer.test_golden import same_svg

IN_ENGLISH = Cultures(requested=ENGLISH, default=ENGLISH)
SVG = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]
LAYOUTS = ("detailed", "graphic", "processMatrix", "customerMatrix", "entityRelationship")
CORPUS = sorted((FIXTURES / "corpus").glob("*.json"))


def wide_house(core_processes: int) -> dict[str, Any]:
    """The demo process house with core processes added up to ``core_processes``."""
    fixture = demo_fixture("house")
    core = next(e for e in fixture["elements"] if e["attributes"]["name"]["1033"] == "Core processes")
    for number in range(len(core["children"]) + 1, core_processes + 1):
        core["children"].append({"id": f"core-{number}"})
        fixture["elements"].append({"id": f"core-{number}", "type": "mainProcess", "related": {}, "children": [],
                                    "attributes": {"name": {"1033": f"Core process number {number}",
                                                            "1031": f"Kernprozess Nummer {number}"}}})
    return fixture


CASES: dict[str, Any] = {**{f"demo/{k}": v for k, v in demo_fixtures().items()},
                         **{f"corpus/{p.stem}": load_fixture(p) for p in CORPUS},
                         "wide-house": wide_house(14)}
GOLDEN = ROOT / "golden"
GOLDEN_CASES = {
    "detailed": ("credit-check", "order-to-cash"),
    "graphic": ("house", "order-to-cash"),
    "processMatrix": ("house", "order-to-cash"),
    "customerMatrix": ("house", "core"),
    "entityRelationship": ("credit-check", "strategy-planning"),
}


def parse(svg: str) -> Any:
    return etree.fromstring(svg.encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True))


@pytest.mark.parametrize("key", LAYOUTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_svg_keeps_the_contract(case: str, key: str) -> None:
    fixture = CASES[case]
    svg = render(fixture, key)
    assert render(fixture, key) == svg
    root = parse(svg)
    assert root.get("data-layout") == key and root.get("data-diagram-id") == fixture["diagram"]["id"]
    assert root[-1].get("class") == "overlays"
    overlays = root[-1].findall(f"{SVG}rect")
    shape_ids = [rect.get("data-shape-id") for rect in overlays]
    assert len(set(shape_ids)) == len(shape_ids)
    assert all(rect.get("data-guid") and rect.get("data-type") for rect in overlays)
    assert not root.findall(f".//{SVG}script") and not root.findall(f".//{SVG}foreignObject")
    diagram = parse_diagram(fixture)
    known = {diagram.id, *diagram.elements, *(s.element.id for s in diagram.shapes)}
    assert {rect.get("data-guid") for rect in overlays} <= known
    ends = {(p.get("data-source-shape-id"), p.get("data-target-shape-id"))
            for p in root.iter(f"{SVG}path") if p.get("class") == "connector"}
    assert {end for pair in ends for end in pair} <= set(shape_ids)
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "matrix-cell"]
    assert {(c.get("data-row-id"), c.get("data-column-id")) for c in cells} <= {(a, b) for a in known for b in known}


def test_matrix_cells_and_headers_name_elements() -> None:
    fixture = demo_fixture("order-to-cash")
    root = parse(render(fixture, "processMatrix"))
    diagram = parse_diagram(fixture)
    credit_check = next(s for s in diagram.shapes if s.element.text("name", IN_ENGLISH) == "Credit check")
    finance = next(e for e in diagram.elements.values() if e.text("name", IN_ENGLISH) == "Finance and controlling")
    cell = root.find(f".//{SVG}rect[@data-row-id='{credit_check.element.id}'][@data-column-id='{finance.id}']")
    assert cell is not None and cell.get("class") == "matrix-cell"
    overlays = {r.get("data-guid"): r.get("data-shape-id") for r in root[-1]}
    assert overlays[credit_check.element.id] == credit_check.shape_id  # a row that is a shape: its shape id
    assert overlays[finance.id] == finance.id                          # a column: the element id
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "ER" in texts and any("E \u2013 executed by" in t for t in texts)  # the legend: display names


def test_satellites_carry_overlays_of_their_elements() -> None:
    fixture = demo_fixture("credit-check")
    root = parse(render(fixture, "detailed"))
    diagram = parse_diagram(fixture)
    task = next(s for s in diagram.shapes if s.element.text("name", IN_ENGLISH) == "Assess credit limit")
    satellites = [r for r in root[-1] if r.get("data-shape-id", "").startswith(f"{task.shape_id}:")]
    assert [r.get("data-type") for r in satellites] == ["inOut", "orgUnit", "system", "knowledgeStructureDocument"]
    assert all(r.get("data-shape-id") == f"{task.shape_id}:{r.get('data-guid')}" for r in satellites)


def test_detailed_draws_a_symbol_per_satellite_kind_and_names_them_for_a_legend() -> None:
    fixture = demo_fixture("credit-check")
    root = parse(render(fixture, "detailed"))
    kinds = {g.get("class") for g in root.iter(f"{SVG}g")}
    assert {"node symbol-input-output", "node symbol-org-unit", "node symbol-system",
            "node symbol-document"} <= kinds and "node symbol-satellite" not in kinds
    _, scene = detailed_graph(parse_diagram(fixture), Cultures(requested=GERMAN, default=ENGLISH), load_font(),
                              "detailed")
    assert scene.symbol_legend == (("satellite-data", "Input/Output"), ("satellite-orgUnit", "Organisationseinheit"),
                                   ("satellite-system", "IT-System"), ("satellite-document", "Dokument"))


@pytest.mark.parametrize("culture", [GERMAN, ENGLISH])
@pytest.mark.parametrize("key", DIAGRAM_KEYS)
def test_detailed_joins_org_units_systems_and_documents_without_arrows(key: str, culture: int) -> None:
    """An org unit, IT system or document is associated with its task (no arrowhead: an
    arrow from the task would read as its output); inputs point into the task, outputs
    out of it."""
    fixture = demo_fixture(key)
    diagram = parse_diagram(fixture)
    root = parse(render(fixture, "detailed", culture))
    groups = {f"{shape.shape_id}:{element.id}": group for shape in diagram.shapes
              if KINDS[shape.element.type].work for group, element in satellite_elements(diagram, shape)}
    drawn = 0
    for path in root.iter(f"{SVG}path"):
        ends = path.get("data-source-shape-id"), path.get("data-target-shape-id")
        satellite = next((end for end in ends if end in groups), None)
        if satellite is None:
            continue
        drawn += 1
        group = groups[satellite]
        if group in ("orgUnit", "system", "document"):
            assert path.get("marker-end") is None and path.get("class") == "connector association", satellite
        else:
            assert path.get("marker-end") is not None
            assert (ends[0] == satellite) == (group == "input"), satellite  # inputs in, outputs out
    assert drawn == len(groups) > 0


def test_a_satellite_grows_to_its_name_before_cutting_it() -> None:
    """A long org-unit name takes a wider satellite instead of an ellipsis."""
    fixture = demo_fixture("credit-check")
    unit = next(e for e in fixture["elements"] if e["type"] == "orgUnit")
    unit["attributes"]["name"] = {"1031": "Bewerbungseingang - Sachbearbeitung Personalgewinnung",
                                  "1033": "Application intake - clerical processing of recruiting"}
    for culture in (GERMAN, ENGLISH):
        root = parse(render(fixture, "detailed", culture))
        satellites = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node symbol-org-unit"]
        texts = ["".join(g.itertext()) for g in satellites]
        assert satellites and not any("\u2026" in text for text in texts)
        lines = [line for g in satellites for text in g.iter(f"{SVG}text")
                 for line in ([t.text for t in text.iter(f"{SVG}tspan")] or [text.text]) if line]
        assert not any(line.endswith("-") and not line.endswith(" -") for line in lines), lines  # no word broken


def test_a_german_name_drawn_as_fallback_in_english_is_hyphenated_as_german() -> None:
    """A name the fixture holds in 1031 only is German text in a 1033 drawing too."""
    word = "Wareneingangsprüfungsprotokollierungsverfahrensanweisungsentwurf"
    font = load_font()
    german, english = (measure_shape("task", word, font, culture).lines for culture in (GERMAN, ENGLISH))
    assert german != english
    fixture = demo_fixture("credit-check")
    task = next(e["element"] for e in fixture["values"] if e["element"]["type"] == "task")
    task["attributes"]["name"] = {"1031": word}
    _, scene = detailed_graph(parse_diagram(fixture), IN_ENGLISH, font, "detailed")
    assert scene.shapes[task["id"]].lines == german


def path_end(d: str) -> tuple[float, float]:
    """The last point of a path of absolute ``M``/``L``/``H``/``V`` commands."""
    tokens = d.split()
    x = y = 0.0
    index = 0
    while index < len(tokens):
        command = tokens[index]
        if command in ("M", "L"):
            x, y = float(tokens[index + 1]), float(tokens[index + 2])
            index += 3
        else:
            value = float(tokens[index + 1])
            x, y = (value, y) if command == "H" else (x, value)
            index += 2
    return x, y


def test_detailed_spreads_the_arrowheads_of_inputs_over_their_tasks_side() -> None:
    root = parse(render(demo_fixture("order-to-cash"), "detailed"))
    tips: dict[str, list[float]] = {}
    for path in root.iter(f"{SVG}path"):
        source = path.get("data-source-shape-id") or ""
        if path.get("class") == "connector" and ":" in source:  # a satellite flowing into its task
            tips.setdefault(source.split(":")[0], []).append(path_end(path.get("d", ""))[1])
    several = [sorted(ys) for ys in tips.values() if len(ys) > 1]
    assert several  # Post incoming payment takes a payment advice and an invoice
    for ys in several:
        assert all(b - a >= 10 for a, b in zip(ys, ys[1:]))  # an arrowhead is 7 high


def overlay_boxes(root: Any) -> list[tuple[str, Box]]:
    """(data-guid, (x, y, right, bottom)) of every overlay, in document order."""
    boxes = []
    for rect in root[-1]:
        x, y, w, h = (float(rect.get(name)) for name in ("x", "y", "width", "height"))
        boxes.append((rect.get("data-guid"), (x, y, x + w, y + h)))
    return boxes


def nested_parents_first(diagram: Diagram, overlays: list[tuple[str, Box]]) -> bool:
    """Whether every child's overlay lies inside its parent's and comes after it."""
    place = {guid: index for index, (guid, _) in enumerate(overlays)}
    box = dict(overlays)
    for element, parent in hierarchy(diagram):
        if parent is not None:
            (x, y, right, bottom), (px, py, pright, pbottom) = box[element.id], box[parent]
            if place[parent] > place[element.id] or not (px <= x and py <= y and right <= pright
                                                         and bottom <= pbottom):
                return False
    return True


def test_graphic_draws_the_demo_process_house_with_whole_box_overlays_parents_first() -> None:
    fixture = demo_fixture("house")
    diagram = parse_diagram(fixture)
    root = parse(render(fixture, "graphic"))
    overlays = overlay_boxes(root)
    box = dict(overlays)
    assert nested_parents_first(diagram, overlays)
    management, core, support = children_of(diagram, diagram.element)
    assert box[management.id][3] < box[core.id][1] and box[core.id][3] < box[support.id][1]  # bands, chain, bands
    chevrons = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node symbol-chevron"]
    assert len(chevrons) == len(children_of(diagram, core)) == 5
    for band in (management, support):  # every row of a band filled to the band's width
        kids = [box[kid.id] for kid in children_of(diagram, band)]
        assert max(right for _, _, right, _ in kids) - min(x for x, _, _, _ in kids) > 0.9 * (
            box[band.id][2] - box[band.id][0])


@pytest.mark.parametrize(("culture", "row_lengths"), [(GERMAN, [4, 4, 3, 3]), (ENGLISH, [5, 5, 4])])
def test_a_long_value_chain_wraps_into_rows_of_equal_chevrons_in_reading_order(culture: int,
                                                                               row_lengths: list[int]) -> None:
    fixture = wide_house(14)
    diagram = parse_diagram(fixture)
    root = parse(render(fixture, "graphic", culture=culture))
    overlays = overlay_boxes(root)
    assert nested_parents_first(diagram, overlays)
    box = dict(overlays)
    _, core, _ = children_of(diagram, diagram.element)
    chevrons = [box[element.id] for element in children_of(diagram, core)]
    tops = sorted({y for _, y, _, _ in chevrons})
    rows = [[chevron for chevron in chevrons if chevron[1] == top] for top in tops]
    assert [chevron for row in rows for chevron in sorted(row)] == chevrons  # left to right, top to bottom
    assert [len(row) for row in rows] == row_lengths  # the fewest rows within the width, as even as can be
    assert len({round(right - x, 2) for x, _, right, _ in chevrons}) == 1  # equal, so they line up in columns
    assert all(row[-1][2] - row[0][0] <= CHAIN_MAX_WIDTH for row in rows)
    assert all(upper[0][3] < lower[0][1] for upper, lower in zip(rows, rows[1:]))  # rows apart
    assert float(root.get("width")) <= CHAIN_MAX_WIDTH + 100
    assert box[core.id][3] < box[children_of(diagram, diagram.element)[2].id][1]  # the chain above support


@pytest.mark.parametrize("culture", [GERMAN, ENGLISH])
def test_graphic_wraps_names_to_the_final_box_and_keeps_chevron_titles_clear(culture: int) -> None:
    """A leaf widened to fill its band shows on one line a name that fits there
    ("Continuous improvement" was broken in a 460-wide box); a chevron's list starts a
    padding below its name strip, however many lines the name has."""
    diagram = parse_diagram(demo_fixture("house"))
    cultures = Cultures(requested=culture, default=ENGLISH)
    font = load_font()
    graph, scene, layout = lay_out(diagram, "graphic", cultures, LayoutOptions(), font)
    boxes = {node.id: node.box for node in layout.nodes}
    line_height = font.line_height(FONT_SIZE)
    leaves = [view for view in scene.shapes.values() if view.role == "leaf"]
    assert leaves
    for view in leaves:
        element = diagram.lookup(view.guid)
        assert element is not None
        name = element.text("name", cultures)
        area = symbol_for(view, boxes[view.guid], line_height, FONT_SIZE).label_area
        room = area.w - 2 * (BOX_PADDING - LABEL_PADDING)
        if font.text_width(name, FONT_SIZE) <= room:
            assert view.lines == (name,), (name, view.lines)
    for node in graph.nodes:
        if node.role != "chevron":
            continue
        listed = [boxes[child.id] for child in graph.nodes if child.parent == node.id]
        if listed:
            title_bottom = boxes[node.id].y + max(n.height for n in graph.nodes if n.role == "chevron")
            assert min(box.y for box in listed) >= title_bottom + 8, scene.shapes[node.id].lines


def test_graphic_of_other_hierarchies_is_nested_boxes() -> None:
    root = parse(render(demo_fixture("core"), "graphic"))
    assert not [g for g in root.iter(f"{SVG}g") if g.get("class") == "node symbol-chevron"]
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "node symbol-container"]) == 5


@pytest.fixture(scope="module")
def svgmetrics() -> Any:
    if not (SHARED / "tools" / "svgmetrics.py").is_file():
        pytest.skip("../shared/tools is not beside the project; it exists in CI and on developer machines")
    sys.path.insert(0, str(SHARED / "tools"))
    import svgmetrics as module

    return module


@pytest.mark.parametrize("key", LAYOUTS)
def test_shared_checker_counts_no_overlap_and_no_edge_through_a_shape(key: str, svgmetrics: Any) -> None:
    """As ``svgcheck`` counts them; graphic's nested boxes are the one expected overlap
    (every ancestor-descendant pair), so it must count exactly those."""
    for case, fixture in CASES.items():
        svg = render(fixture, key)
        geometry = svgmetrics.geometry_from_svg(svg)
        measured = svgmetrics.compute_metrics(geometry, "TB")
        assert geometry["svg_issues"] == [], case
        assert measured["edge_node_intersections"] == 0, case
        assert measured["node_overlaps"] == 0, case
        if key == "entityRelationship":  # a star around one element: nothing to cross, no junction to misread
            assert (measured["shared_tracks"], measured["edge_crossings"], measured["jogs"]) == (0, 0, 0), case


def test_entity_relationship_centres_the_diagram_element_and_names_relations_in_the_culture() -> None:
    fixture = demo_fixture("credit-check")
    diagram = parse_diagram(fixture)
    for culture, executed_by, org_unit in ((1031, "ausgeführt von", "«Organisationseinheit»"),
                                           (1033, "executed by", "«Org unit»")):
        root = parse(render(fixture, "entityRelationship", culture=culture))
        texts = {"".join(t.itertext()) for t in root.iter(f"{SVG}text")} | {
            span.text for span in root.iter(f"{SVG}tspan")}
        assert executed_by in texts and org_unit in texts
        assert not {"executedBy", "«orgUnit»", "«knowledgeStructureDocument»"} & texts
        overlays = root[-1].findall(f"{SVG}rect")
        assert overlays[0].get("data-guid") == diagram.id  # the subject, then what it relates to
        labels = [g for g in root.iter(f"{SVG}g") if g.get("class") == "edge-label"]
        connectors = [p for p in root.iter(f"{SVG}path") if p.get("class") == "connector"]
        assert len(labels) == len(connectors) > 0  # one labelled edge per relation
        assert {p.get("data-source-shape-id") for p in connectors} == {diagram.id}


def svg_texts(root: Any) -> list[str]:
    """Every line of text drawn: a ``<text>``'s own text or each of its ``<tspan>``s."""
    return [line or "" for t in root.iter(f"{SVG}text")
            for line in ([span.text for span in t.iter(f"{SVG}tspan")] or [t.text])]


@pytest.mark.parametrize(("culture", "why"), [(GERMAN, "Keine Produkte sind Input oder Output dieser Prozesse"),
                                              (ENGLISH, "No products are input or output of these processes")])
def test_a_matrix_without_columns_says_why(culture: int, why: str) -> None:
    root = parse(render(demo_fixture("credit-check"), "customerMatrix", culture=culture))
    assert not [g for g in root.iter(f"{SVG}g") if g.get("class") == "node symbol-column"]
    assert any(text.startswith(why) for text in svg_texts(root))
    assert not any(" \u2013 " in text for text in svg_texts(root))  # no legend of marks no cell shows


@pytest.mark.parametrize("culture", [GERMAN, ENGLISH])
def test_matrix_legend_marks_are_the_initials_of_their_meanings_and_match_the_cells(culture: int) -> None:
    root = parse(render(demo_fixture("house"), "processMatrix", culture=culture))
    legend = [text for text in svg_texts(root) if " \u2013 " in text]
    marks = {text.split(" \u2013 ")[0]: text.split(" \u2013 ")[1] for text in legend}
    assert len(marks) == 4 and all(meaning[0].upper() == mark for mark, meaning in marks.items()), marks
    cells = {text for text in svg_texts(root) if text and set(text) <= set("".join(marks))}
    assert cells and all(set(cell) <= set(marks) for cell in cells)


def test_matrix_row_headers_show_their_indent() -> None:
    """A sub-process's header text starts further right than its parent's."""
    fixture = demo_fixture("house")
    diagram = parse_diagram(fixture)
    graph, _, _ = lay_out(diagram, "processMatrix", IN_ENGLISH, LayoutOptions(), load_font())
    root = parse(render(fixture, "processMatrix"))
    start_of = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "node symbol-row":
            text = next(group.iter(f"{SVG}text"))
            assert text.get("text-anchor") == "start"
            start_of["".join(text.itertext())] = float(text.get("x") or next(text.iter(f"{SVG}tspan")).get("x"))
    names = {node.id: diagram.lookup(node.id) for node in graph.nodes if node.role == "row"}
    indented = [(node.id, node.parent) for node in graph.nodes if node.role == "row" and node.parent is not None]
    assert indented
    for child_id, parent_id in indented:
        child, parent = names[child_id], names[parent_id]
        assert child is not None and parent is not None
        assert start_of[child.text("name", IN_ENGLISH)] > start_of[parent.text("name", IN_ENGLISH)] + 10


def released_with_audit(key: str) -> dict[str, Any]:
    """The demo diagram ``key`` as the service exports it for a render: states and
    versions on its elements, who created and changed them, the loader's access token."""
    fixture = demo_fixture(key)
    token = {"id": "token-1", "type": "authToken", "facetName": "users", "related": {}, "children": [],
             "attributes": {"name": {"127": "demo loader"}}}
    fixture["elements"].append(token)
    for element in fixture["elements"]:
        element["attributes"]["state1"] = {"127": "released" if element["type"] == "user" else "show"}
    fixture["elements"][0]["attributes"] |= {"version": {"127": "1.0"}, "state1": {"127": "inProcess"}}
    fixture["diagram"]["related"] |= {"createdBy": [{"id": "token-1"}], "changedBy": [{"id": "token-1"}],
                                      "relBy": [{"id": fixture["elements"][0]["id"]}]}
    return fixture


@pytest.mark.parametrize(("culture", "states"), [(GERMAN, ("in Bearbeitung", "freigegeben")),
                                                 (ENGLISH, ("in process", "released"))])
def test_entity_relationship_shows_state_names_and_leaves_technical_entities_out(culture: int,
                                                                                  states: tuple[str, ...]) -> None:
    fixture = released_with_audit("credit-check")
    root = parse(render(fixture, "entityRelationship", culture=culture))
    texts = " | ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert all(state in texts for state in states), texts
    assert not any(raw in texts for raw in ("inProcess", "released»", "show", "v1.0 \u00b7 released")), texts
    assert "token-1" not in {r.get("data-guid") for r in root[-1]}  # the access token is no entity
    labels = {"".join(g.itertext()) for g in root.iter(f"{SVG}g") if g.get("class") == "edge-label"}
    assert not labels & {"created by", "changed by", "released by", "erstellt von", "geändert von",
                         "freigegeben von"}


@pytest.mark.parametrize("key", DIAGRAM_KEYS)
def test_entity_relationship_keeps_each_relation_group_in_one_column(key: str) -> None:
    diagram = parse_diagram(demo_fixture(key))
    graph, _, layout = lay_out(diagram, "entityRelationship", IN_ENGLISH, LayoutOptions(), load_font())
    subject = layout.nodes[0].box
    side = {node.id: node.box.cx < subject.cx for node in layout.nodes[1:]}
    sides_of_group: dict[str, set[bool]] = {}
    for node in graph.nodes[1:]:
        assert node.lane is not None
        sides_of_group.setdefault(node.lane, set()).add(side[node.id])
    assert all(len(sides) == 1 for sides in sides_of_group.values()), sides_of_group


@pytest.mark.parametrize("key,name", [(k, n) for k, names in GOLDEN_CASES.items() for n in names])
def test_golden(key: str, name: str, file_regression: FileRegressionFixture) -> None:
    svg = render(demo_fixture(name), key)
    file_regression.check(svg, fullpath=GOLDEN / key / f"demo.{name}.svg", check_fn=same_svg)
