// The shapes of the drawing as the keyboard and a screen reader meet them: each overlay a
// button named "Task: Check credit, released", reached in flow order. Tab and Shift+Tab
// step through the flow order; on a shape the arrow keys follow the flows: → to its
// (first) successor, ← back to where it was entered from, ↓ and ↑ through the other
// branches out of that shape. Added here, after loading, so the renderer's SVG (and its
// goldens) stays as it is.

import { lookUpNames } from "./api.js";
import { stateWord, t, typeWord } from "./i18n.js";
import { $$, nameOf, state } from "./page.js";
import { reveal } from "./view.js";

// The flow graph of the shown drawing: overlays by shape id, successors and predecessors
// by shape id (connector order), and the shapes in flow order.
let graph = null;

export function flowGraph(svg) {
  const overlays = new Map($$("rect.overlay", svg).map((overlay) => [overlay.dataset.shapeId, overlay]));
  const successors = new Map([...overlays.keys()].map((id) => [id, []]));
  const predecessors = new Map([...overlays.keys()].map((id) => [id, []]));
  for (const connector of $$("path.connector", svg)) {
    const { sourceShapeId: source, targetShapeId: target } = connector.dataset;
    if (!overlays.has(source) || !overlays.has(target)) continue;
    successors.get(source).push(target);
    predecessors.get(target).push(source);
  }
  return { overlays, successors, predecessors, order: flowOrder(overlays, successors, predecessors) };
}

