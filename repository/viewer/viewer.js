// elrepo viewer: browse a tenant's elements, open diagrams, click shapes, release.
// Plain script, no build step; it talks only to this service (docs/viewer.md).
//
// The URL is the state: #/{collection}/{storage}/elements/{id}?layout=KEY&culture=N
// (plus &diagram=ID when the element is shown inside another element's diagram), so
// back/forward and shared links work. The token never goes into the URL: it is kept in
// sessionStorage, one per tenant, because a token belongs to exactly one tenant.
"use strict";

const DEFAULT_TENANT = { collection: "demo", storage: "default" };
const DEFAULT_LAYOUT = "horizontal";
const DEFAULT_CULTURE = 1033;
// Layouts that draw an element's hierarchy, so they work for elements without content.
const HIERARCHY_LAYOUTS = ["graphic", "processMatrix", "customerMatrix"];
const FIRST_FACET = "processes";
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
const NAME_LOOKUP_CHUNK = 100; // ids per `$filter=id in (...)`, well under its 8,000 chars

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

const state = {
  catalog: null,
  collection: null,
  storage: null,
  token: null,
  facet: FIRST_FACET,
  layout: DEFAULT_LAYOUT,
  culture: DEFAULT_CULTURE,
  element: null, // the element in the panel
  diagram: null, // the element whose drawing is shown
  drawing: null, // {key, svgText, base: {x, y, w, h}} of the shown drawing
  treeTenant: null, // "collection/storage|facet" the tree was loaded for
  facetOf: new Map(), // element id -> facet, learned from every answer
  names: new Map(), // element id -> its `name` attribute (culture -> text)
  navigation: 0, // newest route(); older answers are dropped
};

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// ---- service calls ------------------------------------------------------------------

async function api(path, { method = "GET", params = {}, svg = false } = {}) {
  const url = new URL(`/${enc(state.collection)}/${enc(state.storage)}/_api/${path}`,
    location.origin);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const response = await fetch(url, {
    method, headers: { Authorization: `Bearer ${state.token}` }, credentials: "omit",
  });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).message || message; } catch { /* not JSON */ }
    if (response.status === 401) showSignIn(`The token was not accepted: ${message}`);
    throw new ApiError(message, response.status);
  }
  return svg ? response.text() : response.json();
}

const enc = encodeURIComponent;
const elementsPath = (facet, view) => `rest/facets/${enc(facet)}/views/${view}/elements`;
const FULL_ELEMENT = { $resources: "attributes,related,children,content,rootPath" };
const LISTED = { $resources: "attributes,children,content", $select: "name", $pageSize: "1000" };

function remember(elements) {
  for (const element of elements) {
    if (element.facetName) state.facetOf.set(element.id, element.facetName);
    if (element.attributes && element.attributes.name) state.names.set(element.id, element.attributes.name);
  }
  return elements;
}

// An id alone does not say its facet: ask the one we learned, else each facet in turn.
async function fetchElement(id) {
  const known = state.facetOf.get(id);
  const facets = known ? [known] : state.catalog.facets.map((facet) => facet.name);
  for (const facet of facets) {
    try {
      const answer = await api(`${elementsPath(facet, "detail")}/${enc(id)}`, { params: FULL_ELEMENT });
      return remember(answer.elements)[0];
    } catch (error) {
      if (error.status !== 404 || known) throw error;
    }
  }
  throw new ApiError(`No element ${id} in this tenant`, 404);
}

// Names of referenced elements (references carry none): one listing per facet.
async function lookUpNames(references) {
  const missing = new Map();
  for (const reference of references) {
    state.facetOf.set(reference.id, reference.facetName);
    if (state.names.has(reference.id)) continue;
    if (!missing.has(reference.facetName)) missing.set(reference.facetName, new Set());
    missing.get(reference.facetName).add(reference.id);
  }
  const requests = [];
  for (const [facet, idSet] of missing) {
    const ids = [...idSet];
    for (let start = 0; start < ids.length; start += NAME_LOOKUP_CHUNK) {
      const quoted = ids.slice(start, start + NAME_LOOKUP_CHUNK).map((id) => `'${id.replaceAll("'", "''")}'`);
      requests.push(api(elementsPath(facet, "list"), { params: {
        $filter: `id in (${quoted.join(", ")})`, $resources: "attributes", $select: "name",
        $pageSize: "1000" } }).then((answer) => remember(answer.elements)));
    }
  }
  await Promise.all(requests);
}

