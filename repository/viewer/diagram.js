// The drawing: fetched rendered SVG, sanitized before it enters the page, its overlays
// made clickable and keyboard-reachable (flow.js); pan, zoom and the overview (view.js);
// search within it (search.js); small edits (edit.js); SVG and PNG downloads.

import { api, fetchElement } from "./api.js";
import { noteDrawing, wireEdits } from "./edit.js";
import { nameShapes, opensDiagram, prepareShapes, resetKeyboard, shapeKey, shapesInFlowOrder } from "./flow.js";
import { t } from "./i18n.js";
import { $, $$, enc, hrefFor, nameElement, nameOf, note, setStatus, state } from "./page.js";
import { clearFound, searchForm } from "./search.js";
import {
  fitView, hideOverview, openingView, reveal, setView, showOverview, viewKey, wirePanZoom, zoomIn, zoomOut,
} from "./view.js";

// Layouts that draw an element's hierarchy, so they work for elements without content.
const HIERARCHY_LAYOUTS = ["graphic", "processMatrix", "customerMatrix"];
const SVG_NS = "http://www.w3.org/2000/svg";
// What the renderer writes (docs/svg.md; `pattern`: a compare drawing's hatched ghosts);
// anything else is dropped before insertion. A pattern's `href` (inheriting an outside
// pattern) goes as every href does.
const SVG_ELEMENTS = new Set(["svg", "g", "defs", "marker", "pattern", "path", "polygon", "polyline",
  "rect", "circle", "ellipse", "line", "text", "tspan", "title", "desc"]);
const PNG_MAX_SIDE = 16384; // canvas limits of current browsers
const PNG_MAX_PIXELS = 100e6;

function effectiveLayout(diagram) {
  const hasContent = (diagram.content || []).length > 0;
  return hasContent || HIERARCHY_LAYOUTS.includes(state.layout) ? state.layout : HIERARCHY_LAYOUTS[0];
}

// `keepView`: after an edit the new drawing is shown where the old one was looked at.
export async function showDiagram(diagram, navigation, { keepView = false } = {}) {
  const layout = effectiveLayout(diagram);
  $("select[name=layout]").value = layout;
  const key = `${diagram.id}|${layout}|${state.culture}`;
  const title = $("[data-testid=diagram-title]");
  title.replaceChildren(nameElement("span", diagram.id));
  if (state.drawing?.key === key && !keepView) return;
  const previousView = keepView ? state.drawing?.view : undefined;
  const container = $("[data-testid=diagram]");
  container.setAttribute("aria-busy", "true");
  try {
    const svgText = await api(`rest/diagram/${enc(diagram.id)}/render/${state.culture}/${layout}`, { svg: true });
    if (navigation !== state.navigation) return;
    const svg = sanitizeSvg(svgText);
    const cleanText = new XMLSerializer().serializeToString(svg);
    const [x, y, w, h] = svg.getAttribute("viewBox").split(/[\s,]+/).map(Number);
    // One diagram unit is one CSS pixel before the view's transform scales it.
    svg.setAttribute("width", String(w));
    svg.setAttribute("height", String(h));
    prepareOverlays(svg);
    resetKeyboard();
    clearFound();
    container.replaceChildren(svg);
    if ((diagram.content || []).length) noteDrawing(diagram);
    state.drawing = { key, layout, svgText: cleanText, base: { x, y, w, h } };
    showOverview(cleanText);
    if (previousView) setView(previousView); else openingView(shapesInFlowOrder()[0]);
    nameShapes(svg).catch((error) => setStatus(error.message, true));
  } catch (error) {
    if (navigation !== state.navigation) return;
    state.drawing = null;
    hideOverview();
    container.replaceChildren(note(t("cannotDraw", { reason: error.message })));
  } finally {
    container.removeAttribute("aria-busy");
  }
}

