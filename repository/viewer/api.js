// Calls to this service's REST API with the tenant's bearer token, and what the answers
// teach the page: each element's facet and name.

import { t } from "./i18n.js";
import { enc, hasDrawing, showSignIn, state } from "./page.js";

const NAME_LOOKUP_CHUNK = 100; // ids per `$filter=id in (...)`, well under its 8,000 chars

export const FULL_ELEMENT = { $resources: "attributes,related,children,content,rootPath" };
export const LISTED = { $resources: "attributes,children,content", $select: "name", $pageSize: "1000" };

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// `body` is sent as JSON; `withEtag` answers {answer, etag} (edit.js: If-Match).
export async function api(path, {
  method = "GET", params = {}, svg = false, body, headers = {}, withEtag = false,
} = {}) {
  const url = new URL(`/${enc(state.collection)}/${enc(state.storage)}/_api/${path}`,
    location.origin);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const json = body === undefined ? {} : { "Content-Type": "application/json" };
  const response = await fetch(url, {
    method, headers: { Authorization: `Bearer ${state.token}`, ...json, ...headers }, credentials: "omit",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).message || message; } catch { /* not JSON */ }
    if (response.status === 401) showSignIn(t("tokenRefused", { reason: message }));
    throw new ApiError(message, response.status);
  }
  const answer = await (svg ? response.text() : response.json());
  return withEtag ? { answer, etag: response.headers.get("ETag") } : answer;
}

export const elementsPath = (facet, view) => `rest/facets/${enc(facet)}/views/${view}/elements`;

export function remember(elements) {
  for (const element of elements) {
    if (element.facetName) state.facetOf.set(element.id, element.facetName);
    if (element.attributes && element.attributes.name) state.names.set(element.id, element.attributes.name);
    if (element.state) state.elementStates.set(element.id, element.state);
    if (element.content || element.children) state.drawable.set(element.id, hasDrawing(element));
  }
  return elements;
}

// An id alone does not say its facet: ask the one we learned, else each facet in turn.
export async function fetchElement(id) {
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

// Names of referenced elements (references carry none): one listing per facet; with
// `drawings`, also whether each has a drawing of its own (state.drawable).
export async function lookUpNames(references, { drawings = false } = {}) {
  const missing = new Map();
  const resources = drawings ? "attributes,content,children" : "attributes";
  for (const reference of references) {
    state.facetOf.set(reference.id, reference.facetName);
    if (state.names.has(reference.id) && (!drawings || state.drawable.has(reference.id))) continue;
    if (!missing.has(reference.facetName)) missing.set(reference.facetName, new Set());
    missing.get(reference.facetName).add(reference.id);
  }
  const requests = [];
  for (const [facet, idSet] of missing) {
    const ids = [...idSet];
    for (let start = 0; start < ids.length; start += NAME_LOOKUP_CHUNK) {
      const quoted = ids.slice(start, start + NAME_LOOKUP_CHUNK).map((id) => `'${id.replaceAll("'", "''")}'`);
      requests.push(api(elementsPath(facet, "list"), { params: {
        $filter: `id in (${quoted.join(", ")})`, $resources: resources, $select: "name",
        $pageSize: "1000" } }).then((answer) => remember(answer.elements)));
    }
  }
  await Promise.all(requests);
}
