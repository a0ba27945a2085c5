// The drawing: fetched rendered SVG, sanitized before it enters the page, its overlays
// made clickable; pan and zoom through the root's viewBox; SVG and PNG downloads.

import { api } from "./api.js";
import { $, $$, enc, hrefFor, nameElement, nameOf, note, setStatus, state, typeName } from "./page.js";

// Layouts that draw an element's hierarchy, so they work for elements without content.
const HIERARCHY_LAYOUTS = ["graphic", "processMatrix", "customerMatrix"];
const SVG_NS = "http://www.w3.org/2000/svg";
// What the renderer writes (docs/svg.md); anything else is dropped before insertion.
const SVG_ELEMENTS = new Set(["svg", "g", "defs", "marker", "path", "polygon", "polyline",
  "rect", "circle", "ellipse", "line", "text", "tspan", "title", "desc"]);
const ZOOM_STEP = 1.25;
const ZOOM_LIMITS = { min: 0.05, max: 8 }; // pixels per diagram unit
const READABLE_SCALE = 1; // big diagrams open at this scale instead of unreadably fitted
const PAN_STEP_PX = 60;
const DRAG_THRESHOLD_PX = 4;
const PNG_MAX_SIDE = 16384; // canvas limits of current browsers
const PNG_MAX_PIXELS = 100e6;

function effectiveLayout(diagram) {
  const hasContent = (diagram.content || []).length > 0;
  return hasContent || HIERARCHY_LAYOUTS.includes(state.layout) ? state.layout : HIERARCHY_LAYOUTS[0];
}

export async function showDiagram(diagram, navigation) {
  const layout = effectiveLayout(diagram);
  $("select[name=layout]").value = layout;
  const key = `${diagram.id}|${layout}|${state.culture}`;
  const title = $("[data-testid=diagram-title]");
  title.replaceChildren(nameElement("span", diagram.id));
  if (state.drawing?.key === key) return;
  const container = $("[data-testid=diagram]");
  container.setAttribute("aria-busy", "true");
  try {
    const svgText = await api(`rest/diagram/${enc(diagram.id)}/render/${state.culture}/${layout}`, { svg: true });
    if (navigation !== state.navigation) return;
    const svg = sanitizeSvg(svgText);
    const cleanText = new XMLSerializer().serializeToString(svg);
    const [x, y, w, h] = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
    svg.removeAttribute("width"); // the page sizes it; the download keeps the original
    svg.removeAttribute("height");
    prepareOverlays(svg);
    container.replaceChildren(svg);
    state.drawing = { key, layout, svgText: cleanText, base: { x, y, w, h } };
    openingView();
  } catch (error) {
    if (navigation !== state.navigation) return;
    state.drawing = null;
    container.replaceChildren(note(`The diagram could not be drawn: ${error.message}`));
  } finally {
    container.removeAttribute("aria-busy");
  }
}

export function clearDiagram() {
  state.drawing = null;
  $("[data-testid=diagram-title]").textContent = "";
  $("[data-testid=diagram]").replaceChildren(note("This element has no diagram."));
}

// Rendered SVG goes into the DOM: keep only what the renderer writes (no script, no
// foreignObject, no event handlers, no outside references), whatever the answer holds.
export function sanitizeSvg(text) {
  // The SVG's own <style> embeds its font subset; the page serves the same font itself,
  // and parsing the inline style would only be refused by the page's CSP (a console error).
  const withoutStyle = text.replace(/<style[\s>][\s\S]*?<\/style>/g, "");
  const parsed = new DOMParser().parseFromString(withoutStyle, "image/svg+xml");
  const root = parsed.documentElement;
  if (root.namespaceURI !== SVG_NS || root.localName !== "svg" || parsed.querySelector("parsererror")) {
    throw new Error("the answer is not an SVG document");
  }
  for (const element of $$("*", root)) {
    if (element.namespaceURI !== SVG_NS || !SVG_ELEMENTS.has(element.localName)) element.remove();
    else scrubAttributes(element);
  }
  scrubAttributes(root);
  return document.importNode(root, true);
}

