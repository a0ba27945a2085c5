// Small edits of the shown diagram for editors, through the service's own endpoints with
// If-Match (a write over someone else's change is refused with 412 and said so, with a
// reload): rename the selected shape's element and edit its description in the current
// culture; insert a task, event or gateway after the selected shape on its outgoing flow;
// delete a shape, its flows joined through. The engine lays the result out; the page only
// draws it again where it was looked at. The last edit can be undone.
//
// The content of a diagram is an ordered list of shapes, each naming its predecessors by
// shape id (docs/contract.md, "Diagrams"): the update endpoint replaces that list (shapes
// named by shapeId are kept, a bare element id makes a new shape), content create appends
// shapes, creating their elements. New shapes get their ids from the service, so a write
// that must point at a new shape is done in two steps.

import { ApiError, api, elementsPath, fetchElement, remember } from "./api.js";
import { t, typeWord } from "./i18n.js";
import { $, enc, hrefFor, nameOf, pick, relabel, state } from "./page.js";
import { showPanel } from "./panel.js";

const INSERTABLE = ["task", "evIntermediate", "ruleXor"];
const DETAIL = "detail";
const EDIT_PERMISSION = "EditElement"; // repository/auth.py: what a rename or an insert needs

let redraw = null; // diagram.js: draw the diagram again, keeping the view
let lastEdit = null; // {label (in words), diagramId, reselect, undo: async () => void}: the last edit here
let busy = false;
let focusName = false; // after an insert, the new shape's name is typed next
let drawn = null; // {diagramId, etag: Promise}: the diagram's revision when it was drawn

const bar = () => $("[data-testid=edit-bar]");
const selectedOverlay = () => $("[data-testid=diagram] rect.overlay.selected");

// ---- requests ---------------------------------------------------------------------------

const elementPath = (facet, id) => `${elementsPath(facet, DETAIL)}/${enc(id)}`;

async function readWithEtag(facet, id, resources) {
  const { answer, etag } = await api(elementPath(facet, id),
    { params: { $resources: resources }, withEtag: true });
  return { element: answer.elements[0], etag };
}

async function update(facet, element, etag) {
  const answer = await api(elementsPath(facet, DETAIL), { method: "POST",
    headers: { "If-Match": etag }, body: { count: 1, elements: [element] } });
  return remember(answer.elements)[0];
}

// The diagram an edit is about, fixed when it starts (an undo after the page moved on to
// another diagram still writes to its own), with the revision the user looked at.
function diagramOf() {
  const diagram = { id: state.diagram.id, facet: state.diagram.facetName || "processes" };
  return { ...diagram, drawnEtag: drawn?.diagramId === diagram.id ? drawn.etag : undefined };
}

// diagram.js, whenever a drawing of a diagram with content is shown: its revision now,
// which the edits made on that picture send as If-Match.
export function noteDrawing(diagram) {
  const facet = diagram.facetName || "processes";
  const etag = readWithEtag(facet, diagram.id, "attributes").then((read) => read.etag, () => undefined);
  drawn = { diagramId: diagram.id, etag };
}

// The diagram's content as entries the update endpoint takes back, and its ETag.
async function readContent(diagram) {
  const { element, etag } = await readWithEtag(diagram.facet, diagram.id, "content");
  return { entries: (element.content || []).map((shape) => ({ shapeId: shape.shapeId,
    id: shape.id, predecessors: [...shape.predecessors] })), etag };
}

// Writes `entries` as the diagram's content. An entry without shapeId is a new shape of
// element `id`; predecessors name shape ids, or `key`s of new entries, which need a second
// write once the service has given the new shapes their ids.
async function writeContent(diagram, entries, etag) {
  const known = new Set(entries.filter((entry) => entry.shapeId).map((entry) => entry.shapeId));
  const first = entries.map((entry) => ({
    ...(entry.shapeId ? { shapeId: entry.shapeId } : { id: entry.id }),
    predecessors: entry.predecessors.filter((p) => known.has(p)),
  }));
  const written = await update(diagram.facet, { id: diagram.id, content: first }, etag);
  const pointsAtNew = entries.some((entry) => entry.predecessors.some((p) => !known.has(p)));
  if (!pointsAtNew) return;
  const shapeIdOf = new Map(entries.map((entry, i) => [entry.shapeId || entry.key, written.content[i].shapeId]));
  const second = entries.map((entry, i) => ({ shapeId: written.content[i].shapeId,
    predecessors: entry.predecessors.map((p) => shapeIdOf.get(p)) }));
  const { etag: now } = await readContent(diagram);
  await update(diagram.facet, { id: diagram.id, content: second }, now);
}

