// The tree of the chosen facet (children loaded when expanded), opened down to the
// element shown, and the name search, which lists its hits in the tree's place.

import { LISTED, api, elementsPath, remember } from "./api.js";
import { t } from "./i18n.js";
import { $, $$, enc, hrefFor, nameElement, note, state } from "./page.js";

export async function loadTree(force = false) {
  const tenantFacet = `${state.collection}/${state.storage}|${state.facet}`;
  const tree = $("[data-testid=tree]");
  if (state.treeTenant === tenantFacet && !force) return state.treeRoots;
  const answer = await api(elementsPath(state.facet, "tree"), { params: LISTED });
  state.treeTenant = tenantFacet;
  state.treeRoots = remember(answer.elements);
  tree.replaceChildren(...state.treeRoots.map(treeItem));
  if (!state.treeRoots.length) tree.append(note(t("noElements")));
  return state.treeRoots;
}

// Each item's element, for expanding it later (revealInTree).
const elementOf = new WeakMap();

function treeItem(element) {
  const item = document.createElement("li");
  item.setAttribute("role", "treeitem");
  item.dataset.id = element.id;
  elementOf.set(item, element);
  const row = document.createElement("div");
  row.className = "row";
  const hasChildren = (element.children || []).length > 0;
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "toggle";
  toggle.tabIndex = -1; // the link is the item's stop; the toggle is for the mouse
  toggle.setAttribute("aria-hidden", "true");
  if (hasChildren) {
    toggle.textContent = "▸";
    item.setAttribute("aria-expanded", "false");
    toggle.addEventListener("click", () => setExpanded(item, item.getAttribute("aria-expanded") !== "true"));
  } else {
    toggle.disabled = true;
  }
  const link = nameElement("a", element.id);
  link.href = hrefFor(element.id);
  link.addEventListener("keydown", (event) => {
    const wanted = { ArrowRight: true, ArrowLeft: false }[event.key];
    if (wanted === undefined || !hasChildren) return;
    event.preventDefault();
    setExpanded(item, wanted);
  });
  if ((element.content || []).length) row.classList.add("has-diagram");
  row.append(toggle, link);
  item.append(row);
  return item;
}

// Opens or closes an item; opening loads its children once (the promise ends when shown).
async function setExpanded(item, expanded) {
  item.setAttribute("aria-expanded", String(expanded));
  $(":scope > .row > .toggle", item).textContent = expanded ? "▾" : "▸";
  let group = $(":scope > ul", item);
  if (group) {
    group.hidden = !expanded;
    return;
  }
  if (!expanded) return;
  group = document.createElement("ul");
  group.setAttribute("role", "group");
  item.append(group);
  const element = elementOf.get(item);
  try {
    const facet = element.facetName || state.facet;
    const answer = await api(`${elementsPath(facet, "tree")}/${enc(element.id)}/children`, { params: LISTED });
    group.replaceChildren(...remember(answer.elements).map(treeItem));
  } catch (error) {
    group.replaceChildren(note(error.message)); // beside the item that failed to open
  }
}

// Opens the tree down to `element` along its path to the root, and scrolls it into view.
export async function revealInTree(element) {
  if (!element || element.facetName !== state.facet) return;
  let scope = $("[data-testid=tree]");
  for (const ancestor of [...(element.rootPath || [])].reverse()) {
    const item = $$("li[role=treeitem]", scope).find((candidate) => candidate.dataset.id === ancestor.id);
    if (!item) return; // the path leaves what the tree shows (a search's hits)
    if (item.getAttribute("aria-expanded") !== "true") await setExpanded(item, true);
    scope = item;
  }
  const own = $$("li[role=treeitem]", scope).find((candidate) => candidate.dataset.id === element.id);
  $(":scope > .row > a", own ?? scope)?.scrollIntoView({ block: "nearest" });
}

export async function search(event) {
  event.preventDefault();
  const text = event.target.elements.search.value.trim();
  const tree = $("[data-testid=tree]");
  if (!text) {
    await loadTree(true);
    return;
  }
  try {
    const filter = `contains(name, '${text.replaceAll("'", "''")}')`;
    const answer = await api(elementsPath(state.facet, "list"), { params: { ...LISTED, $filter: filter } });
    tree.replaceChildren(...remember(answer.elements).map(treeItem));
    if (!answer.elements.length) tree.append(note(t("nothingNamed", { text })));
  } catch (error) {
    tree.replaceChildren(note(error.message)); // where the hits would have been
  }
}
