// What every part of the viewer shares: the page state, DOM helpers, the status line,
// names in the chosen culture, the sign-in/workspace switch and the URL of an element.
// It imports nothing, so every other module can import it.

export const DEFAULT_TENANT = { collection: "demo", storage: "default" };
export const DEFAULT_LAYOUT = "horizontal";
export const DEFAULT_CULTURE = 1033;
export const FIRST_FACET = "processes";

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
export const enc = encodeURIComponent;

export const state = {
  catalog: null,
  collection: null,
  storage: null,
  token: null,
  facet: FIRST_FACET,
  layout: DEFAULT_LAYOUT,
  culture: DEFAULT_CULTURE,
  element: null, // the element in the panel
  diagram: null, // the element whose drawing is shown
  drawing: null, // {key, layout, svgText, base: {x, y, w, h}, view} of the shown drawing
  treeTenant: null, // "collection/storage|facet" the tree was loaded for
  treeRoots: [], // the roots shown for treeTenant
  facetOf: new Map(), // element id -> facet, learned from every answer
  names: new Map(), // element id -> its `name` attribute (culture -> text)
  elementStates: new Map(), // element id -> its lifecycle state, for versioned elements
  drawable: new Map(), // element id -> whether it has a drawing of its own (content or children)
  navigation: 0, // newest route(); older answers are dropped
  caller: null, // the signed-in token's own description: {name, role, permissions}
};

export function note(text) {
  const element = document.createElement("p");
  element.className = "note";
  element.textContent = text;
  return element;
}

export function setStatus(text, isError = false) {
  const status = $("[data-testid=status]");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

export const hasDrawing = (element) =>
  (element.content || []).length > 0 || (element.children || []).length > 0;

// ---- names in the chosen culture ----------------------------------------------------

export function pick(values) {
  if (!values) return undefined;
  for (const culture of [state.culture, state.catalog.neutralCulture, DEFAULT_CULTURE]) {
    if (values[culture] !== undefined) return values[culture];
  }
  return Object.values(values)[0];
}

export const nameOf = (id) => pick(state.names.get(id)) ?? "(no name)";

// Every visible name is an element carrying data-name-of, so a culture switch relabels all.
export function nameElement(tag, id) {
  const element = document.createElement(tag);
  element.dataset.nameOf = id;
  element.textContent = nameOf(id);
  return element;
}

export function relabel() {
  for (const element of $$("[data-name-of]")) element.textContent = nameOf(element.dataset.nameOf);
}

// ---- addresses and session ----------------------------------------------------------

export function hrefFor(elementId, { diagramId, layout = state.layout, culture = state.culture } = {}) {
  const query = new URLSearchParams({ layout, culture });
  if (diagramId && diagramId !== elementId) query.set("diagram", diagramId);
  return `#/${enc(state.collection)}/${enc(state.storage)}/elements/${enc(elementId)}?${query}`;
}

// One token per tenant, because a token belongs to exactly one tenant.
export const tokenKey = (collection, storage) => `elrepo.token/${collection}/${storage}`;

// The sign-in form, with `message` (why it is shown: a refused token) beside its fields.
export function showSignIn(message) {
  const form = $("[data-testid=sign-in]");
  form.hidden = false;
  $(".workspace").hidden = true;
  for (const element of $$(".bar .signed-in")) element.hidden = true;
  form.elements.collection.value = state.collection || DEFAULT_TENANT.collection;
  form.elements.storage.value = state.storage || DEFAULT_TENANT.storage;
  if (state.collection) sessionStorage.removeItem(tokenKey(state.collection, state.storage));
  state.treeTenant = null;
  state.caller = null;
  $("[data-testid=tenant]").textContent = "";
  $("[data-testid=sign-in-error]").textContent = message || "";
  setStatus("");
  form.elements.token.focus();
}

export function showWorkspace() {
  $("[data-testid=sign-in]").hidden = true;
  $("[data-testid=sign-in-error]").textContent = "";
  $(".workspace").hidden = false;
  for (const element of $$(".bar .signed-in")) element.hidden = false;
  $("[data-testid=tenant]").textContent = `${state.collection}/${state.storage}`;
  $("select[name=layout]").value = state.layout;
  $("select[name=culture]").value = String(state.culture);
}