function scrubAttributes(element) {
  for (const { name, value } of [...element.attributes]) {
    const lower = name.toLowerCase();
    const compact = value.replace(/\s+/g, "").toLowerCase();
    const outsideUrl = compact.includes("url(") && !/^url\(#[\w.-]+\)$/.test(compact);
    if (lower.startsWith("on") || lower === "style" || lower.endsWith("href") || outsideUrl
        || compact.startsWith("javascript:")) {
      element.removeAttribute(name);
    }
  }
}

// Overlays become keyboard-reachable buttons; clicks are handled once on the container.
function prepareOverlays(svg) {
  for (const overlay of $$("rect.overlay", svg)) {
    overlay.setAttribute("tabindex", "0");
    overlay.setAttribute("role", "button");
    overlay.setAttribute("aria-label", typeName(overlay.dataset.type));
    const facet = state.catalog.types[overlay.dataset.type]?.facet;
    if (facet) state.facetOf.set(overlay.dataset.guid, facet);
  }
}

function openOverlay(overlay, { ownDiagram = false } = {}) {
  const id = overlay.dataset.guid;
  location.hash = hrefFor(id, { diagramId: ownDiagram ? undefined : state.diagram?.id });
}

// ---- pan and zoom: the root's viewBox is the view ----------------------------------

const currentSvg = () => $("[data-testid=diagram] > svg");

function setView(view) {
  state.drawing.view = view;
  currentSvg().setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
}

// Pixels per diagram unit at the current view.
export function scaleNow() {
  return currentSvg().getScreenCTM()?.a || 1;
}

function fitView() {
  if (currentSvg()) setView({ ...state.drawing.base });
}

function openingView() {
  fitView();
  const container = $("[data-testid=diagram]");
  if (scaleNow() >= READABLE_SCALE / 2) return;
  // Too big to read when fitted: open readable, around the first start event (where a
  // flow begins), else at the top-left corner.
  const { base } = state.drawing;
  const w = container.clientWidth / READABLE_SCALE;
  const h = container.clientHeight / READABLE_SCALE;
  const start = $("rect.overlay[data-type=evStart]", currentSvg());
  const number = (name) => Number(start.getAttribute(name));
  const centre = start
    ? { x: number("x") + number("width") / 2, y: number("y") + number("height") / 2 }
    : { x: base.x, y: base.y };
  setView({ x: within(centre.x - w / 2, base.x, base.w, w), y: within(centre.y - h / 2, base.y, base.h, h), w, h });
}

// Where a view of `size` starts so it stays inside [origin, origin + extent], or is
// centred on it when larger.
function within(wanted, origin, extent, size) {
  if (size >= extent) return origin - (size - extent) / 2;
  return Math.min(Math.max(wanted, origin), origin + extent - size);
}

function zoomAt(factor, clientX, clientY) {
  const svg = currentSvg();
  if (!svg) return;
  const scale = scaleNow();
  const wanted = Math.min(Math.max(scale * factor, ZOOM_LIMITS.min), ZOOM_LIMITS.max);
  const applied = wanted / scale;
  const box = svg.getBoundingClientRect();
  const point = new DOMPoint(clientX ?? box.left + box.width / 2, clientY ?? box.top + box.height / 2)
    .matrixTransform(svg.getScreenCTM().inverse());
  const view = state.drawing.view;
  setView({ x: point.x - (point.x - view.x) / applied, y: point.y - (point.y - view.y) / applied,
    w: view.w / applied, h: view.h / applied });
}

function panBy(dxPixels, dyPixels) {
  if (!currentSvg()) return;
  const unitsPerPixel = 1 / scaleNow();
  const view = state.drawing.view;
  setView({ ...view, x: view.x - dxPixels * unitsPerPixel, y: view.y - dyPixels * unitsPerPixel });
}

function wirePanZoom(container) {
  let drag = null;
  let suppressClick = false;
  container.addEventListener("wheel", (event) => {
    event.preventDefault();
    const pixels = event.deltaY * (event.deltaMode === 1 ? 16 : 1);
    zoomAt(Math.exp(-pixels * 0.002), event.clientX, event.clientY);
  }, { passive: false });
  container.addEventListener("pointerdown", (event) => {
    suppressClick = false;
    if (event.button === 0) drag = { x: event.clientX, y: event.clientY, moved: false };
  });
  container.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
    if (!drag.moved) container.setPointerCapture(event.pointerId);
    drag = { x: event.clientX, y: event.clientY, moved: true };
    container.classList.add("panning");
    panBy(dx, dy);
  });
  const endDrag = () => {
    suppressClick = Boolean(drag?.moved); // a drag that ends on a shape does not open it
    drag = null;
    container.classList.remove("panning");
  };
  container.addEventListener("pointerup", endDrag);
  container.addEventListener("pointercancel", endDrag);
  container.addEventListener("click", (event) => {
    const overlay = event.target.closest?.("rect.overlay");
    if (overlay && !suppressClick) openOverlay(overlay);
  });
  container.addEventListener("dblclick", (event) => {
    const overlay = event.target.closest?.("rect.overlay");
    if (overlay) openOverlay(overlay, { ownDiagram: true });
  });
  container.addEventListener("keydown", (event) => {
    const overlay = event.target.closest?.("rect.overlay");
    const actions = {
      "+": () => zoomAt(ZOOM_STEP), "=": () => zoomAt(ZOOM_STEP),
      "-": () => zoomAt(1 / ZOOM_STEP), "0": fitView,
      ArrowLeft: () => panBy(PAN_STEP_PX, 0), ArrowRight: () => panBy(-PAN_STEP_PX, 0),
      ArrowUp: () => panBy(0, PAN_STEP_PX), ArrowDown: () => panBy(0, -PAN_STEP_PX),
      Enter: () => overlay && openOverlay(overlay), " ": () => overlay && openOverlay(overlay),
    };
    if (!actions[event.key] || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    actions[event.key]();
  });
}

