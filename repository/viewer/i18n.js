// The page's words in the chosen culture: its own labels (English and German, following
// the culture switch, and the browser's language on a first visit) and the catalog's
// display names for every key the service answers with (types, states, transitions,
// attributes and their values, related contexts, facets, layouts, roles), so no internal
// key reaches the reader. Dates are said in the culture's form.

import { $$, DEFAULT_CULTURE, state } from "./page.js";

export const GERMAN = 1031;
const CULTURE_KEY = "elrepo.culture";

const CHROME = {
  facet: ["Facet", "Facette"],
  searchNames: ["Search names", "Namen suchen"],
  layout: ["Layout", "Layout"],
  culture: ["Language", "Sprache"],
  signOut: ["Sign out", "Abmelden"],
  signIn: ["Sign in", "Anmelden"],
  signInHelp1: ["Paste the bearer token that", "Fügen Sie das Token ein, das"],
  signInHelp2: ["printed, or make one with", "ausgegeben hat, oder erzeugen Sie eines mit"],
  signInHelp3: ["It stays in this tab only.", "Es bleibt nur in diesem Tab."],
  token: ["Token", "Token"],
  collection: ["Collection", "Sammlung"],
  storage: ["Storage", "Ablage"],
  elements: ["Elements", "Elemente"],
  diagram: ["Diagram", "Diagramm"],
  diagramHelp: ["Diagram: drag or arrow keys to pan, wheel or + and − to zoom, 0 to fit",
    "Diagramm: Ziehen oder Pfeiltasten verschieben, Mausrad oder + und − zoomen, 0 passt ein"],
  zoomIn: ["Zoom in", "Vergrößern"],
  zoomOut: ["Zoom out", "Verkleinern"],
  zoomInKey: ["Zoom in (+)", "Vergrößern (+)"],
  zoomOutKey: ["Zoom out (−)", "Verkleinern (−)"],
  fit: ["Fit", "Einpassen"],
  fitKey: ["Fit (0)", "Einpassen (0)"],
  path: ["Path", "Pfad"],
  type: ["Type", "Typ"],
  state: ["State", "Status"],
  version: ["Version", "Version"],
  openDiagram: ["Open its diagram", "Sein Diagramm öffnen"],
  release: ["Release", "Freigabe"],
  versions: ["Versions", "Versionen"],
  attributes: ["Attributes", "Attribute"],
  related: ["Related", "Beziehungen"],
  element: ["Element", "Element"],
  signedInAs: ["Signed in as {role}", "Angemeldet als {role}"],
  yes: ["yes", "ja"],
  no: ["no", "nein"],
  openEnded: ["open-ended", "unbefristet"],
  noName: ["(no name)", "(ohne Namen)"],
  none: ["None.", "Keine."],
  notVersioned: ["Not versioned: no release workflow.", "Nicht versioniert: kein Freigabeprozess."],
  noTransition: ["No step of the workflow is open to your role now.",
    "Ihrer Rolle steht jetzt kein Schritt des Freigabeprozesses offen."],
  nextStepBy: ["Next step by: {roles}.", "Nächster Schritt durch: {roles}."],
  noElements: ["No elements in this facet.", "Keine Elemente in dieser Facette."],
  nothingNamed: ["Nothing named like “{text}”.", "Nichts heißt wie „{text}“."],
  expand: ["Expand", "Aufklappen"],
  collapse: ["Collapse", "Zuklappen"],
  signInFailed: ["Sign-in failed: {reason}", "Anmeldung fehlgeschlagen: {reason}"],
  tokenRefused: ["The token was not accepted: {reason}", "Das Token wurde nicht angenommen: {reason}"],
  signedOut: ["Signed out.", "Abgemeldet."],
  cannotStart: ["The viewer could not start: {reason}", "Der Viewer konnte nicht starten: {reason}"],
  transitionDone: ["{step}: now {state}, version {version}", "{step}: jetzt {state}, Version {version}"],
  transitionRefused: ["{step} refused: {reason}", "{step} abgelehnt: {reason}"],
  confirmStep: ["{step}: “{name}”?", "{step}: „{name}“?"],
  confirmRelease: ["This version becomes the released one; the version released before expires.",
    "Diese Version wird die freigegebene; die bisher freigegebene Version läuft ab."],
  confirmMove: ["The element moves to “{state}”.", "Das Element geht in den Status „{state}“."],
  comment: ["Comment (optional)", "Kommentar (optional)"],
  cancel: ["Cancel", "Abbrechen"],
  versionLine: ["{version} — {state}", "{version} — {state}"],
  releasedOnBy: ["released {date}", "freigegeben am {date}"],
  // the drawing (diagram.js, view.js, search.js, flow.js)
  zoom: ["Zoom", "Zoom"],
  overviewHelp: ["Overview: click or drag to move the view",
    "Übersicht: klicken oder ziehen verschiebt die Ansicht"],
  findInDiagram: ["Find in diagram", "Im Diagramm suchen"],
  findShape: ["Find a shape in the diagram by name", "Eine Form im Diagramm nach Namen suchen"],
  notFound: ["not found", "nicht gefunden"],
  hitOf: ["{n} of {total}", "{n} von {total}"],
  noDiagram: ["This element has no diagram.", "Dieses Element hat kein Diagramm."],
  cannotDraw: ["The diagram could not be drawn: {reason}", "Das Diagramm konnte nicht gezeichnet werden: {reason}"],
  pngFailed: ["PNG export failed: {reason}", "PNG-Export fehlgeschlagen: {reason}"],
  hasOwnDiagram: ["has its own diagram", "hat ein eigenes Diagramm"],
  // the edit bar (edit.js)
  editBar: ["Edit the selected shape", "Ausgewählte Form bearbeiten"],
  name: ["Name", "Name"],
  description: ["Description", "Beschreibung"],
  save: ["Save", "Speichern"],
  insertAfter: ["Insert after", "Danach einfügen"],
  insertType: ["Type of the shape to insert", "Typ der einzufügenden Form"],
  delete: ["Delete", "Löschen"],
  undo: ["Undo", "Rückgängig"],
  needsName: ["A shape needs a name.", "Eine Form braucht einen Namen."],
  nothingChanged: ["Nothing changed.", "Nichts geändert."],
  saved: ["Saved.", "Gespeichert."],
  inserted: ["Inserted a {type}.", "{type} eingefügt."],
  deleted: ["Deleted.", "Gelöscht."],
  editRename: ["rename of “{name}”", "Umbenennung von „{name}“"],
  editInsert: ["insert of a {type}", "Einfügen von „{type}“"],
  editDelete: ["delete of “{name}”", "Löschen von „{name}“"],
  undoThe: ["Undo the {edit}", "{edit} rückgängig machen"],
  undidThe: ["Undid the {edit}.", "{edit} rückgängig gemacht."],
  nothingToUndo: ["Nothing to undo", "Nichts rückgängig zu machen"],
  changedElsewhere: ["Changed by someone else since you opened it; nothing was written.",
    "Seit dem Öffnen von jemand anderem geändert; nichts wurde geschrieben."],
  reload: ["Reload", "Neu laden"],
  mayNotEdit: ["Your role may not edit: {reason}", "Ihre Rolle darf nicht bearbeiten: {reason}"],
  notSaved: ["Not saved: {reason}", "Nicht gespeichert: {reason}"],
  // versions compared (compare.js)
  firstRelease: ["First release: no released version to compare with.",
    "Erste Freigabe: keine freigegebene Version zum Vergleichen."],
  changesSinceReleased: ["Changes since the released version", "Änderungen seit der freigegebenen Version"],
  changesBetweenPicked: ["Changes between the picked versions", "Änderungen zwischen den gewählten Versionen"],
  compareVersion: ["Compare version {version}", "Version {version} vergleichen"],
  comparing: ["Comparing…", "Vergleiche…"],
  compareDrawing: ["Both versions in one drawing (scrolls)", "Beide Versionen in einer Zeichnung (scrollbar)"],
  compareFailed: ["Compare failed: {reason}", "Vergleich fehlgeschlagen: {reason}"],
  changeAdded: ["added: {what}", "hinzugefügt: {what}"],
  changeRemoved: ["removed: {what}", "entfernt: {what}"],
  changeMoved: ["moved: {what}", "verschoben: {what}"],
  changeChanged: ["changed: {what}", "geändert: {what}"],
  changeFlows: ["flows: {what}", "Flüsse: {what}"],
  editedSince: ["edited since the older version", "seit der älteren Version bearbeitet"],
  itsElement: ["its element", "sein Element"],
  theDiagram: ["the diagram: {what}", "das Diagramm: {what}"],
  flowsAddedRemoved: ["{added} added, {removed} removed", "{added} hinzugefügt, {removed} entfernt"],
  noChange: ["No change: the two versions are the same model.",
    "Keine Änderung: die beiden Versionen sind dasselbe Modell."],
};