// ---- the edits ---------------------------------------------------------------------------

// Name and description of the selected shape's element, in the current culture.
async function saveText(form) {
  const id = form.dataset.elementId;
  const facet = state.facetOf.get(id) || "processes";
  const culture = String(state.culture);
  const { element, etag } = JSON.parse(form.dataset.loaded);
  const old = (attribute) => element.attributes?.[attribute]?.[culture] ?? null;
  const name = form.elements.name.value.trim();
  const description = form.elements.description.value.trim();
  const before = {};
  const after = {};
  if (name !== (old("name") ?? "")) {
    if (!name) throw new ApiError(t("needsName"), 400);
    before.name = { [culture]: old("name") };
    after.name = { [culture]: name };
  }
  // Compared as text, as the form shows it: an untouched description keeps its HTML.
  if (description !== htmlText(old("description") ?? "").trim()) {
    before.description = { [culture]: old("description") };
    after.description = { [culture]: asHtml(description) || null };
  }
  if (!Object.keys(after).length) return t("nothingChanged");
  const label = t("editRename", { name: nameOf(id) });
  await update(facet, { id, attributes: after }, etag);
  // Undo holds the revision this edit made: over a later change by someone else it is
  // refused (412) rather than undoing theirs too.
  const { etag: edited } = await readWithEtag(facet, id, "attributes");
  lastEdit = { label, diagramId: state.diagram.id, reselect: id,
    undo: () => update(facet, { id, attributes: before }, edited) };
  return t("saved");
}

// Text typed in the form becomes the description's HTML as text, never as markup.
function asHtml(text) {
  if (!text) return "";
  const paragraph = document.createElement("p");
  paragraph.textContent = text;
  return paragraph.outerHTML;
}

// The text of stored HTML, parsed inertly (never inserted as markup).
const htmlText = (html) => new DOMParser().parseFromString(html, "text/html").body.textContent;

async function insertAfter(overlay, type) {
  const shapeId = overlay.dataset.shapeId;
  const diagram = diagramOf();
  const { entries, etag: now } = await readContent(diagram);
  const etag = (await diagram.drawnEtag) ?? now;
  const name = { [state.culture]: typeWord(type) };
  // Content create appends the new shape after the selected one (and makes its element),
  // refused with 412 when the diagram changed since it was read.
  const created = await api(`rest/facets/${enc(diagram.facet)}/views/diagram/elements/${enc(diagram.id)}/content`,
    { method: "POST", headers: { "If-Match": etag }, body: { values: [
      { shapeInfo: { id: shapeId, index: 0, predecessors: [] } },
      { shapeInfo: { index: 1, predecessors: [0] }, element: { type, attributes: { name } } }] } });
  const newShapeId = created.values.find((value) => value.index === 1).id;
  // Then the new shape takes the selected shape's first outgoing flow and its place in
  // the order, right after the selected shape.
  const appended = await readContent(diagram);
  const added = appended.entries.find((entry) => entry.shapeId === newShapeId);
  const rest = appended.entries.filter((entry) => entry !== added);
  const next = rest.find((entry) => entry.predecessors.includes(shapeId));
  if (next) next.predecessors = next.predecessors.map((p) => (p === shapeId ? newShapeId : p));
  rest.splice(rest.findIndex((entry) => entry.shapeId === shapeId) + 1, 0, added);
  await writeContent(diagram, rest, appended.etag);
  const { etag: edited } = await readContent(diagram);
  lastEdit = { label: t("editInsert", { type: typeWord(type) }), diagramId: diagram.id, reselect: overlay.dataset.guid,
    undo: () => writeContent(diagram, entries, edited) };
  return added.id;
}

