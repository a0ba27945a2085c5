// The element panel: name, type, state, version, attributes, related elements and the
// path to the root, every one a link; the release transitions open to the token and the
// element's versions (two of them compared, and a pending release against the released
// one: compare.js).

import { api, elementsPath, fetchElement, lookUpNames } from "./api.js";
import { panelAttributes } from "./bpmn.js";
import { clearComparisons, showComparisons } from "./compare.js";
import { $, $$, enc, hasDrawing, hrefFor, nameElement, note, pick, setStatus, state, typeName } from "./page.js";

export async function showPanel(element) {
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
  for (const [name, value] of panelAttributes(attributes, state.catalog.keptAttributes, pick)) {
    const term = document.createElement("dt");
    term.textContent = name;
    const description = document.createElement("dd");
    description.textContent = attributeText(name, value);
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
    clearComparisons();
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
  await showComparisons(element, history.elements);
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
