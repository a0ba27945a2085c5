"""Black-box pools as modellers put them: above or below the pools they exchange messages
with, where their message flows run shortest, and thin (``black_boxes.BLACK_BOX``; a
column of the vertical keys as wide as its name)."""
from __future__ import annotations

import pytest

from interchange import BPMN_LAYOUT_KEYS, bpmn_positions, read_bpmn
from interchange.black_boxes import BLACK_BOX
from interchange.di_metrics import bends, segment_enters
from interchange.positions import EMPTY_BAND

# Shop: start → Take → Check → end, the start caught from Customer, Check talking to Bank
# both ways and to Customer, Take to Courier: the engine alone stacks the three black
# boxes after Shop, so that the flows to the last two cross the first.
BLACK_BOXES = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Definitions_1"
             targetNamespace="http://example.com/black-boxes">
  <collaboration id="Collaboration_1">
    <participant id="Shop" name="Shop" processRef="Process_Shop" />
    <participant id="Customer" name="Customer" />
    <participant id="Bank" name="Bank" />
    <participant id="Courier" name="Courier" />
    <messageFlow id="Order" sourceRef="Customer" targetRef="Shop_Start" />
    <messageFlow id="Charge" sourceRef="Check" targetRef="Bank" />
    <messageFlow id="Paid" sourceRef="Bank" targetRef="Check" />
    <messageFlow id="Pick" sourceRef="Take" targetRef="Courier" />
    <messageFlow id="Confirm" sourceRef="Check" targetRef="Customer" />
  </collaboration>
  <process id="Process_Shop" isExecutable="false">
    <startEvent id="Shop_Start"><messageEventDefinition /></startEvent>
    <task id="Take" name="Take order" />
    <task id="Check" name="Check payment" />
    <endEvent id="Shop_End" />
    <sequenceFlow id="S1" sourceRef="Shop_Start" targetRef="Take" />
    <sequenceFlow id="S2" sourceRef="Take" targetRef="Check" />
    <sequenceFlow id="S3" sourceRef="Check" targetRef="Shop_End" />
  </process>
</definitions>
"""


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_black_boxes_lie_either_side_of_their_partner_and_are_thin(key: str) -> None:
    geometry = bpmn_positions(read_bpmn(BLACK_BOXES).model, key)

    def span(pool: str) -> tuple[float, float]:
        box = geometry.shapes[pool]
        return (box.y, box.bottom) if geometry.horizontal else (box.x, box.right)

    black = ("Customer", "Bank", "Courier")
    assert {span(pool)[0] < span("Shop")[0] for pool in black} == {False, True}  # on both sides of Shop
    thickness = [span(pool)[1] - span(pool)[0] for pool in black]
    # a column of the vertical keys as wide as its name, a band as thick as the corpus's authors draw one
    assert all(BLACK_BOX <= size < EMPTY_BAND for size in thickness) if not geometry.horizontal \
        else thickness == [BLACK_BOX] * 3
    for flow in ("Order", "Charge", "Paid", "Confirm"):  # the two busiest black boxes next to Shop
        route = geometry.edges[flow]
        crossed = [pool for pool in black if any(segment_enters(p, q, geometry.shapes[pool])
                                                 for p, q in zip(route, route[1:]))]
        assert not crossed and bends(route) == 0, (flow, route, crossed)