async function deleteShape(overlay) {
  const shapeId = overlay.dataset.shapeId;
  const diagram = diagramOf();
  const { entries, etag: now } = await readContent(diagram);
  const etag = (await diagram.drawnEtag) ?? now;
  const gone = entries.find((entry) => entry.shapeId === shapeId);
  const kept = entries.filter((entry) => entry !== gone).map((entry) => ({ ...entry,
    predecessors: entry.predecessors.includes(shapeId)
      ? [...new Set(entry.predecessors.flatMap((p) => (p === shapeId ? gone.predecessors : [p])))]
      : entry.predecessors }));
  await writeContent(diagram, kept, etag);
  // Undo puts the shape back as a new shape of the same element, its flows as they were.
  const restored = entries.map((entry) => (entry === gone
    ? { key: shapeId, id: gone.id, predecessors: gone.predecessors }
    : entry));
  const { etag: edited } = await readContent(diagram);
  lastEdit = { label: t("editDelete", { name: nameOf(gone.id) }), diagramId: diagram.id, reselect: gone.id,
    undo: () => writeContent(diagram, restored, edited) };
}

// ---- the bar ------------------------------------------------------------------------------

// The bar's words carry i18n.js keys, so a culture switch says them again.
function button(action, key) {
  const element = document.createElement("button");
  element.type = "button";
  element.dataset.action = action;
  element.dataset.i18n = key;
  element.textContent = t(key);
  return element;
}

function labelled(key, control) {
  const label = document.createElement("label");
  const text = document.createElement("span");
  text.dataset.i18n = key;
  text.textContent = t(key);
  label.append(text, " ", control);
  return label;
}

// The types one may insert, named in the current culture.
function fillInsertTypes(select) {
  const chosen = select.value;
  select.replaceChildren(...INSERTABLE.map((key) => new Option(typeWord(key), key)));
  if (chosen) select.value = chosen;
}

// Edits are offered only to a role that may make them (GET …/token: its permissions).
const mayEdit = () => Boolean(state.caller?.permissions?.includes(EDIT_PERMISSION));

function buildBar() {
  const form = document.createElement("form");
  form.className = "edit-bar";
  form.dataset.testid = "edit-bar";
  form.dataset.i18nLabel = "editBar";
  form.setAttribute("aria-label", t("editBar"));
  form.hidden = true;
  const name = document.createElement("input");
  name.name = "name";
  name.required = true;
  const description = document.createElement("input");
  description.name = "description";
  const save = document.createElement("button");
  save.type = "submit";
  save.dataset.i18n = "save";
  save.textContent = t("save");
  const type = document.createElement("select");
  type.name = "insertType";
  type.dataset.i18nLabel = "insertType";
  type.setAttribute("aria-label", t("insertType"));
  fillInsertTypes(type);
  const message = document.createElement("span");
  message.className = "edit-message";
  message.dataset.testid = "edit-message";
  message.setAttribute("role", "status");
  form.append(labelled("name", name), labelled("description", description), save,
    button("insert-shape", "insertAfter"), type, button("delete-shape", "delete"),
    button("undo-edit", "undo"), message);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(() => saveText(form), { reselect: form.dataset.elementId });
  });
  form.addEventListener("click", (event) => {
    const action = event.target.closest?.("button[data-action]")?.dataset.action;
    const overlay = selectedOverlay();
    if (action === "insert-shape" && overlay) {
      run(async () => {
        const elementId = await insertAfter(overlay, type.value);
        focusName = true;
        return { message: t("inserted", { type: typeWord(type.value) }), reselect: elementId };
      });
    } else if (action === "delete-shape" && overlay) {
      run(async () => {
        await deleteShape(overlay);
        return { message: t("deleted"), reselect: state.diagram.id };
      });
    } else if (action === "undo-edit" && lastEdit) {
      const undone = lastEdit;
      run(async () => {
        await undone.undo();
        lastEdit = null;
        return { message: t("undidThe", { edit: undone.label }), reselect: undone.reselect };
      });
    } else if (action === "reload") {
      location.reload();
    }
  });
  return form;
}

