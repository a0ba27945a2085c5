// The view onto the drawing: a CSS transform (translate, then scale) on the <svg>, which
// keeps its own size and viewBox, so a pan or zoom step never re-lays the SVG out; steps
// are batched to one per animation frame. Also the zoom figure and the overview map.

import { t } from "./i18n.js";
import { $, state } from "./page.js";

const ZOOM_STEP = 1.25;
const ZOOM_MAX = 8; // CSS pixels per diagram unit
const READABLE_LABEL_PX = 9; // a label drawn smaller than this is not read, only seen
const DEFAULT_FONT_SIZE = 12; // the renderer's label size when the SVG does not say
const PAN_STEP_PX = 60;
const DRAG_THRESHOLD_PX = 4;
const START_MARGIN_PX = 40; // room left of the start shape when a diagram opens on it
const OVERVIEW_MAX = { w: 240, h: 140 }; // the overview map's box, in CSS pixels

const container = () => $("[data-testid=diagram]");
const currentSvg = () => $("[data-testid=diagram] > svg");
let pendingFrame = 0;

// The view is {s, tx, ty}: a diagram point d is drawn at tx + s * (d - base.x) pixels
// from the container's left edge (ty likewise from its top).
export const viewNow = () => state.drawing?.view;
export const scaleNow = () => state.drawing?.view?.s ?? 1;

// The smallest scale at which labels are readable, from the SVG's own font size.
export function readableScale(svg) {
  const fontSize = Number(svg.getAttribute("font-size")) || DEFAULT_FONT_SIZE;
  return READABLE_LABEL_PX / fontSize;
}

function fitScale() {
  const { base } = state.drawing;
  const box = container();
  return Math.min(box.clientWidth / base.w, box.clientHeight / base.h);
}

function zoomLimits() {
  return { min: Math.min(fitScale() / 2, readableScale(currentSvg())), max: ZOOM_MAX };
}

// The next view, applied at the next animation frame (many wheel or pointer events in
// one frame cost one style change).
export function setView(view) {
  if (!state.drawing) return;
  state.drawing.view = view;
  if (!pendingFrame) pendingFrame = requestAnimationFrame(applyView);
}

function applyView() {
  pendingFrame = 0;
  const svg = currentSvg();
  const view = state.drawing?.view;
  if (!svg || !view) return;
  svg.style.transform = `translate(${view.tx}px, ${view.ty}px) scale(${view.s})`;
  const figure = $("[data-testid=zoom-figure]");
  if (figure) figure.textContent = `${Math.round(view.s * 100)} %`;
  showViewportOnOverview(view);
}

export function fitView() {
  if (state.drawing) centredAt(fitScale());
}

function centredAt(s) {
  const { base } = state.drawing;
  const box = container();
  setView({ s, tx: (box.clientWidth - s * base.w) / 2, ty: (box.clientHeight - s * base.h) / 2 });
}

// A diagram readable when fitted opens fitted (a small one at 100 %, not blown up); a
// bigger one opens at the readable scale on its start shape, near the left edge and in
// the vertical middle, the view kept inside the drawing where the drawing is larger.
export function openingView(startShape) {
  centredAt(Math.min(fitScale(), 1));
  const readable = readableScale(currentSvg());
  if (fitScale() >= readable || !startShape) return;
  const { base } = state.drawing;
  const box = container();
  const x = Number(startShape.getAttribute("x")) - base.x;
  const y = Number(startShape.getAttribute("y")) + Number(startShape.getAttribute("height")) / 2 - base.y;
  // A start in the first half of the view from the drawing's edge is shown with that edge
  // (a lane's name, the top lane) rather than pushed to the margin.
  const nearLeft = readable * x < box.clientWidth / 2;
  const nearTop = readable * y < box.clientHeight / 2;
  setView({ s: readable,
    tx: within(nearLeft ? 0 : START_MARGIN_PX - readable * x, box.clientWidth, readable * base.w),
    ty: within(nearTop ? 0 : box.clientHeight / 2 - readable * y, box.clientHeight, readable * base.h) });
}

