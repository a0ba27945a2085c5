// What an import kept of a BPMN file on an element (interchange/kept.py; docs/interchange.md,
// "What is kept"): the repository's bookkeeping, so the panel never lists it as raw
// attributes (a diagram's kept flows are thousands of entries) but says it in one line,
// "user task, timer, non-interrupting (id Task_1)". It imports nothing, so it can be run
// outside a browser (tests/viewer/test_viewer_bpmn.py).

const MARKERS = {
  loop: "loop",
  parallel: "parallel multi-instance",
  sequential: "sequential multi-instance",
  compensation: "compensation",
  eventSubProcess: "event sub-process",
};

// `userTask` → "user task", `subProcess` → "sub-process".
const words = (tag) =>
  tag.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().replace("sub process", "sub-process");

const listed = (value) => (Array.isArray(value) ? value.filter((entry) => typeof entry === "string") : []);

// The element's attributes as the panel lists them, [name, value] in name order: neither
// its `name` (the panel's title) nor a kept attribute (`keptNames`, from catalog.json),
// and, where there are kept ones, a row "BPMN" saying them. `pick` chooses a culture's value.
export function panelAttributes(attributes, keptNames, pick) {
  const kept = new Set(keptNames);
  const rows = Object.entries(attributes)
    .filter(([name]) => name !== "name" && !kept.has(name))
    .map(([name, values]) => [name, pick(values)]);
  const line = bpmnLine(Object.fromEntries(
    Object.entries(attributes).filter(([name]) => kept.has(name)).map(([name, values]) => [name, pick(values)])));
  if (line) rows.push(["BPMN", line]);
  return rows.sort(([a], [b]) => a.localeCompare(b));
}

// One line of what the kept attributes (each one culture's value) say; "" when none.
export function bpmnLine(kept) {
  const parts = [];
  if (typeof kept.bpmnType === "string") parts.push(words(kept.bpmnType));
  parts.push(...listed(kept.bpmnEventDefinitions));
  if (kept.bpmnInterrupting === false) parts.push("non-interrupting");
  parts.push(...listed(kept.bpmnMarkers).map((marker) => MARKERS[marker] ?? marker));
  const process = kept.bpmnProcessName ?? kept.bpmnProcess;
  if (typeof process === "string") parts.push(`process ${process}`);
  if (typeof kept.bpmnExecutable === "boolean") parts.push(kept.bpmnExecutable ? "executable" : "not executable");
  if (Array.isArray(kept.bpmnFlows)) parts.push(`${kept.bpmnFlows.length} flow${kept.bpmnFlows.length === 1 ? "" : "s"}`);
  if (typeof kept.bpmnFile === "string") parts.push(`from ${kept.bpmnFile}`);
  const line = parts.join(", ");
  return typeof kept.bpmnId === "string" ? `${line} (id ${kept.bpmnId})`.trim() : line;
}
