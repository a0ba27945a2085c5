// The element panel: name, type, state, version, attributes, related elements and the
// path to the root, every one a link, all in the catalog's words (i18n.js); the release
// transitions open to the token, each confirmed first (a release with an optional
// comment), and the element's versions with their release dates and comments (two of
// them compared, and a pending release against the released one: compare.js).

import { api, elementsPath, fetchElement, lookUpNames } from "./api.js";
import { panelAttributes } from "./bpmn.js";
import { clearComparisons, showComparisons } from "./compare.js";
import {
  attributeWord, dateWords, relatedWord, roleWord, stateWord, t, transitionWord, typeWord, valueWords,
} from "./i18n.js";
import { $, $$, enc, hasDrawing, hrefFor, nameElement, nameOf, note, pick, setStatus, state } from "./page.js";

const RELEASED = "released";
const REQUEST_TO_EXPIRE = "requestToExpire";
// The panel's own line for what a BPMN import kept (bpmn.js), not an attribute key.
const BPMN_ROW = "BPMN";

export async function showPanel(element) {
  const panel = $("[data-testid=element-panel]");
  panel.hidden = false;
  $("[data-testid=element-name]").replaceChildren(nameElement("span", element.id));
  $("[data-testid=element-type]").textContent = typeWord(element.type);
  $("[data-testid=element-state]").textContent = stateWord(element.versionId ? element.state : "show");
  $("[data-testid=element-version]").textContent = pick(element.attributes?.version) ?? "—";
  $("[data-action=open-diagram]").hidden = !hasDrawing(element) || element.id === state.diagram?.id;
  $("[data-testid=release-result]").textContent = "";
  showAttributes(element.attributes || {});
  const related = Object.entries(element.related || {})
    .sort(([a], [b]) => relatedWord(a).localeCompare(relatedWord(b)));
  const rootPath = element.rootPath || [];
  await lookUpNames([...related.flatMap(([, references]) => references), ...rootPath]);
  showRelated(related);
  showRootPath(rootPath);
  await showRelease(element);
}

function showAttributes(attributes) {
  const list = $("[data-testid=attributes]");
  const internal = new Set(state.catalog.internalAttributes);
  const shown = Object.fromEntries(Object.entries(attributes).filter(([key]) => !internal.has(key)));
  const rows = panelAttributes(shown, state.catalog.keptAttributes, pick)
    .map(([key, value]) => [key === BPMN_ROW ? BPMN_ROW : attributeWord(key), attributeText(key, value)])
    .sort(([a], [b]) => a.localeCompare(b));
  list.replaceChildren(...rows.flatMap(([word, text]) => {
    const term = document.createElement("dt");
    term.textContent = word;
    const description = document.createElement("dd");
    description.textContent = text;
    return [term, description];
  }));
}

function attributeText(key, value) {
  if (key === "description" && typeof value === "string") {
    // Stored as HTML: shown as its text only (parsed inertly, never inserted as markup).
    return new DOMParser().parseFromString(value, "text/html").body.textContent;
  }
  return key === BPMN_ROW ? String(value) : valueWords(key, value);
}