export function clearDiagram() {
  state.drawing = null;
  hideOverview();
  $("[data-testid=diagram-title]").textContent = "";
  $("[data-testid=diagram]").replaceChildren(note(t("noDiagram")));
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
  prepareShapes(svg);
  for (const overlay of $$("rect.overlay", svg)) {
    const facet = state.catalog.types[overlay.dataset.type]?.facet;
    if (facet) state.facetOf.set(overlay.dataset.guid, facet);
  }
}

// A shape (or its badge, which carries the same data-guid) opened: in the panel, inside the
// shown diagram, or with `ownDiagram` its own diagram.
function openOverlay(overlay, { ownDiagram = false } = {}) {
  const id = overlay.dataset.guid;
  location.hash = hrefFor(id, { diagramId: ownDiagram ? undefined : state.diagram?.id });
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
    setStatus(t("pngFailed", { reason: error.message }), true);
  } finally {
    URL.revokeObjectURL(url);
  }
}

// After an edit: the diagram's element read again (its content changed) and drawn where
// it was looked at, the selection kept.
async function redrawAfterEdit() {
  if (!state.diagram) return;
  state.diagram = await fetchElement(state.diagram.id);
  await showDiagram(state.diagram, state.navigation, { keepView: true });
  for (const overlay of $$("[data-testid=diagram] rect.overlay")) {
    overlay.classList.toggle("selected", overlay.dataset.guid === state.element?.id);
  }
}

function wireKeys(container) {
  // The view is the transform alone: a focused shape outside it must not scroll the pane
  // (overflow: hidden still scrolls to a focused element); the view moves to it instead.
  container.addEventListener("scroll", () => {
    container.scrollLeft = 0;
    container.scrollTop = 0;
  });
  container.addEventListener("focusin", (event) => {
    const overlay = event.target.closest?.("rect.overlay");
    if (overlay) reveal(overlay);
  });
  container.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const overlay = event.target.closest?.("rect.overlay");
    // Enter or Space selects the shape; Shift+Enter opens its own diagram, as its badge does.
    const ownDiagram = event.key === "Enter" && event.shiftKey && overlay && opensDiagram(overlay);
    const open = (event.key === "Enter" || event.key === " ") && overlay
      ? () => openOverlay(overlay, { ownDiagram }) : undefined;
    const action = open ?? viewKey(event, overlay) ?? (overlay && shapeKey(event, overlay));
    if (!action) return;
    event.preventDefault();
    action();
  });
}

// The diagram pane's pointer and keyboard handling and its toolbar; the zoom figure and
// the search box are added here, beside the page's own buttons.
export function wireDiagram() {
  const figure = document.createElement("output");
  figure.className = "zoom-figure";
  figure.dataset.testid = "zoom-figure";
  figure.dataset.i18nLabel = "zoom";
  $("[data-action=zoom-in]").before(searchForm(), figure);
  $("[data-action=zoom-in]").addEventListener("click", zoomIn);
  $("[data-action=zoom-out]").addEventListener("click", zoomOut);
  $("[data-action=zoom-fit]").addEventListener("click", fitView);
  $("[data-action=download-svg]").addEventListener("click", downloadSvg);
  $("[data-action=download-png]").addEventListener("click", downloadPng);
  const container = $("[data-testid=diagram]");
  // Its keys are its own (arrows pan or follow the flows), so it is an application to
  // assistive technology, which then passes them on; it also makes its label allowed.
  container.setAttribute("role", "application");
  // A click on a shape selects it (panel, edit bar); one on its badge opens its diagram.
  wirePanZoom(container, (target) => openOverlay(target, { ownDiagram: target.matches(".diagram-badge") }));
  container.addEventListener("dblclick", (event) => {
    const overlay = event.target.closest?.("rect.overlay");
    if (overlay) openOverlay(overlay, { ownDiagram: true });
  });
  wireKeys(container);
  wireEdits({ redraw: redrawAfterEdit });
}
