"""Issue 19's pool bug: a pool without lanes that exchanges message flows with a pool that
has lanes keeps its own nodes. A message flow is no artifact's link, so its ends stay in
their own pools: `elrepo render` draws the lane-less pool's nodes in its own band and
`elrepo layout` writes them inside its own pool (the import and HTTP export side is in
test_repository_roundtrip)."""
from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from interchange import BPMN_LAYOUT_KEYS, read_bpmn
from interchange.fixture import lane_keys
from interchange.parsing import BPMNDI_NS, DC_NS
from layouts.geometry import Box
from repository.cli import main
from tests.conftest import FIXTURES

LANELESS_AND_LANES = FIXTURES / "bpmn" / "collaboration.lane-less-pool-and-lanes.bpmn"
ONE_POOL = FIXTURES / "bpmn" / "collaboration.one-pool-without-lanes.bpmn"
#: node → the band it belongs in: the lane-less pool itself, or the lane of the other pool
BANDS = {"Start_Customer": "Pool_Customer", "Task_PlaceOrder": "Pool_Customer",
         "Task_ReceiveGoods": "Pool_Customer", "Task_TakeOrder": "Lane_Sales", "Task_ShipGoods": "Lane_Shipping"}
SVG_NS = "http://www.w3.org/2000/svg"
ROUNDING = 0.01  # of the written coordinates


def box_of(element: etree._Element | None) -> Box:
    assert element is not None
    return Box(*(float(element.get(name) or "nan") for name in ("x", "y", "width", "height")))


def within(inner: Box, outer: Box) -> bool:
    return outer.x - ROUNDING <= inner.x and inner.right <= outer.right + ROUNDING \
        and outer.y - ROUNDING <= inner.y and inner.bottom <= outer.bottom + ROUNDING


def test_a_message_flow_does_not_move_a_node_into_its_partners_lane() -> None:
    assert lane_keys(read_bpmn(LANELESS_AND_LANES.read_bytes()).model) == BANDS


def rendered(path: Path, tmp_path: Path) -> tuple[etree._Element, dict[str, Box], dict[str, etree._Element]]:
    """`elrepo render` of ``path`` in horizontalSwimlane: the SVG, each band's body by
    band id and each shape's overlay by BPMN id."""
    out = tmp_path / "out.svg"
    assert main(["render", str(path), "--layout", "horizontalSwimlane", "-o", str(out)]) == 0
    root = etree.parse(str(out)).getroot()
    bodies = {str(band.get("data-lane-id")): box_of(band.find(f"{{{SVG_NS}}}rect[@class='lane-body']"))
              for band in root.iter(f"{{{SVG_NS}}}g") if band.get("class") == "lane"}
    overlays = {str(rect.get("data-guid")): rect for rect in root.iter(f"{{{SVG_NS}}}rect")
                if rect.get("class") == "overlay"}
    return root, bodies, overlays


def test_render_draws_the_lane_less_pools_nodes_in_its_own_band(tmp_path: Path) -> None:
    _, bodies, overlays = rendered(LANELESS_AND_LANES, tmp_path)
    assert set(overlays) == set(BANDS)
    for node, band in BANDS.items():
        assert overlays[node].get("data-lane-id") == band, node
        assert within(box_of(overlays[node]), bodies[band]), (node, band, box_of(overlays[node]), bodies[band])


def test_render_draws_a_single_pool_without_lanes_as_its_own_band(tmp_path: Path) -> None:
    """Not an invented "Unassigned" lane: the pool's band, named after the pool."""
    root, bodies, overlays = rendered(ONE_POOL, tmp_path)
    assert set(bodies) == {"Pool_Customer"}
    assert len(overlays) == 4
    for node, overlay in overlays.items():
        assert overlay.get("data-lane-id") == "Pool_Customer", node
        assert within(box_of(overlay), bodies["Pool_Customer"]), node
    texts = ["".join(text.itertext()) for text in root.iter(f"{{{SVG_NS}}}text")]
    assert "Customer" in texts and "Unassigned" not in texts


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_layout_writes_the_lane_less_pools_shapes_inside_its_pool(key: str, tmp_path: Path) -> None:
    out = tmp_path / "out.bpmn"
    assert main(["layout", str(LANELESS_AND_LANES), "--layout", key, "-o", str(out)]) == 0
    root = etree.parse(str(out)).getroot()
    bounds = {shape.get("bpmnElement"): box_of(shape.find(f"{{{DC_NS}}}Bounds"))
              for shape in root.iter(f"{{{BPMNDI_NS}}}BPMNShape")}
    pool_of = {"Pool_Customer": "Pool_Customer", "Lane_Sales": "Pool_Supplier", "Lane_Shipping": "Pool_Supplier"}
    for node, band in BANDS.items():
        assert within(bounds[node], bounds[band]), (node, band, bounds[node], bounds[band])
        assert within(bounds[node], bounds[pool_of[band]]), (node, pool_of[band])
        others = set(pool_of.values()) - {pool_of[band]}
        assert not any(within(bounds[node], bounds[other]) for other in others), node


def test_import_says_what_it_kept_per_kind(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19, item 5: each file's line counts what was imported, per BPMN kind, and
    what was not."""
    db = f"sqlite:///{tmp_path / 'kept.db'}"
    assert main(["tenant", "create", "acme", "main", "--db", db]) == 0
    model = FIXTURES / "bpmn" / "collaboration.lane-less-pool-and-lanes.bpmn"
    capsys.readouterr()
    assert main(["import", "--db", db, "acme", "main", str(model)]) == 0
    said = (f"elrepo: {model}: imported 5 nodes (1 startEvent, 4 task), 5 flows "
            "(2 messageFlow, 3 sequenceFlow), 2 pools, 2 lanes, 0 groups, 1 diagram; "
            "with 2 isExecutable flags; 0 elements not read, 0 warnings")
    assert said in capsys.readouterr().err.splitlines()
