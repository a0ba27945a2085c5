// The tree of the chosen facet (children loaded when expanded) and the name search,
// which lists its hits in the tree's place.

import { LISTED, api, elementsPath, remember } from "./api.js";
import { $, enc, hrefFor, nameElement, note, setStatus, state } from "./page.js";

export async function loadTree(force = false) {
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

export async function search(event) {
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