// The page's culture: the URL's, else the one chosen before, else the browser's language.
export function preferredCulture() {
  const chosen = Number.parseInt(localStorage.getItem(CULTURE_KEY), 10);
  if (state.catalog.cultures.some((culture) => culture.id === chosen)) return chosen;
  return (navigator.languages || [navigator.language]).some((tag) => /^de\b/i.test(tag || ""))
    ? GERMAN : DEFAULT_CULTURE;
}

export function rememberCulture(culture) {
  localStorage.setItem(CULTURE_KEY, String(culture));
}

const isGerman = () => state.culture === GERMAN;

// One of the page's own phrases, `{name}` filled from `values`.
export function t(key, values = {}) {
  const phrase = CHROME[key][isGerman() ? 1 : 0];
  return phrase.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

// The page's fixed labels: `data-i18n` (text), `data-i18n-label` (aria-label),
// `data-i18n-placeholder`, `data-i18n-title`, and the document's language.
export function translatePage() {
  document.documentElement.lang = isGerman() ? "de" : "en";
  for (const element of $$("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of $$("[data-i18n-label]")) element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  for (const element of $$("[data-i18n-placeholder]")) element.placeholder = t(element.dataset.i18nPlaceholder);
  for (const element of $$("[data-i18n-title]")) element.title = t(element.dataset.i18nTitle);
}

// ---- the catalog's words ------------------------------------------------------------

function inCulture(names) {
  if (!names) return undefined;
  return names[state.culture] ?? names[DEFAULT_CULTURE] ?? Object.values(names)[0];
}

// `processMaturity` → "Process maturity": a key the catalog has no name for (a tenant's
// own attribute) is still said in words, never as code.
export function inWords(key) {
  const spaced = String(key).replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_.-]+/g, " ").trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1).toLowerCase();
}