// One edit at a time; afterwards the drawing is fetched again and the bar refilled.
async function run(edit, { reselect } = {}) {
  if (busy) return;
  busy = true;
  const form = bar();
  form.setAttribute("aria-busy", "true");
  const message = $("[data-testid=edit-message]");
  let outcome;
  try {
    const result = await edit();
    outcome = typeof result === "object" ? result : { message: result, reselect };
    message.replaceChildren(outcome.message);
    message.classList.remove("error");
  } catch (error) {
    showRefusal(message, error);
  } finally {
    busy = false;
    form.removeAttribute("aria-busy");
  }
  await redraw(); // a refused edit too: the drawing shows what is stored now
  if (!outcome) return; // the form keeps what was typed, beside the refusal
  form.dataset.elementId = ""; // read again: the edit changed its ETag
  const target = outcome?.reselect;
  if (target && target !== state.element?.id) {
    location.hash = hrefFor(target, { diagramId: state.diagram.id });
  } else {
    if (state.element) await showPanel(await fetchElement(state.element.id));
    await fillBar();
  }
  relabel();
  updateUndo();
}

function showRefusal(message, error) {
  message.classList.add("error");
  if (error.status === 412) {
    message.replaceChildren(`${t("changedElsewhere")} `, button("reload", "reload"));
  } else if (error.status === 403) {
    message.replaceChildren(t("mayNotEdit", { reason: error.message }));
  } else {
    message.replaceChildren(t("notSaved", { reason: error.message }));
  }
}

function updateUndo() {
  const undo = $("[data-action=undo-edit]", bar());
  undo.disabled = !lastEdit;
  undo.title = lastEdit ? t("undoThe", { edit: lastEdit.label }) : t("nothingToUndo");
}

// The bar follows the selection: shown to a role that may edit, for a diagram with
// content, filled with the selected shape's element's name and description in the
// current culture (and the ETag they came with).
async function fillBar() {
  const form = bar();
  const overlay = selectedOverlay();
  const hasContent = (state.diagram?.content || []).length > 0;
  if (lastEdit && lastEdit.diagramId !== state.diagram?.id) lastEdit = null; // undo is per diagram
  const editable = Boolean(overlay) && hasContent;
  // Shown, not hidden, with nothing selected: the drawing stays put.
  form.hidden = !hasContent || !mayEdit();
  if (form.hidden) return;
  fillInsertTypes(form.elements.insertType);
  for (const control of form.elements) {
    if (control.dataset.action !== "undo-edit" && control.dataset.action !== "reload") control.disabled = !editable;
  }
  updateUndo();
  if (!editable) return;
  const id = overlay.dataset.guid;
  if (form.dataset.elementId === id && form.dataset.culture === String(state.culture)) return;
  const facet = state.facetOf.get(id) || "processes";
  const loaded = await readWithEtag(facet, id, "attributes");
  form.dataset.elementId = id;
  form.dataset.culture = String(state.culture);
  form.dataset.loaded = JSON.stringify(loaded);
  const culture = String(state.culture);
  form.elements.name.value = loaded.element.attributes?.name?.[culture] ?? pick(loaded.element.attributes?.name) ?? "";
  form.elements.description.value = htmlText(loaded.element.attributes?.description?.[culture] ?? "");
  if (focusName) {
    focusName = false;
    form.elements.name.focus();
    form.elements.name.select();
  }
}

// A new sign-in: the previous user's last edit is not theirs to undo, nor its message
// theirs to read.
export function forgetEdits() {
  lastEdit = null;
  const form = bar();
  if (!form) return;
  form.dataset.elementId = "";
  $("[data-testid=edit-message]", form).replaceChildren();
}

// The bar again: the selection, the culture or the signed-in role changed.
export function refillBar() {
  fillBar().catch((error) => showRefusal($("[data-testid=edit-message]"), error));
}

export function wireEdits({ redraw: drawAgain }) {
  redraw = drawAgain;
  const form = buildBar();
  $(".diagram-pane .toolbar").after(form);
  // The selection is the overlay marked `selected` (viewer.js); follow its changes.
  new MutationObserver(() => {
    const shown = `${selectedOverlay()?.dataset.guid ?? ""}|${state.culture}`;
    if (shown !== form.dataset.shown) {
      form.dataset.shown = shown;
      refillBar();
    }
  }).observe($("[data-testid=diagram]"), { subtree: true, childList: true, attributeFilter: ["class"] });
}