// ---- names in the chosen culture ----------------------------------------------------

function pick(values) {
  if (!values) return undefined;
  for (const culture of [state.culture, state.catalog.neutralCulture, DEFAULT_CULTURE]) {
    if (values[culture] !== undefined) return values[culture];
  }
  return Object.values(values)[0];
}

const nameOf = (id) => pick(state.names.get(id)) ?? "(no name)";
const typeName = (type) => pick(state.catalog.types[type]?.displayNames) ?? type;

// Every visible name is an element carrying data-name-of, so a culture switch relabels all.
function nameElement(tag, id) {
  const element = document.createElement(tag);
  element.dataset.nameOf = id;
  element.textContent = nameOf(id);
  return element;
}

function relabel() {
  for (const element of $$("[data-name-of]")) element.textContent = nameOf(element.dataset.nameOf);
}

// ---- URL scheme ---------------------------------------------------------------------

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

function hrefFor(elementId, { diagramId, layout = state.layout, culture = state.culture } = {}) {
  const query = new URLSearchParams({ layout, culture });
  if (diagramId && diagramId !== elementId) query.set("diagram", diagramId);
  return `#/${enc(state.collection)}/${enc(state.storage)}/elements/${enc(elementId)}?${query}`;
}

const tokenKey = (collection, storage) => `elrepo.token/${collection}/${storage}`;

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

// ---- sign in ------------------------------------------------------------------------

function showSignIn(message) {
  const form = $("[data-testid=sign-in]");
  form.hidden = false;
  $(".workspace").hidden = true;
  for (const element of $$(".bar .signed-in")) element.hidden = true;
  form.elements.collection.value = state.collection || DEFAULT_TENANT.collection;
  form.elements.storage.value = state.storage || DEFAULT_TENANT.storage;
  if (state.collection) sessionStorage.removeItem(tokenKey(state.collection, state.storage));
  state.treeTenant = null;
  $("[data-testid=tenant]").textContent = "";
  setStatus(message || "", Boolean(message));
  form.elements.token.focus();
}

