// Search within the shown drawing: type part of a shape's name, Enter moves the view to
// the first shape (in flow order) whose name holds it and highlights it; Enter again goes
// on to the next. Names in the chosen culture match first, then in any other.

import { t } from "./i18n.js";
import { $, $$, pick, state } from "./page.js";
import { shapesInFlowOrder, shapesNamed } from "./flow.js";
import { centreOn } from "./view.js";

const folded = (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLocaleLowerCase();

let hits = [];
let current = -1;
let lastQuery = "";

export function searchForm() {
  const form = document.createElement("form");
  form.className = "diagram-search";
  form.dataset.testid = "diagram-search";
  form.setAttribute("role", "search");
  form.dataset.i18nLabel = "findInDiagram"; // i18n.js says the labels in the culture
  const input = document.createElement("input");
  input.type = "search";
  input.name = "find";
  input.dataset.i18nPlaceholder = "findInDiagram";
  input.dataset.i18nLabel = "findShape";
  const result = document.createElement("span");
  result.className = "hits";
  result.dataset.testid = "diagram-search-result";
  result.setAttribute("role", "status");
  form.append(input, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    findNext(input.value).catch((error) => {
      $("[data-testid=diagram-search-result]").textContent = error.message;
    });
  });
  input.addEventListener("input", () => {
    if (!input.value.trim()) clearFound();
  });
  return form;
}

export async function findNext(query) {
  const text = folded(query.trim());
  await shapesNamed(); // names come after the drawing
  const svg = $("[data-testid=diagram] > svg");
  if (!svg || !text) return;
  if (text !== lastQuery || !hits.every((hit) => hit.isConnected)) {
    lastQuery = text;
    hits = matches(text);
    current = -1;
  }
  for (const overlay of $$("rect.overlay.found", svg)) overlay.classList.remove("found");
  const result = $("[data-testid=diagram-search-result]");
  if (!hits.length) {
    result.textContent = t("notFound");
    return;
  }
  current = (current + 1) % hits.length;
  const hit = hits[current];
  hit.classList.add("found");
  centreOn(hit);
  result.textContent = t("hitOf", { n: current + 1, total: hits.length });
}

function matches(text) {
  const inCulture = [];
  const elsewhere = [];
  for (const overlay of shapesInFlowOrder()) {
    const names = state.names.get(overlay.dataset.guid) || {};
    if (folded(String(pick(names) ?? "")).includes(text)) inCulture.push(overlay);
    else if (Object.values(names).some((name) => folded(String(name)).includes(text))) elsewhere.push(overlay);
  }
  return [...inCulture, ...elsewhere];
}

// A new sign-in starts without the previous user's search text.
export function forgetSearch() {
  const input = $("[data-testid=diagram-search] input");
  if (input) input.value = "";
  clearFound();
}

export function clearFound() {
  hits = [];
  current = -1;
  lastQuery = "";
  for (const overlay of $$("[data-testid=diagram] rect.overlay.found")) overlay.classList.remove("found");
  const result = $("[data-testid=diagram-search-result]");
  if (result) result.textContent = "";
}
