// elrepo viewer: browse a tenant's elements, open diagrams, click shapes, release.
// ES modules, no build step; it talks only to this service (docs/viewer.md). This entry
// module wires the page and routes: page.js (shared state and helpers), api.js (service
// calls), tree.js (tree and search), diagram.js (drawing, pan/zoom, downloads), panel.js
// (element panel and release).
//
// The URL is the state: #/{collection}/{storage}/elements/{id}?layout=KEY&culture=N
// (plus &diagram=ID when the element is shown inside another element's diagram), so
// back/forward and shared links work. The token never goes into the URL: it is kept in
// sessionStorage, one per tenant.

import { api, fetchElement } from "./api.js";
import { clearDiagram, showDiagram, wireDiagram } from "./diagram.js";
import {
  $, $$, DEFAULT_CULTURE, DEFAULT_LAYOUT, DEFAULT_TENANT, FIRST_FACET, enc, hasDrawing, hrefFor,
  relabel, setStatus, showSignIn, showWorkspace, state, tokenKey,
} from "./page.js";
import { showPanel } from "./panel.js";
import { loadTree, search } from "./tree.js";

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
    culture: culture > 0 ? culture : DEFAULT_CULTURE,
  };
}

async function route() {
  const navigation = ++state.navigation;
  const target = parseHash();
  const collection = target.collection || DEFAULT_TENANT.collection;
  const storage = target.storage || DEFAULT_TENANT.storage;
  const token = sessionStorage.getItem(tokenKey(collection, storage));
  Object.assign(state, { collection, storage, token, layout: target.layout, culture: target.culture });
  if (!token) {
    showSignIn();
    return;
  }
  showWorkspace();
  try {
    const roots = await loadTree();
    if (navigation !== state.navigation) return;
    if (!target.elementId) {
      // First open: the first root of the tree (the demo's process house).
      if (roots.length) location.replace(hrefFor(roots[0].id));
      return;
    }
    await showElement(target.elementId, target.diagramId, navigation);
  } catch (error) {
    if (navigation === state.navigation) setStatus(error.message, true);
  }
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
    setStatus(`Sign-in failed: ${error.message}`, true);
    return;
  }
  sessionStorage.setItem(tokenKey(collection, storage), state.token);
  form.elements.token.value = "";
  setStatus("");
  const target = `#/${enc(collection)}/${enc(storage)}`;
  if (location.hash === target) route(); else location.hash = target;
}

function signOut() {
  sessionStorage.removeItem(tokenKey(state.collection, state.storage));
  showSignIn("Signed out.");
}

function navigateWith(change) {
  if (!state.element) return;
  const diagramId = state.diagram?.id;
  location.hash = hrefFor(state.element.id, { diagramId, ...change });
}

function fillSelect(select, options) {
  select.replaceChildren(...options.map(([value, label]) => new Option(label, value)));
}

async function boot() {
  state.catalog = await (await fetch("/ui/catalog.json")).json();
  fillSelect($("select[name=layout]"), state.catalog.layouts.map((key) => [key, key]));
  fillSelect($("select[name=culture]"), state.catalog.cultures.map((c) => [String(c.id), `${c.name} (${c.id})`]));
  fillSelect($("select[name=facet]"), state.catalog.facets.map((facet) => [facet.name, facet.name]));
  $("select[name=layout]").addEventListener("change", (event) => navigateWith({ layout: event.target.value }));
  $("select[name=culture]").addEventListener("change", (event) => {
    state.culture = Number(event.target.value);
    relabel();
    navigateWith({ culture: state.culture });
  });
  $("select[name=facet]").addEventListener("change", (event) => {
    state.facet = event.target.value;
    $("input[name=search]").value = "";
    loadTree(true).catch((error) => setStatus(error.message, true));
  });
  $("[data-testid=sign-in]").addEventListener("submit", signIn);
  $("[data-testid=search]").addEventListener("submit", search);
  $("[data-action=sign-out]").addEventListener("click", signOut);
  $("[data-action=open-diagram]").addEventListener("click", () => {
    location.hash = hrefFor(state.element.id);
  });
  wireDiagram();
  window.addEventListener("hashchange", route);
  await route();
}

boot().catch((error) => setStatus(`The viewer could not start: ${error.message}`, true));
