"""One model written the ways modelling tools write BPMN (issue 19, "Done when"): the
`semantic:` prefix of Trisotech and ARIS, the `bpmn2:` prefix of Eclipse, Camunda 7 and
Activiti, and the default namespace of Signavio and bpmn.io, each with a process-level
`ioSpecification`, two tools' extension elements, nested lanes, a black-box pool, every
kind of event definition, task and marker, data, an annotation and a group. Each style
is rendered in BPMN's notation, laid out and imported by the command line with exit 0,
and keeps its meaning through `elrepo layout` and through the repository."""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from interchange import read_bpmn
from repository.cli import main
from tests.conftest import FIXTURES
from tests.interchange.test_bpmn_meaning_roundtrip import assert_meaning_kept, meaning
from tests.interchange.test_repository_roundtrip import db as db  # the same databases

CONSTRUCTS = FIXTURES / "bpmn" / "constructs.trisotech.bpmn"
SVG = "{http://www.w3.org/2000/svg}"
#: style → how the file spells BPMN's namespace
STYLES = {"semantic": ("xmlns:semantic=", "semantic:"), "bpmn2": ("xmlns:bpmn2=", "bpmn2:"),
          "default": ("xmlns=", "")}


@pytest.fixture(params=sorted(STYLES))
def styled(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    declaration, prefix = STYLES[request.param]
    text = CONSTRUCTS.read_text(encoding="utf-8").replace("xmlns:semantic=", declaration)
    path = tmp_path / f"constructs.{request.param}.bpmn"
    path.write_text(text.replace("semantic:", prefix), encoding="utf-8")
    return path


def test_the_styles_are_one_model(styled: Path) -> None:
    assert meaning(read_bpmn(styled.read_bytes()).model) == meaning(read_bpmn(CONSTRUCTS.read_bytes()).model)


def test_each_style_is_drawn_in_bpmn_notation(styled: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.svg"
    assert main(["render", str(styled), "--layout", "horizontalSwimlane", "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err  # the process's data input resolves
    root = etree.fromstring(out.read_bytes())
    model = read_bpmn(styled.read_bytes()).model
    nodes = {g.get("data-bpmn-id"): g for g in root.iter(f"{SVG}g") if g.get("data-bpmn-id")}
    assert {node.id for node in model.nodes} <= set(nodes)
    markers = {g.get("class") for g in root.iter(f"{SVG}g") if (g.get("class") or "").startswith("marker-")}
    assert {f"marker-{kind}" for node in model.nodes for kind in node.event_definitions} <= markers
    timer = [c for c in nodes["Timer_check"] if c.tag == f"{SVG}circle"]
    assert timer and all(c.get("stroke-dasharray") for c in timer[:2])  # non-interrupting
    texts = {"".join(text.itertext()) for text in root.iter(f"{SVG}text")}
    assert {"Customer", "Shop", "Sales", "Front office", "Back office", "Warehouse", "Yes", "No", "VIP",
            "Fulfilment"} <= texts  # the group's category value too
    assert "Unassigned" not in texts
    overlays = [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "overlay"]
    assert len(overlays) == len({node.id for node in model.nodes if node.kind != "annotation" and not node.parent})


def test_each_style_is_laid_out_with_its_meaning_kept(styled: Path, tmp_path: Path) -> None:
    out = tmp_path / "laid-out.bpmn"
    assert main(["layout", str(styled), "-o", str(out)]) == 0
    before, after = meaning(read_bpmn(styled.read_bytes()).model), meaning(read_bpmn(out.read_bytes()).model)
    assert {key: value for key, value in after.items() if key != "groups"} == \
        {key: value for key, value in before.items() if key != "groups"}


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_each_style_keeps_its_meaning_through_the_repository(styled: Path, db: str, tmp_path: Path) -> None:
    assert_meaning_kept([styled], db, tmp_path / "out")
