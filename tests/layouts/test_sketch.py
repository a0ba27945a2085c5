"""The previous drawing as a sketch (issue 22, item 1): after an edit, the shapes that
stay keep their rows and order, at most one crossing more than a fresh layout, and the
same content with the same sketch gives the same drawing."""
from __future__ import annotations

import pytest

from layouts.base import LayoutOptions
from layouts.geometry import HORIZONTAL, VERTICAL, Layout
from layouts.graph import LayoutEdge, LayoutGraph, LayoutNode
from layouts.readability import crossings
from layouts.registry import get_strategy
from layouts.sketch import Sketch
from layouts.stability import Stability


def _process(inserted: bool) -> LayoutGraph:
    """Three splits of two or three branches that join again, a rework loop, and with
    ``inserted`` one more task on the flow after the first join."""
    edges = [("start", "a"), ("a", "s1"), ("s1", "b1"), ("s1", "b2"), ("b1", "j1"), ("b2", "j1"),
             ("j1", "c"), ("c", "s2"), ("s2", "d1"), ("s2", "d2"), ("s2", "d3"), ("d1", "j2"), ("d2", "j2"),
             ("d3", "e"), ("e", "j2"), ("j2", "f"), ("f", "s3"), ("s3", "g1"), ("s3", "g2"), ("g1", "j3"),
             ("g2", "j3"), ("j3", "h"), ("h", "check"), ("check", "f"), ("check", "end")]
    if inserted:
        edges.remove(("j1", "c"))
        edges += [("j1", "new"), ("new", "c")]
    ids = sorted({end for edge in edges for end in edge})
    nodes = tuple(LayoutNode(node_id, "evStart" if node_id == "start" else "task", 100.0, 50.0) for node_id in ids)
    return LayoutGraph(nodes, tuple(LayoutEdge(source, target) for source, target in edges))


def _draw(key: str, graph: LayoutGraph, sketch: Sketch | None = None) -> Layout:
    return get_strategy(key).layout(graph, LayoutOptions(sketch=sketch))


@pytest.mark.parametrize("key", ["horizontal", "vertical"])
def test_an_inserted_task_leaves_the_other_shapes_in_their_rows(key: str) -> None:
    direction = VERTICAL if key == "vertical" else HORIZONTAL
    before = _draw(key, _process(False))
    fresh = _draw(key, _process(True))
    sketched = _draw(key, _process(True), Sketch.of(before, direction))
    kept = Stability.between(before, sketched, direction.swapped)
    reshuffled = Stability.between(before, fresh, direction.swapped)
    # a fresh layout moves 10 of the 21 shapes out of their rows; the sketch keeps all but
    # one or two (the branch next to the insertion still shifts: issue 22 stays open)
    assert reshuffled.rows_left >= 10 and kept.rows_left <= 2
    assert kept.order_kept >= reshuffled.order_kept
    assert crossings(sketched) <= crossings(fresh) + 1
    assert {node.id for node in sketched.nodes} == {node.id for node in fresh.nodes}


def test_same_content_and_sketch_give_the_same_drawing() -> None:
    sketch = Sketch.of(_draw("horizontal", _process(False)), HORIZONTAL)
    assert _draw("horizontal", _process(True), sketch) == _draw("horizontal", _process(True), sketch)


def test_a_sketch_survives_its_json_and_bad_json_is_refused() -> None:
    sketch = Sketch.of(_draw("vertical", _process(False)), VERTICAL)
    assert Sketch.from_json(sketch.to_json()) == sketch
    for bad in ("", "[]", '{"nodes": {"a": [1]}, "routes": []}', '{"nodes": {}, "routes": [["a"]]}'):
        with pytest.raises(ValueError, match="not a layout sketch"):
            Sketch.from_json(bad)
