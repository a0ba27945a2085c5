"""Message flows from one pool to another: pools are bands stacked across the flow, a gap
apart where a message flow joins the two (as modellers draw them), and a route between two
of them leaves one border and reaches the other."""
from __future__ import annotations

import pytest

from interchange import BPMN_LAYOUT_KEYS, bpmn_positions, read_bpmn
from interchange.di_metrics import bends
from interchange.positions import POOL_GAP
from layouts.geometry import Box, Point

# Customer, Broker and Bank are black boxes; Customer talks with a task of the Shop, so it
# lies beside it; Broker and Bank come after the drawing, Broker a gap from Customer.
POOLS = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Definitions_1"
             targetNamespace="http://example.com/pools">
  <collaboration id="Collaboration_1">
    <participant id="Shop" name="Shop" processRef="Process_Shop" />
    <participant id="Customer" name="Customer" />
    <participant id="Broker" name="Broker" />
    <participant id="Bank" name="Bank" />
    <messageFlow id="Order" name="order" sourceRef="Customer" targetRef="Shop" />
    <messageFlow id="Confirm" name="confirm" sourceRef="Confirm_Task" targetRef="Customer" />
    <messageFlow id="Place" name="place order" sourceRef="Customer" targetRef="Broker" />
    <messageFlow id="Answer" name="answer" sourceRef="Broker" targetRef="Customer" />
    <messageFlow id="Decide" name="decision" sourceRef="Customer" targetRef="Broker" />
    <messageFlow id="Pay" sourceRef="Bank" targetRef="Customer" />
  </collaboration>
  <process id="Process_Shop" isExecutable="false">
    <startEvent id="Start" />
    <task id="Confirm_Task" name="Confirm order" />
    <endEvent id="End" />
    <sequenceFlow id="Flow_1" sourceRef="Start" targetRef="Confirm_Task" />
    <sequenceFlow id="Flow_2" sourceRef="Confirm_Task" targetRef="End" />
  </process>
</definitions>
"""
BETWEEN_POOLS = ("Order", "Place", "Answer", "Decide", "Pay")
BORDER = 0.01  # rounding of the written coordinates


def on_border(point: Point, box: Box) -> bool:
    x, y = point
    within = box.x - BORDER <= x <= box.right + BORDER and box.y - BORDER <= y <= box.bottom + BORDER
    return within and not (box.x + BORDER < x < box.right - BORDER and box.y + BORDER < y < box.bottom - BORDER)


def passes_through(route: tuple[Point, ...], box: Box) -> bool:
    return any(min(p[0], q[0]) < box.right and max(p[0], q[0]) > box.x
               and min(p[1], q[1]) < box.bottom and max(p[1], q[1]) > box.y for p, q in zip(route, route[1:]))


def segments(route: tuple[Point, ...]) -> set[tuple[Point, Point]]:
    return {(min(p, q), max(p, q)) for p, q in zip(route, route[1:])}


@pytest.mark.parametrize("key", BPMN_LAYOUT_KEYS)
def test_a_message_flow_between_pools_leaves_one_border_and_reaches_the_other(key: str) -> None:
    model = read_bpmn(POOLS).model
    geometry = bpmn_positions(model, key)
    shapes, edges = geometry.shapes, geometry.edges
    customer, broker = shapes["Customer"], shapes["Broker"]
    assert broker.y - customer.bottom == POOL_GAP or broker.x - customer.right == POOL_GAP
    flows = {flow.id: flow for flow in model.flows}
    nodes = [shapes[node.id] for node in model.nodes]
    for flow_id in BETWEEN_POOLS:
        route, flow = edges[flow_id], flows[flow_id]
        assert all(p != q for p, q in zip(route, route[1:])) and len(route) >= 2, (flow_id, route)
        assert on_border(route[0], shapes[flow.source]) and on_border(route[-1], shapes[flow.target]), \
            (flow_id, route)
        # neither into the pools it joins (it runs round them) nor through any flow node
        assert not passes_through(route, shapes[flow.source]) and not passes_through(route, shapes[flow.target]), \
            (flow_id, route)
        assert not any(passes_through(route, box) for box in nodes), (flow_id, route)
        assert bends(route) == 0, (flow_id, route)  # straight across, as the modeller draws it
    for index, one in enumerate(BETWEEN_POOLS):
        for other in BETWEEN_POOLS[index + 1:]:
            assert not segments(edges[one]) & segments(edges[other]), (one, other)