function showWorkspace() {
  $("[data-testid=sign-in]").hidden = true;
  $(".workspace").hidden = false;
  for (const element of $$(".bar .signed-in")) element.hidden = false;
  $("[data-testid=tenant]").textContent = `${state.collection}/${state.storage}`;
  $("select[name=layout]").value = state.layout;
  $("select[name=culture]").value = String(state.culture);
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

// ---- tree and search ----------------------------------------------------------------

async function loadTree(force = false) {
  const tenantFacet = `${state.collection}/${state.storage}|${state.facet}`;
  const tree = $("[data-testid=tree]");
  if (state.treeTenant === tenantFacet && !force) return state.treeRoots;
  const answer = await api(elementsPath(state.facet, "tree"), { params: LISTED });
  state.treeTenant = tenantFacet;
  state.treeRoots = remember(answer.elements);
  tree.replaceChildren(...state.treeRoots.map(treeItem));
  if (!state.treeRoots.length) tree.append(note("No elements in this facet."));
  return state.treeRoots;
}

function treeItem(element) {
  const item = document.createElement("li");
  item.setAttribute("role", "treeitem");
  item.dataset.id = element.id;
  const row = document.createElement("div");
  row.className = "row";
  const hasChildren = (element.children || []).length > 0;
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "toggle";
  toggle.disabled = !hasChildren;
  toggle.textContent = hasChildren ? "▸" : "";
  toggle.setAttribute("aria-label", hasChildren ? "Expand" : "No children");
  if (hasChildren) {
    item.setAttribute("aria-expanded", "false");
    toggle.addEventListener("click", () => toggleChildren(item, element, toggle));
  }
  const link = nameElement("a", element.id);
  link.href = hrefFor(element.id);
  if ((element.content || []).length) row.classList.add("has-diagram");
  row.append(toggle, link);
  item.append(row);
  return item;
}

async function toggleChildren(item, element, toggle) {
  const expanded = item.getAttribute("aria-expanded") === "true";
  item.setAttribute("aria-expanded", String(!expanded));
  toggle.textContent = expanded ? "▸" : "▾";
  toggle.setAttribute("aria-label", expanded ? "Expand" : "Collapse");
  let group = $(":scope > ul", item);
  if (expanded || group) {
    if (group) group.hidden = expanded;
    return;
  }
  group = document.createElement("ul");
  group.setAttribute("role", "group");
  item.append(group);
  try {
    const facet = element.facetName || state.facet;
    const answer = await api(`${elementsPath(facet, "tree")}/${enc(element.id)}/children`, { params: LISTED });
    group.replaceChildren(...remember(answer.elements).map(treeItem));
  } catch (error) {
    group.replaceChildren(note(error.message));
  }
}

async function search(event) {
  event.preventDefault();
  const text = event.target.elements.search.value.trim();
  if (!text) {
    await loadTree(true);
    return;
  }
  try {
    const filter = `contains(name, '${text.replaceAll("'", "''")}')`;
    const answer = await api(elementsPath(state.facet, "list"), { params: { ...LISTED, $filter: filter } });
    const tree = $("[data-testid=tree]");
    tree.replaceChildren(...remember(answer.elements).map(treeItem));
    if (!answer.elements.length) tree.append(note(`Nothing named like “${text}”.`));
  } catch (error) {
    setStatus(error.message, true);
  }
}

// ---- element, diagram, panel --------------------------------------------------------

const hasDrawing = (element) => (element.content || []).length > 0 || (element.children || []).length > 0;

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

function effectiveLayout(diagram) {
  const hasContent = (diagram.content || []).length > 0;
  return hasContent || HIERARCHY_LAYOUTS.includes(state.layout) ? state.layout : HIERARCHY_LAYOUTS[0];
}

async function showDiagram(diagram, navigation) {
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

function clearDiagram() {
  state.drawing = null;
  $("[data-testid=diagram-title]").textContent = "";
  $("[data-testid=diagram]").replaceChildren(note("This element has no diagram."));
}

// Rendered SVG goes into the DOM: keep only what the renderer writes (no script, no
// foreignObject, no event handlers, no outside references), whatever the answer holds.
function sanitizeSvg(text) {
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
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

async function showPanel(element) {
  const panel = $("[data-testid=element-panel]");
  panel.hidden = false;
  $("[data-testid=element-name]").replaceChildren(nameElement("span", element.id));
  $("[data-testid=element-type]").textContent = typeName(element.type);
  $("[data-testid=element-state]").textContent = element.state || "not versioned";
  $("[data-testid=element-version]").textContent = pick(element.attributes?.version) ?? "—";
  $("[data-action=open-diagram]").hidden = !hasDrawing(element) || element.id === state.diagram?.id;
  $("[data-testid=release-result]").textContent = "";
  showAttributes(element.attributes || {});
  const related = Object.entries(element.related || {}).sort(([a], [b]) => a.localeCompare(b));
  const rootPath = element.rootPath || [];
  await lookUpNames([...related.flatMap(([, references]) => references), ...rootPath]);
  showRelated(related);
  showRootPath(rootPath);
  await showRelease(element);
}

function showAttributes(attributes) {
  const list = $("[data-testid=attributes]");
  list.replaceChildren();
  for (const [name, values] of Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b))) {
    if (name === "name") continue;
    const term = document.createElement("dt");
    term.textContent = name;
    const description = document.createElement("dd");
    description.textContent = attributeText(name, pick(values));
    list.append(term, description);
  }
}

function attributeText(name, value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.map((entry) => entry?.name ?? JSON.stringify(entry)).join(", ");
  if (name === "description" && typeof value === "string") {
    // Stored as HTML: shown as its text only (parsed inertly, never inserted as markup).
    return new DOMParser().parseFromString(value, "text/html").body.textContent;
  }
  return value === null || value === undefined ? "" : String(value);
}

function showRelated(related) {
  const box = $("[data-testid=related]");
  box.replaceChildren();
  if (!related.length) box.append(note("None."));
  for (const [context, references] of related) {
    const heading = document.createElement("h4");
    heading.textContent = context;
    const list = document.createElement("ul");
    for (const reference of references) {
      const item = document.createElement("li");
      const link = nameElement("a", reference.id);
      link.href = hrefFor(reference.id); // an element with a diagram opens it
      link.title = typeName(reference.type);
      item.append(link);
      list.append(item);
    }
    box.append(heading, list);
  }
}

function showRootPath(rootPath) {
  const crumbs = [...rootPath].reverse().flatMap((reference) => {
    const link = nameElement("a", reference.id);
    link.href = hrefFor(reference.id);
    return [link, document.createTextNode(" › ")];
  });
  $("[data-testid=root-path]").replaceChildren(...crumbs);
}

async function showRelease(element) {
  const buttons = $("[data-testid=transitions]");
  const versions = $("[data-testid=versions]");
  if (!element.versionId) {
    buttons.replaceChildren(note("Not versioned: no release workflow."));
    versions.replaceChildren();
    return;
  }
  const facet = element.facetName;
  const [transitions, history] = await Promise.all([
    api(`release/${enc(element.id)}/transitions`),
    api(`${elementsPath(facet, "detail")}/${enc(element.id)}/versions`,
      { params: { $resources: "attributes", $select: "version" } }),
  ]);
  buttons.replaceChildren(...transitions.values.map((transition) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.transition = transition.transitionId;
    button.textContent = `${transition.transitionId} → ${transition.targetState}`;
    button.addEventListener("click", () => runTransition(element, transition.transitionId));
    return button;
  }));
  if (!transitions.values.length) buttons.append(note("No transition is open to you now."));
  versions.replaceChildren(...history.elements.map((version) => {
    const item = document.createElement("li");
    item.textContent = `${pick(version.attributes?.version) ?? "?"} — ${version.state}`;
    return item;
  }));
}

