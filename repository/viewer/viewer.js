// elrepo viewer: browse a tenant's elements, open diagrams, click shapes, release.
// ES modules, no build step; it talks only to this service (docs/viewer.md). This entry
// module wires the page and routes: page.js (shared state and helpers), api.js (service
// calls), tree.js (tree and search), diagram.js (drawing, pan/zoom, downloads), panel.js
// (element panel and release), i18n.js (the page's words in the chosen culture).
//
// The URL is the state: #/{collection}/{storage}/elements/{id}?layout=KEY&culture=N
// (plus &diagram=ID when the element is shown inside another element's diagram), so
// back/forward and shared links work. The token never goes into the URL: it is kept in
// sessionStorage, one per tenant.

import { api, fetchElement } from "./api.js";
import { clearDiagram, showDiagram, wireDiagram } from "./diagram.js";
import { forgetEdits, refillBar } from "./edit.js";
import {
  facetWord, layoutWord, preferredCulture, rememberCulture, roleWord, t, translatePage,
} from "./i18n.js";
import {
  $, $$, DEFAULT_LAYOUT, DEFAULT_TENANT, FIRST_FACET, enc, hasDrawing, hrefFor, note,
  relabel, setStatus, showSignIn, showWorkspace, state, tokenKey,
} from "./page.js";
import { showPanel, wireConfirmation } from "./panel.js";
import { forgetSearch } from "./search.js";
import { loadTree, revealInTree, search } from "./tree.js";

const PROCESS_HOUSE = "processHouse";

function parseHash() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  const culture = Number.parseInt(params.get("culture"), 10);
  return {
    collection: parts[0], storage: parts[1],
    elementId: parts[2] === "elements" ? parts[3] : undefined,
    diagramId: params.get("diagram") || undefined,
    layout: state.catalog.layouts.includes(params.get("layout")) ? params.get("layout") : DEFAULT_LAYOUT,
    culture: state.catalog.cultures.some((c) => c.id === culture) ? culture : preferredCulture(),
  };
}

async function route() {
  const navigation = ++state.navigation;
  const target = parseHash();
  const collection = target.collection || DEFAULT_TENANT.collection;
  const storage = target.storage || DEFAULT_TENANT.storage;
  const token = sessionStorage.getItem(tokenKey(collection, storage));
  const cultureChanged = target.culture !== state.culture;
  Object.assign(state, { collection, storage, token, layout: target.layout, culture: target.culture });
  if (cultureChanged) applyCulture();
  if (!token) {
    showSignIn();
    return;
  }
  showWorkspace();
  try {
    const firstOpen = state.treeTenant === null;
    await showCaller();
    if (!target.elementId) {
      // First open: the tenant's process house, else the first root of the tree.
      const roots = await loadTree();
      const opening = roots.find((root) => root.type === PROCESS_HOUSE) ?? roots[0];
      if (navigation === state.navigation && opening) location.replace(hrefFor(opening.id));
      return;
    }
    await showElement(target.elementId, target.diagramId, navigation);
    if (navigation !== state.navigation) return;
    // A link opened cold shows the tree of its element's facet, opened down to it.
    if (firstOpen && state.element.facetName) selectFacet(state.element.facetName);
    await loadTree();
    await revealInTree(state.element);
    markSelection();
  } catch (error) {
    if (navigation === state.navigation) setStatus(error.message, true);
  }
}

// The signed-in token's role in the header (GET _api/rest/token), once per sign-in.
async function showCaller() {
  const tenant = `${state.collection}/${state.storage}`;
  if (state.caller?.tenant !== tenant) {
    const answer = await api("rest/token");
    state.caller = { ...answer.values[0], tenant };
    // Another user may sign in in the same tab: nothing of the previous one's work
    // carries over, and another role may see the edit bar differently.
    forgetEdits();
    forgetSearch();
    refillBar();
  }
  showRole();
}

function showRole() {
  const label = $("[data-testid=role]");
  label.textContent = state.caller ? t("signedInAs", { role: roleWord(state.caller.role) }) : "";
  label.title = state.caller?.name ?? "";
}

function selectFacet(facet) {
  state.facet = facet;
  $("select[name=facet]").value = facet;
}