const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const named = (table, key) => inCulture(state.catalog.names[table][key]);

export const typeWord = (type) => inCulture(state.catalog.types[type]?.displayNames) ?? inWords(type);
export const stateWord = (key) => named("states", key) ?? inWords(key);
export const transitionWord = (id) => named("transitions", id) ?? inWords(id);
export const attributeWord = (key) => named("attributes", key) ?? inWords(key);
export const relatedWord = (context) => capitalized(named("related", context) ?? inWords(context));
export const roleWord = (role) => named("roles", role) ?? inWords(role);
export const layoutWord = (key) => named("layouts", key) ?? inWords(key);
export const facetWord = (facet) =>
  inCulture(state.catalog.facets.find((entry) => entry.name === facet)?.displayNames) ?? inWords(facet);

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?/;
const OPEN_ENDED = "9999-12-31";

// A stored timestamp (UTC, `2026-11-27T13:44:39`) in the culture's form, in local time.
export function dateWords(text) {
  if (text.startsWith(OPEN_ENDED)) return t("openEnded");
  const date = new Date(/[Zz]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
  if (Number.isNaN(date.getTime())) return text;
  return new Intl.DateTimeFormat(isGerman() ? "de-DE" : "en-GB",
    { dateStyle: "medium", timeStyle: "short" }).format(date);
}

// An attribute's value (one culture's) as a reader says it.
export function valueWords(attribute, value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  if (Array.isArray(value)) return value.map((entry) => valueWords(attribute, entry)).join(", ");
  if (typeof value === "object") return value.name !== undefined ? valueWords(attribute, value.name) : "";
  const text = String(value);
  const selection = state.catalog.names.selectionValues[attribute];
  if (selection?.[text]) return inCulture(selection[text]);
  if (TIMESTAMP.test(text)) return dateWords(text);
  return text;
}