async function runTransition(element, transitionId) {
  for (const button of $$("[data-testid=transitions] button")) button.disabled = true;
  let message;
  let failed = false;
  try {
    const answer = await api(`release/${enc(element.id)}/transitions/${enc(transitionId)}`, { method: "POST" });
    const changed = answer.elements[0];
    message = `${transitionId}: now ${changed.state}, version ${pick(changed.attributes?.version) ?? "?"}`;
  } catch (error) {
    message = `${transitionId} refused: ${error.message}`;
    failed = true;
  }
  if (state.element?.id === element.id) {
    try {
      await showPanel(await fetchElement(element.id));
    } catch (error) {
      setStatus(error.message, true);
    }
  }
  const result = $("[data-testid=release-result]");
  result.textContent = message;
  result.classList.toggle("error", failed);
}

// ---- pan and zoom: the root's viewBox is the view ----------------------------------

const currentSvg = () => $("[data-testid=diagram] > svg");

function setView(view) {
  state.drawing.view = view;
  currentSvg().setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
}

// Pixels per diagram unit at the current view.
function scaleNow() {
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

// ---- page ---------------------------------------------------------------------------

function note(text) {
  const element = document.createElement("p");
  element.className = "note";
  element.textContent = text;
  return element;
}

function setStatus(text, isError = false) {
  const status = $("[data-testid=status]");
  status.textContent = text;
  status.classList.toggle("error", isError);
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
  $("[data-action=zoom-in]").addEventListener("click", () => zoomAt(ZOOM_STEP));
  $("[data-action=zoom-out]").addEventListener("click", () => zoomAt(1 / ZOOM_STEP));
  $("[data-action=zoom-fit]").addEventListener("click", fitView);
  $("[data-action=download-svg]").addEventListener("click", downloadSvg);
  $("[data-action=download-png]").addEventListener("click", downloadPng);
  wirePanZoom($("[data-testid=diagram]"));
  window.addEventListener("hashchange", route);
  await route();
}

boot().catch((error) => setStatus(`The viewer could not start: ${error.message}`, true));