// ---- downloads ----------------------------------------------------------------------

function downloadName(extension) {
  const name = (nameOf(state.diagram.id) || state.diagram.id).replace(/[^\p{L}\p{N}_-]+/gu, "_");
  return `${name}.${state.drawing.layout}.${state.culture}.${extension}`;
}

function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function downloadSvg() {
  if (!state.drawing) return;
  saveBlob(new Blob([state.drawing.svgText], { type: "image/svg+xml" }), downloadName("svg"));
}

// The whole drawing at up to twice its size, within what a canvas can hold.
async function downloadPng() {
  if (!state.drawing) return;
  const { w, h } = state.drawing.base;
  const scale = Math.min(2, PNG_MAX_SIDE / w, PNG_MAX_SIDE / h, Math.sqrt(PNG_MAX_PIXELS / (w * h)));
  const url = URL.createObjectURL(new Blob([state.drawing.svgText], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(w * scale);
    canvas.height = Math.ceil(h * scale);
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff"; // PNG viewers show transparency as black or checkers
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    if (!blob) throw new Error("the browser could not encode the image");
    saveBlob(blob, downloadName("png"));
  } catch (error) {
    setStatus(`PNG export failed: ${error.message}`, true);
  } finally {
    URL.revokeObjectURL(url);
  }
}

// The diagram pane's pointer and keyboard handling and its toolbar.
export function wireDiagram() {
  $("[data-action=zoom-in]").addEventListener("click", () => zoomAt(ZOOM_STEP));
  $("[data-action=zoom-out]").addEventListener("click", () => zoomAt(1 / ZOOM_STEP));
  $("[data-action=zoom-fit]").addEventListener("click", fitView);
  $("[data-action=download-svg]").addEventListener("click", downloadSvg);
  $("[data-action=download-png]").addEventListener("click", downloadPng);
  wirePanZoom($("[data-testid=diagram]"));
}
