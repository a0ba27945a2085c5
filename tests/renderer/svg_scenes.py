"""Hand-built layouts and scenes for the SVG writer's tests (no layout pipeline), and
the parsing helpers those tests share."""
from __future__ import annotations

from lxml import etree

from layouts.geometry import Box, Cell, EdgeRoute, LaneBand, Layout, NodeBox
from renderer.scene import LaneView, Scene, ShapeView

SVG_NS = "{http://www.w3.org/2000/svg}"
HOSTILE = '<script>alert(1)</script>" onload="x\' &amp; ]]>'
FLOW_TYPES = ("evStart", "task", "subProcess", "ruleXor", "ruleAnd", "condition",
              "evIntermediate", "processInterfacePlaceholder", "evEnd", "mainProcess")
ROLES = ("container", "leaf", "entity", "satellite", "row", "column")


def parse(svg: str) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    return etree.fromstring(svg.encode("utf-8"), parser)


def by_class(root: etree._Element, tag: str, cls: str) -> list[etree._Element]:
    return [e for e in root.iter(SVG_NS + tag) if cls in (e.get("class") or "").split()]


def flow() -> tuple[Layout, Scene]:
    """One node of every flow type in a row over two horizontal lanes, chained by
    edges; the second edge has a label."""
    nodes, shapes, edges = [], {}, []
    for i, kind in enumerate(FLOW_TYPES):
        small = kind.startswith(("ev", "rule"))
        box = Box(60 + i * 140.25, 30, 40 if small else 110.5, 40 if small else 60)
        label = Box(box.x - 10, box.bottom + 4, 60, 16) if small else None
        node_id = f"n{i}"
        lane = "L1" if i % 2 == 0 else "L2"
        nodes.append(NodeBox(node_id, box, label))
        shapes[node_id] = ShapeView(f"shape-{i}", f"guid-{i}", kind, (f"Step {i}",), lane)
        if i:
            prev = nodes[i - 1].box
            points = ((prev.right, prev.cy), (prev.right + 10, prev.cy),
                      (prev.right + 10, box.cy), (box.x, box.cy))
            label_box = Box(prev.right + 2, prev.cy - 20, 30, 14) if i == 2 else None
            edges.append(EdgeRoute(f"n{i - 1}", node_id, points, label_box, key=f"e{i}"))
    lanes = (LaneBand("L1", Box(10, 10, 1450, 100), Box(10, 10, 30, 100)),
             LaneBand("L2", Box(10, 110, 1450, 100), Box(10, 110, 30, 100)))
    scene = Scene("diagram-1", "swimlaneHorizontal", shapes,
                  {"L1": LaneView("L1", ("Sales",)), "L2": LaneView("L2", ("Back", "office"))},
                  {"e2": ("yes",)})
    return Layout(1470, 220, tuple(nodes), tuple(edges), lanes), scene


def matrix() -> tuple[Layout, Scene]:
    rows, cols = ("r1", "r2"), ("c1", "c2", "c3")
    nodes = [NodeBox(r, Box(10, 50 + 30 * i, 100, 30)) for i, r in enumerate(rows)]
    nodes += [NodeBox(c, Box(110 + 60 * j, 10, 60, 40)) for j, c in enumerate(cols)]
    shapes = {r: ShapeView(r, r, "task", (r.upper(),), role="row") for r in rows}
    shapes |= {c: ShapeView(c, c, "orgUnit", (c.upper(),), role="column") for c in cols}
    cells = tuple(Cell(r, c, Box(110 + 60 * j, 50 + 30 * i, 60, 30))
                  for i, r in enumerate(rows) for j, c in enumerate(cols))
    scene = Scene("m-1", "processMatrix", shapes, cell_marks={("r1", "c2"): "E, R"},
                  legend=(("E", "executed by"), ("R", "responsible")))
    return Layout(300, 120, tuple(nodes), cells=cells), scene


def single(kind: str, role: str = "shape") -> tuple[Layout, Scene]:
    scene = Scene("d", "layered", {"n": ShapeView("n", "g", kind, ("A label",), role=role)})
    return Layout(200, 100, (NodeBox("n", Box(20, 20, 120, 60)),)), scene


def hostile() -> tuple[Layout, Scene]:
    view = ShapeView(HOSTILE, HOSTILE + "g", HOSTILE + "t", (HOSTILE,), HOSTILE)
    other = ShapeView(HOSTILE + "2", "g2", "task", (HOSTILE,), HOSTILE)
    scene = Scene(HOSTILE, HOSTILE, {"a": view, "b": other},
                  {HOSTILE: LaneView(HOSTILE, (HOSTILE,))}, {"k": (HOSTILE,)},
                  {(HOSTILE, HOSTILE): HOSTILE}, ((HOSTILE, HOSTILE),))
    nodes = (NodeBox("a", Box(50, 10, 100, 60)), NodeBox("b", Box(200, 10, 100, 60)))
    layout = Layout(400, 200, nodes,
                    (EdgeRoute("a", "b", ((150, 40), (200, 40)), Box(160, 10, 30, 14), "k"),),
                    (LaneBand(HOSTILE, Box(0, 0, 400, 100), Box(0, 0, 30, 100)),),
                    (Cell(HOSTILE, HOSTILE, Box(0, 100, 50, 50)),))
    return layout, scene