function showRelated(related) {
  const box = $("[data-testid=related]");
  box.replaceChildren();
  if (!related.length) box.append(note(t("none")));
  for (const [context, references] of related) {
    const heading = document.createElement("h4");
    heading.textContent = relatedWord(context);
    const list = document.createElement("ul");
    for (const reference of references) {
      const item = document.createElement("li");
      const link = nameElement("a", reference.id);
      link.href = hrefFor(reference.id); // an element with a diagram opens it
      link.title = typeWord(reference.type);
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
  $("[data-testid=release] h4").hidden = !element.versionId;
  if (!element.versionId) {
    buttons.replaceChildren(note(t("notVersioned")));
    versions.replaceChildren();
    clearComparisons();
    return;
  }
  const facet = element.facetName;
  const [transitions, history] = await Promise.all([
    api(`release/${enc(element.id)}/transitions`), // only those the token's role may run
    api(`${elementsPath(facet, "detail")}/${enc(element.id)}/versions`,
      { params: { $resources: "attributes", $select: "version,relOn,releaseComment" } }),
  ]);
  buttons.replaceChildren(...transitions.values.map((transition) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.transition = transition.transitionId;
    button.textContent = transitionWord(transition.transitionId);
    button.title = `→ ${stateWord(transition.targetState)}`;
    button.addEventListener("click", () => runTransition(element, transition));
    return button;
  }));
  if (!transitions.values.length) buttons.append(note(noStepText(element.state)));
  versions.replaceChildren(...history.elements.map(versionItem));
  await showComparisons(element, history.elements);
}

// With no step open to the caller's role: whose turn it is (catalog.json: nextStepBy), so
// an approver looking at an element in review knows an editor moves it on.
function noStepText(elementState) {
  const roles = (state.catalog.nextStepBy[elementState] || []).filter((role) => role !== state.caller?.role);
  if (!roles.length) return t("noTransition");
  return `${t("noTransition")} ${t("nextStepBy", { roles: roles.map(roleWord).join(", ") })}`;
}

// One line of the versions list: number and state, when it was released, its comment.
function versionItem(version) {
  const item = document.createElement("li");
  const line = document.createElement("span");
  line.className = "version-line";
  line.textContent = t("versionLine", { version: pick(version.attributes?.version) ?? "?", state: stateWord(version.state) });
  item.append(line);
  const releasedOn = pick(version.attributes?.relOn);
  if (releasedOn) {
    const date = document.createElement("span");
    date.className = "released-on";
    date.textContent = ` · ${t("releasedOnBy", { date: dateWords(releasedOn) })}`;
    item.append(date);
  }
  const comment = pick(version.attributes?.releaseComment);
  if (comment) {
    const quote = document.createElement("q");
    quote.className = "release-comment";
    quote.dataset.testid = "release-comment";
    quote.textContent = comment;
    item.append(quote);
  }
  return item;
}

// ---- confirmation ------------------------------------------------------------------

let answerConfirmation = null; // resolves the open dialog's promise

// Asks before a step of the workflow; a release also takes an optional comment.
// Resolves to {comment} when confirmed, null when cancelled.
function confirmStep({ title, text, runLabel, withComment }) {
  const dialog = $("[data-testid=confirm]");
  $("[data-testid=confirm-title]").textContent = title;
  $("[data-testid=confirm-text]").textContent = text;
  $("[data-testid=confirm-run]").textContent = runLabel;
  $(".comment", dialog).hidden = !withComment;
  dialog.querySelector("textarea").value = "";
  dialog.showModal();
  return new Promise((resolve) => { answerConfirmation = resolve; });
}

function closeConfirmation(answer) {
  const dialog = $("[data-testid=confirm]");
  if (dialog.open) dialog.close();
  answerConfirmation?.(answer);
  answerConfirmation = null;
}

export function wireConfirmation() {
  const dialog = $("[data-testid=confirm]");
  $("form", dialog).addEventListener("submit", (event) => {
    event.preventDefault();
    closeConfirmation({ comment: dialog.querySelector("textarea").value.trim() });
  });
  $("[data-action=cancel]", dialog).addEventListener("click", () => closeConfirmation(null));
  dialog.addEventListener("close", () => closeConfirmation(null)); // Escape
}

async function runTransition(element, transition) {
  const { transitionId, sourceState, targetState } = transition;
  const step = transitionWord(transitionId);
  // A move into released from the workflow releases (a kept release is not a new one).
  const releases = targetState === RELEASED && sourceState !== REQUEST_TO_EXPIRE;
  const confirmed = await confirmStep({
    title: t("confirmStep", { step, name: nameOf(element.id) }),
    text: releases ? t("confirmRelease") : t("confirmMove", { state: stateWord(targetState) }),
    runLabel: step, withComment: releases,
  });
  if (!confirmed) return;
  for (const button of $$("[data-testid=transitions] button")) button.disabled = true;
  let message;
  let failed = false;
  try {
    const params = releases && confirmed.comment ? { comment: confirmed.comment } : {};
    const answer = await api(`release/${enc(element.id)}/transitions/${enc(transitionId)}`, { method: "POST", params });
    const changed = answer.elements[0];
    message = t("transitionDone", { step, state: stateWord(changed.state), version: pick(changed.attributes?.version) ?? "?" });
  } catch (error) {
    message = t("transitionRefused", { step, reason: error.message });
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
