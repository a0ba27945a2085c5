"""Message partners as modellers draw them: the two ends of a message flow between nodes
of two pools share a layer (the same place along the flow), so the flow runs straight
across; several flows out of one task to a pool run straight side by side."""
from __future__ import annotations

import pytest

from interchange import BPMN_LAYOUT_KEYS, bpmn_positions, read_bpmn
from interchange.di_metrics import bends

# Shop: start → Take → Check → Ship → end; Carrier: start → Collect → end. Ship messages
# Collect, which its own pool alone would put second; Shop also sends two messages from
# Check to the black-box pool Bank.
PARTNERS = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Definitions_1"
             targetNamespace="http://example.com/partners">
  <collaboration id="Collaboration_1">
    <participant id="Shop" name="Shop" processRef="Process_Shop" />
    <participant id="Carrier" name="Carrier" processRef="Process_Carrier" />
    <participant id="Bank" name="Bank" />
    <messageFlow id="Handover" sourceRef="Ship" targetRef="Collect" />
    <messageFlow id="Charge" sourceRef="Check" targetRef="Bank" />
    <messageFlow id="Refund" sourceRef="Check" targetRef="Bank" />
  </collaboration>
  <process id="Process_Shop" isExecutable="false">
    <startEvent id="Shop_Start" />
    <task id="Take" name="Take order" />
    <task id="Check" name="Check payment" />
    <task id="Ship" name="Ship goods" />
    <endEvent id="Shop_End" />
    <sequenceFlow id="S1" sourceRef="Shop_Start" targetRef="Take" />
    <sequenceFlow id="S2" sourceRef="Take" targetRef="Check" />
    <sequenceFlow id="S3" sourceRef="Check" targetRef="Ship" />
    <sequenceFlow id="S4" sourceRef="Ship" targetRef="Shop_End" />
  </process>
  <process id="Process_Carrier" isExecutable="false">
    <startEvent id="Carrier_Start" />
    <task id="Collect" name="Collect parcel" />
    <endEvent id="Carrier_End" />
    <sequenceFlow id="C1" sourceRef="Carrier_Start" targetRef="Collect" />
    <sequenceFlow id="C2" sourceRef="Collect" targetRef="Carrier_End" />
  </process>
</definitions>
"""


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_message_partners_share_a_layer_and_the_flow_runs_straight_across(key: str) -> None:
    geometry = bpmn_positions(read_bpmn(PARTNERS).model, key)
    ship, collect = geometry.shapes["Ship"], geometry.shapes["Collect"]
    assert (ship.cx == collect.cx) if geometry.horizontal else (ship.cy == collect.cy)
    assert bends(geometry.edges["Handover"]) == 0, geometry.edges["Handover"]


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_two_flows_out_of_one_task_to_a_pool_run_straight_side_by_side(key: str) -> None:
    edges = bpmn_positions(read_bpmn(PARTNERS).model, key).edges
    assert [bends(edges[flow]) for flow in ("Charge", "Refund")] == [0, 0]
    assert edges["Charge"] != edges["Refund"]