// An offset that keeps a drawing of `drawn` pixels covering a view of `size` pixels, or
// centred in it when smaller.
function within(wanted, size, drawn) {
  if (drawn <= size) return (size - drawn) / 2;
  return Math.min(0, Math.max(size - drawn, wanted));
}

// Moves the view so the shape's rect is in the middle, zooming in to readable if needed.
export function centreOn(shape) {
  const view = state.drawing?.view;
  if (!view) return;
  const { base } = state.drawing;
  const box = container();
  const s = Math.max(view.s, readableScale(currentSvg()));
  const x = Number(shape.getAttribute("x")) + Number(shape.getAttribute("width")) / 2 - base.x;
  const y = Number(shape.getAttribute("y")) + Number(shape.getAttribute("height")) / 2 - base.y;
  setView({ s, tx: box.clientWidth / 2 - s * x, ty: box.clientHeight / 2 - s * y });
}

// Pans just enough to bring the shape into view (keyboard focus moving along the flows).
export function reveal(shape) {
  const view = state.drawing?.view;
  if (!view) return;
  const { base } = state.drawing;
  const box = container();
  const left = view.tx + view.s * (Number(shape.getAttribute("x")) - base.x);
  const top = view.ty + view.s * (Number(shape.getAttribute("y")) - base.y);
  const right = left + view.s * Number(shape.getAttribute("width"));
  const bottom = top + view.s * Number(shape.getAttribute("height"));
  const inside = left >= 0 && top >= 0 && right <= box.clientWidth && bottom <= box.clientHeight;
  if (!inside) centreOn(shape);
}

export function zoomAt(factor, clientX, clientY) {
  const view = state.drawing?.view;
  if (!view) return;
  const rect = container().getBoundingClientRect();
  const px = (clientX ?? rect.left + rect.width / 2) - rect.left;
  const py = (clientY ?? rect.top + rect.height / 2) - rect.top;
  const { min, max } = zoomLimits();
  const s = Math.min(Math.max(view.s * factor, min), max);
  // The diagram point under the pointer stays under it.
  setView({ s, tx: px - (px - view.tx) * (s / view.s), ty: py - (py - view.ty) * (s / view.s) });
}

export function panBy(dxPixels, dyPixels) {
  const view = state.drawing?.view;
  if (view) setView({ ...view, tx: view.tx + dxPixels, ty: view.ty + dyPixels });
}

// ---- overview map: the whole drawing as an image, the view as a frame on it ----------

let overviewUrl = null;

export function showOverview(svgText) {
  const overview = ensureOverview();
  if (overviewUrl) URL.revokeObjectURL(overviewUrl);
  overviewUrl = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
  const { w, h } = state.drawing.base;
  const ratio = Math.min(OVERVIEW_MAX.w / w, OVERVIEW_MAX.h / h);
  overview.style.width = `${Math.max(1, Math.round(w * ratio))}px`;
  overview.style.height = `${Math.max(1, Math.round(h * ratio))}px`;
  $("img", overview).src = overviewUrl;
  overview.hidden = false;
}

export function hideOverview() {
  const overview = $("[data-testid=overview]");
  if (overview) overview.hidden = true;
}

function ensureOverview() {
  let overview = $("[data-testid=overview]");
  if (overview) return overview;
  overview = document.createElement("div");
  overview.className = "overview";
  overview.dataset.testid = "overview";
  overview.dataset.i18nTitle = "overviewHelp";
  overview.title = t("overviewHelp");
  overview.setAttribute("aria-hidden", "true"); // the keyboard pans and zooms the diagram itself
  const image = document.createElement("img");
  image.alt = "";
  image.draggable = false;
  const frame = document.createElement("div");
  frame.className = "viewport";
  overview.append(image, frame);
  container().parentElement.append(overview);
  const moveTo = (event) => {
    const view = state.drawing?.view;
    if (!view) return;
    const rect = overview.getBoundingClientRect();
    const ratio = rect.width / state.drawing.base.w;
    const x = (event.clientX - rect.left) / ratio;
    const y = (event.clientY - rect.top) / ratio;
    const box = container();
    setView({ ...view, tx: box.clientWidth / 2 - view.s * x, ty: box.clientHeight / 2 - view.s * y });
  };
  overview.addEventListener("pointerdown", (event) => {
    overview.setPointerCapture(event.pointerId);
    moveTo(event);
  });
  overview.addEventListener("pointermove", (event) => {
    if (overview.hasPointerCapture(event.pointerId)) moveTo(event);
  });
  return overview;
}

