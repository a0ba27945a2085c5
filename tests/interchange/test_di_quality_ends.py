"""A flow's end on a pointed symbol's own outline counts as on its border (the flow
layouts end a join's off-middle ports there, issue 21)."""
from __future__ import annotations

import math

from checks.di_quality import _on_end
from interchange.model import FLOW_NODE, BpmnNode
from layouts.geometry import Box


def _node(shape_type: str) -> BpmnNode:
    return BpmnNode("n", "task", FLOW_NODE, shape_type, {}, "p", line=1)


def test_an_end_on_a_diamond_or_circle_outline_is_on_its_border_a_tasks_inside_is_not() -> None:
    box = Box(0.0, 0.0, 50.0, 50.0)
    on_diamond = (10.0, 15.0)  # on the upper left edge, from (0, 25) to (25, 0)
    on_circle = (25.0 - 25.0 * math.cos(0.5), 25.0 - 25.0 * math.sin(0.5))
    assert _on_end(on_diamond, box, _node("ruleXor"))
    assert _on_end(on_circle, box, _node("evEnd"))
    assert not _on_end(on_diamond, box, _node("task"))
    assert not _on_end(on_diamond, box, _node("evEnd"))
    assert _on_end((0.0, 25.0), box, None)
