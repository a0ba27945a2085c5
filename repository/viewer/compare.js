// Two versions of a diagram compared in the panel (issue 22, item 4): the versions list
// lets a user pick two and see the compare drawing (endpoint 16b's SVG, sanitized as every
// drawing is) and the list of changes; a pending release shows its approver the diff
// against the last released version beside the transition buttons.

import { api } from "./api.js";
import { sanitizeSvg } from "./diagram.js";
import { attributeWord, relatedWord, stateWord, t, typeWord } from "./i18n.js";
import { $, $$, enc, note, pick, state } from "./page.js";

// States of a version waiting for an approver's decision (docs/contract.md).
const PENDING = new Set(["inReview", "readyForQa", "readyForRelease", "requestToExpire"]);
// States of a version that was released once.
const WAS_RELEASED = new Set(["released", "requestToExpire", "expired"]);
// A change's kind → the page's phrase for its line.
const CHANGE_PHRASES = {
  added: "changeAdded", removed: "changeRemoved", moved: "changeMoved", changed: "changeChanged", flows: "changeFlows",
};
// Diagram units to pixels in the panel: small, and still readable.
const DRAWING_SCALE = 0.7;
// Bumped by each comparison asked for: an answer arriving after a newer request (the
// pending release's diff still loading when a user picks two versions) is dropped.
let latestRequest = 0;

// Called by the panel once it listed `history` (oldest first) in [data-testid=versions].
export async function showComparisons(element, history) {
  clearComparisons();
  const section = comparisonSection();
  addPickers(element, history);
  if (!PENDING.has(element.state) || !history.length) return;
  const pending = history[history.length - 1];
  const released = [...history.slice(0, -1)].reverse().find((version) => WAS_RELEASED.has(version.state));
  if (!released) {
    section.append(note(t("firstRelease")));
    return;
  }
  await showComparison(element, released, pending, t("changesSinceReleased"));
}

export function clearComparisons() {
  latestRequest += 1;
  comparisonSection().replaceChildren();
}

// The comparison sits right after the transition buttons, in a section of its own.
function comparisonSection() {
  let section = $("[data-testid=compare]");
  if (!section) {
    section = document.createElement("section");
    section.className = "compare";
    section.dataset.testid = "compare";
    section.setAttribute("aria-live", "polite");
    $("[data-testid=transitions]").after(section);
  }
  return section;
}

function addPickers(element, history) {
  const items = $$("[data-testid=versions] > li");
  items.forEach((item, index) => {
    const version = history[index];
    if (!version) return;
    const picker = document.createElement("input");
    picker.type = "checkbox";
    picker.dataset.compareVersion = version.versionId;
    picker.setAttribute("aria-label", t("compareVersion", { version: item.textContent }));
    picker.addEventListener("change", () => pickersChanged(element, history));
    item.prepend(picker);
  });
}

async function pickersChanged(element, history) {
  const picked = $$("[data-testid=versions] input[data-compare-version]:checked");
  if (picked.length > 2) {
    for (const box of picked.slice(0, -2)) box.checked = false; // the two picked last count
  }
  const chosen = $$("[data-testid=versions] input[data-compare-version]:checked")
    .map((box) => history.find((version) => version.versionId === box.dataset.compareVersion));
  if (chosen.length !== 2) return;
  const [older, newer] = chosen.sort((a, b) => history.indexOf(a) - history.indexOf(b));
  await showComparison(element, older, newer, t("changesBetweenPicked"));
}

async function showComparison(element, older, newer, title) {
  const request = ++latestRequest;
  const section = comparisonSection();
  const heading = document.createElement("h4");
  heading.textContent = `${title}: ${label(older)} → ${label(newer)}`;
  section.replaceChildren(heading, note(t("comparing")));
  const path = `rest/diagram/${enc(element.id)}/compare/${enc(older.versionId)}/${enc(newer.versionId)}`;
  let changes;
  let svgText;
  try {
    [changes, svgText] = await Promise.all([
      api(path),
      api(`${path}/render/${enc(state.culture)}/${enc(state.layout)}`, { svg: true }),
    ]);
  } catch (error) {
    if (request === latestRequest && state.element?.id === element.id) section.replaceChildren(heading, note(t("compareFailed", { reason: error.message })));
    return;
  }
  if (request !== latestRequest || state.element?.id !== element.id) return; // moved on meanwhile
  const drawing = readableDrawing(sanitizeSvg(svgText));
  section.replaceChildren(heading, drawing, changeList(changes));
  scrollToFirstChange(drawing);
}

// The drawing at a readable scale in a box of the panel's width that scrolls (a long flow
// fitted to 300 pixels would be unreadable). Styles set through the CSSOM, which the
// page's Content-Security-Policy allows.
function readableDrawing(svg) {
  const box = document.createElement("div");
  box.className = "compare-drawing";
  box.dataset.testid = "compare-drawing";
  Object.assign(box.style, { overflow: "auto", maxHeight: "420px", border: "1px solid #d3d9e0" });
  // A box that scrolls is reached with the keyboard too (its arrows scroll it), by name.
  box.tabIndex = 0;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", t("compareDrawing"));
  const [, , width, height] = (svg.getAttribute("viewBox") || "0 0 0 0").split(/\s+/).map(Number);
  svg.setAttribute("width", String(Math.round(width * DRAWING_SCALE)));
  svg.setAttribute("height", String(Math.round(height * DRAWING_SCALE)));
  box.append(svg);
  return box;
}

function scrollToFirstChange(box) {
  const first = $("rect.overlay[data-change]", box);
  if (!first) return;
  const left = Number(first.getAttribute("x")) * DRAWING_SCALE;
  const top = Number(first.getAttribute("y")) * DRAWING_SCALE;
  box.scrollTo(Math.max(0, left - box.clientWidth / 3), Math.max(0, top - box.clientHeight / 3));
}

function label(version) {
  return `${pick(version.attributes?.version) ?? "?"} (${stateWord(version.state)})`;
}

// One line per change, in the page's words (a change's kind is kept as `data-change`),
// user text as text only.
function changeList(changes) {
  const list = document.createElement("ul");
  list.className = "change-list";
  list.dataset.testid = "change-list";
  const line = (kind, text) => {
    const item = document.createElement("li");
    item.dataset.change = kind;
    item.textContent = t(CHANGE_PHRASES[kind], { what: text });
    list.append(item);
  };
  const shapeText = (shape) => `${pick(shape.name) ?? t("noName")} (${typeWord(shape.type)})`;
  const whatChanged = (change) => [...change.attributes.map((attribute) => attributeWord(attribute.name)),
    ...change.related.map(relatedWord)];
  for (const kind of ["added", "removed", "moved"]) {
    for (const shape of changes.shapes[kind]) line(kind, shapeText(shape));
  }
  for (const shape of changes.shapes.changed) {
    const what = whatChanged(shape);
    if (shape.writtenSince) what.push(t("editedSince")); // one state: what changed is not kept
    line("changed", `${shapeText(shape)}: ${what.join(", ") || t("itsElement")}`);
  }
  const diagram = whatChanged(changes.diagram);
  if (diagram.length) line("changed", t("theDiagram", { what: diagram.join(", ") }));
  const [added, removed] = [changes.flows.added.length, changes.flows.removed.length];
  if (added + removed) line("flows", t("flowsAddedRemoved", { added, removed }));
  if (changes.same) list.append(note(t("noChange")));
  return list;
}