// Every shape once, each after the shapes that lead to it (loops aside): a depth-first
// reverse postorder from the start shapes (those without predecessors, start events
// first), then whatever no flow reaches, in drawing order.
function flowOrder(overlays, successors, predecessors) {
  const ids = [...overlays.keys()];
  const isStartEvent = (id) => overlays.get(id).dataset.type === "evStart";
  const starts = ids.filter((id) => predecessors.get(id).length === 0)
    .sort((a, b) => Number(isStartEvent(b)) - Number(isStartEvent(a)));
  const visited = new Set();
  const finished = [];
  for (const root of [...starts, ...ids]) {
    if (visited.has(root)) continue;
    const component = [];
    visited.add(root);
    const stack = [[root, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const next = successors.get(top[0])[top[1]++];
      if (next === undefined) {
        component.push(stack.pop()[0]);
      } else if (!visited.has(next)) {
        visited.add(next);
        stack.push([next, 0]);
      }
    }
    finished.push(component.reverse());
  }
  return finished.flat().map((id) => overlays.get(id));
}

// The shapes in flow order; the first is where a big diagram opens.
export const shapesInFlowOrder = () => graph?.order ?? [];

export function prepareShapes(svg) {
  graph = flowGraph(svg);
  const first = graph.order[0];
  for (const overlay of graph.overlays.values()) {
    overlay.setAttribute("tabindex", overlay === first ? "0" : "-1");
    overlay.setAttribute("role", "button");
    overlay.setAttribute("aria-label", typeWord(overlay.dataset.type));
  }
  return graph;
}

// Names arrive after the drawing: one listing per facet, then every overlay is named.
// `shapesNamed` settles when they have (the search waits for it).
let named = Promise.resolve();
export const shapesNamed = () => named;

export function nameShapes(svg) {
  named = namedNow(svg);
  return named;
}

async function namedNow(svg) {
  const overlays = $$("rect.overlay", svg);
  await lookUpNames(overlays.map((overlay) => ({ id: overlay.dataset.guid,
    facetName: state.facetOf.get(overlay.dataset.guid) || state.catalog.types[overlay.dataset.type]?.facet })),
  { drawings: true });
  if (!svg.isConnected) return; // another drawing replaced this one meanwhile
  for (const overlay of overlays) {
    if (opensDiagram(overlay)) addDiagramBadge(overlay);
    overlay.setAttribute("aria-label", accessibleName(overlay));
  }
}

// A shape whose element has a drawing of its own, other than the one shown.
export const opensDiagram = (overlay) =>
  Boolean(state.drawable.get(overlay.dataset.guid)) && overlay.dataset.guid !== state.diagram?.id;

// "Sub process: Credit check, released, has its own diagram", in the culture's words.
export function accessibleName(overlay) {
  const id = overlay.dataset.guid;
  const parts = [`${typeWord(overlay.dataset.type)}: ${nameOf(id)}`];
  const lifecycle = state.elementStates.get(id);
  if (lifecycle) parts.push(stateWord(lifecycle));
  if (opensDiagram(overlay)) parts.push(t("hasOwnDiagram"));
  return parts.join(", ");
}

const SVG_NS = "http://www.w3.org/2000/svg";
const BADGE = 16; // diagram units: 12 px at the readable scale
const BADGE_INSET = 3;

function svgElement(tag, attributes) {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

// The cue on a shape that opens a diagram: a small badge in its top right corner (two
// boxes and a flow), lit when the shape is hovered; one click on it opens the diagram
// (diagram.js). Hidden from assistive technology: the shape's own name says it.
function addDiagramBadge(overlay) {
  const x = Number(overlay.getAttribute("x")) + Number(overlay.getAttribute("width")) - BADGE - BADGE_INSET;
  const y = Number(overlay.getAttribute("y")) + BADGE_INSET;
  overlay.classList.add("has-diagram");
  const badge = svgElement("g", { class: "diagram-badge", "data-guid": overlay.dataset.guid,
    "data-testid": "diagram-badge", "aria-hidden": "true" });
  const title = svgElement("title", {});
  title.textContent = t("openDiagram");
  badge.append(title, svgElement("rect", { x, y, width: BADGE, height: BADGE, rx: 3 }),
    svgElement("path", { d: `M${x + 3} ${y + 5}h4v6h-4z M${x + 9} ${y + 5}h4v6h-4z M${x + 7} ${y + 8}h2` }));
  overlay.after(badge);
}

// ---- keyboard -------------------------------------------------------------------------

let cameFrom = new Map(); // shape id -> the shape the keyboard entered it from

export function focusShape(overlay, from) {
  if (!overlay) return;
  for (const other of graph.overlays.values()) other.setAttribute("tabindex", "-1");
  overlay.setAttribute("tabindex", "0");
  if (from) cameFrom.set(overlay.dataset.shapeId, from.dataset.shapeId);
  overlay.focus({ preventScroll: true }); // the container does not scroll; the view moves
  reveal(overlay);
}

// The action of a key on a focused shape, or undefined to leave the key to others.
export function shapeKey(event, overlay) {
  if (!graph || !graph.overlays.has(overlay.dataset.shapeId)) return undefined;
  const id = overlay.dataset.shapeId;
  const index = graph.order.indexOf(overlay);
  const at = (shapeId) => graph.overlays.get(shapeId);
  const parent = cameFrom.get(id) ?? graph.predecessors.get(id)[0];
  const sibling = (step) => {
    const options = parent === undefined ? [] : graph.successors.get(parent);
    const next = options[(options.indexOf(id) + step + options.length) % options.length];
    return next === undefined || next === id ? undefined : at(next);
  };
  const target = {
    Tab: () => (event.shiftKey ? graph.order[index - 1] : graph.order[index + 1]),
    ArrowRight: () => at(graph.successors.get(id)[0]),
    ArrowLeft: () => at(parent),
    ArrowDown: () => sibling(1),
    ArrowUp: () => sibling(-1),
  }[event.key]?.();
  if (!target) return undefined; // Tab past the last shape leaves the diagram as usual
  const from = { ArrowRight: overlay, ArrowDown: at(parent), ArrowUp: at(parent) }[event.key];
  return () => focusShape(target, from);
}

export function resetKeyboard() {
  cameFrom = new Map();
}