async function showElement(elementId, diagramId, navigation) {
  const element = await fetchElement(elementId);
  // The drawing: the one named in the URL, else the element's own, else the one shown.
  let diagram = state.diagram;
  if (diagramId) diagram = diagramId === state.diagram?.id ? state.diagram : await fetchElement(diagramId);
  else if (hasDrawing(element)) diagram = element;
  if (navigation !== state.navigation) return;
  state.element = element;
  state.diagram = diagram;
  await Promise.all([diagram ? showDiagram(diagram, navigation) : clearDiagram(), showPanel(element)]);
  markSelection();
}

function markSelection() {
  for (const overlay of $$("[data-testid=diagram] rect.overlay")) {
    overlay.classList.toggle("selected", overlay.dataset.guid === state.element?.id);
  }
  for (const link of $$("[data-testid=tree] a")) {
    const selected = link.dataset.nameOf === state.element?.id;
    link.classList.toggle("selected", selected);
    if (selected) link.setAttribute("aria-current", "true"); else link.removeAttribute("aria-current");
  }
}

async function signIn(event) {
  event.preventDefault();
  const form = event.target;
  const collection = form.elements.collection.value.trim();
  const storage = form.elements.storage.value.trim();
  Object.assign(state, { collection, storage, token: form.elements.token.value.trim() });
  try {
    await api(`rest/facets/${FIRST_FACET}/views`); // any tenant read proves the token
  } catch (error) {
    // Beside the form that caused it, not in the status line far below.
    $("[data-testid=sign-in-error]").textContent = t("signInFailed", { reason: error.message });
    form.elements.token.focus();
    return;
  }
  sessionStorage.setItem(tokenKey(collection, storage), state.token);
  form.elements.token.value = "";
  $("[data-testid=sign-in-error]").textContent = "";
  setStatus("");
  const target = `#/${enc(collection)}/${enc(storage)}`;
  if (location.hash === target) route(); else location.hash = target;
}

function signOut() {
  sessionStorage.removeItem(tokenKey(state.collection, state.storage));
  showSignIn();
  setStatus(t("signedOut"));
}

function navigateWith(change) {
  if (!state.element) return;
  const diagramId = state.diagram?.id;
  location.hash = hrefFor(state.element.id, { diagramId, ...change });
}

function fillSelect(select, options) {
  const chosen = select.value;
  select.replaceChildren(...options.map(([value, label]) => new Option(label, value)));
  if (chosen) select.value = chosen;
}

// Everything the culture says: the page's labels, every element name, the menus.
function applyCulture() {
  rememberCulture(state.culture);
  translatePage();
  relabel();
  fillSelect($("select[name=layout]"), state.catalog.layouts.map((key) => [key, layoutWord(key)]));
  fillSelect($("select[name=facet]"), state.catalog.facets.map((facet) => [facet.name, facetWord(facet.name)]));
  $("select[name=culture]").value = String(state.culture);
  showRole();
}

async function boot() {
  state.catalog = await (await fetch("/ui/catalog.json")).json();
  state.culture = null; // the first route applies the URL's, or the preferred, culture
  fillSelect($("select[name=culture]"), state.catalog.cultures.map((c) => [String(c.id), c.name]));
  $("select[name=layout]").addEventListener("change", (event) => navigateWith({ layout: event.target.value }));
  $("select[name=culture]").addEventListener("change", (event) => {
    const culture = Number(event.target.value);
    if (state.element) navigateWith({ culture });
    else {
      state.culture = culture;
      applyCulture();
    }
  });
  $("select[name=facet]").addEventListener("change", (event) => {
    state.facet = event.target.value;
    $("input[name=search]").value = "";
    loadTree(true).catch((error) => $("[data-testid=tree]").replaceChildren(note(error.message)));
  });
  $("[data-testid=sign-in]").addEventListener("submit", signIn);
  $("[data-testid=search]").addEventListener("submit", search);
  $("[data-action=sign-out]").addEventListener("click", signOut);
  $("[data-action=open-diagram]").addEventListener("click", () => {
    location.hash = hrefFor(state.element.id);
  });
  wireDiagram();
  wireConfirmation();
  window.addEventListener("hashchange", route);
  await route();
}

boot().catch((error) => setStatus(t("cannotStart", { reason: error.message }), true));