function showViewportOnOverview(view) {
  const overview = $("[data-testid=overview]");
  if (!overview || overview.hidden) return;
  const frame = $(".viewport", overview);
  const ratio = parseFloat(overview.style.width) / state.drawing.base.w;
  const box = container();
  const left = (-view.tx / view.s) * ratio;
  const top = (-view.ty / view.s) * ratio;
  const width = (box.clientWidth / view.s) * ratio;
  const height = (box.clientHeight / view.s) * ratio;
  frame.style.transform = `translate(${left}px, ${top}px)`;
  frame.style.width = `${width}px`;
  frame.style.height = `${height}px`;
  // With all of the drawing in view the map shows nothing more, and would only hide a part.
  const slack = 0.5; // pixels of the map: rounding, not a part out of view
  const all = left <= slack && top <= slack && left + width >= parseFloat(overview.style.width) - slack
    && top + height >= parseFloat(overview.style.height) - slack;
  overview.classList.toggle("all-in-view", all);
}

// ---- pointer and keyboard -------------------------------------------------------------

// Wheel zoom about the pointer, drag to pan; `onShape(target)` gets the clicks on a shape
// or its diagram badge that were not the end of a drag. Keys are handled by diagram.js (with viewKey).
export function wirePanZoom(box, onShape) {
  let drag = null;
  let suppressClick = false;
  box.addEventListener("wheel", (event) => {
    event.preventDefault();
    const pixels = event.deltaY * (event.deltaMode === 1 ? 16 : 1);
    zoomAt(Math.exp(-pixels * 0.002), event.clientX, event.clientY);
  }, { passive: false });
  box.addEventListener("pointerdown", (event) => {
    suppressClick = false;
    if (event.button === 0) drag = { x: event.clientX, y: event.clientY, moved: false };
  });
  box.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
    if (!drag.moved) box.setPointerCapture(event.pointerId);
    drag = { x: event.clientX, y: event.clientY, moved: true };
    box.classList.add("panning");
    panBy(dx, dy);
  });
  const endDrag = () => {
    suppressClick = Boolean(drag?.moved); // a drag that ends on a shape does not open it
    drag = null;
    box.classList.remove("panning");
  };
  box.addEventListener("pointerup", endDrag);
  box.addEventListener("pointercancel", endDrag);
  box.addEventListener("click", (event) => {
    const target = event.target.closest?.("rect.overlay, .diagram-badge");
    if (target && !suppressClick) onShape(target);
  });
}

// The view keys, for the diagram and its shapes alike: + = - zoom, 0 fits, Shift+arrows
// pan (plain arrows pan too on the diagram itself; on a shape they follow the flows).
export function viewKey(event, focusedShape) {
  const pan = {
    ArrowLeft: [PAN_STEP_PX, 0], ArrowRight: [-PAN_STEP_PX, 0],
    ArrowUp: [0, PAN_STEP_PX], ArrowDown: [0, -PAN_STEP_PX],
  }[event.key];
  if (pan && (event.shiftKey || !focusedShape)) return () => panBy(...pan);
  return {
    "+": () => zoomAt(ZOOM_STEP), "=": () => zoomAt(ZOOM_STEP),
    "-": () => zoomAt(1 / ZOOM_STEP), "0": fitView,
  }[event.key];
}

export const zoomIn = () => zoomAt(ZOOM_STEP);
export const zoomOut = () => zoomAt(1 / ZOOM_STEP);
