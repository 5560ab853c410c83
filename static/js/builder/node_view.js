// The node view: the selected node's input (left), its settings (centre) and
// its output (right) side by side, from the last run shown or the flow's pins.
// The inspector's own form moves into the centre while the view is open, so
// its fields, completions and previews work as they do in the panel. Opened by
// "Open node view" in the inspector or a double click on a node; Escape or
// Close ends it. "Wide editor" gives the settings (the code editor) the whole
// width.
import { samples } from "./code_editor.js";
import { container, dfIdOfNode, flow, on, records, state } from "./context.js";
import { dataTree } from "./data_tree.js";
import { $, h } from "./dom.js";
import { inspector, selectNode } from "./inspector.js";

const view = $("node-view");
const inputBox = $("node-view-input");
const outputBox = $("node-view-output");
const settingsBox = $("node-view-settings");
const wideButton = $("node-view-wide");
const BEHIND = document.querySelectorAll(".left-panel, .canvas-area, .right-panel");
let returnFocus = null;

function nameOf(nodeId) {
  return records.get(dfIdOfNode(nodeId))?.name || nodeId;
}

/** The node's output: the last run's, else its pinned output. */
function outputOf(nodeId) {
  const step = state.lastSteps.find((item) => item.node_id === nodeId && item.output !== undefined && item.output !== null);
  if (step) return { value: step.output, from: "last run" };
  if (flow.pins && Object.hasOwn(flow.pins, nodeId)) return { value: flow.pins[nodeId], from: "pinned" };
  return null;
}

/** What the node's templates and code can read: the run's input, the previous
 * node's output and every earlier output by node name, pins filling gaps. */
function inputRoots(nodeId) {
  const data = samples(nodeId);
  const results = { ...data.results };
  for (const [id, value] of Object.entries(flow.pins || {})) if (!(id in results)) results[id] = value;
  delete results[nodeId];
  const roots = [];
  if (Object.keys(data.input).length) roots.push({ path: "input", label: "input", caption: "the run's input", value: data.input });
  if (data.prev !== undefined && !(data.prev && typeof data.prev === "object" && !Object.keys(data.prev).length)) {
    roots.push({ path: "prev", label: "prev", caption: "the previous node's output", value: data.prev });
  }
  for (const [id, value] of Object.entries(results)) {
    if (value !== undefined) roots.push({ path: `results.${id}`, label: nameOf(id), caption: id, value });
  }
  return roots;
}

function emptyNote(text) {
  return h("p", { class: "muted small-text", text });
}

function renderSides() {
  const nodeId = records.get(state.selected)?.id;
  if (!nodeId) return;
  const roots = inputRoots(nodeId);
  inputBox.replaceChildren(h("h2", { class: "section-title", text: "Input" }),
    roots.length ? dataTree(roots) : emptyNote("No input yet: run the flow (Run tab) or pin the nodes before this one."),
    roots.length ? h("p", { class: "hint", text: "Drag a field onto a setting to insert its {{ }} reference." }) : null);
  const output = outputOf(nodeId);
  outputBox.replaceChildren(h("h2", { class: "section-title", text: "Output" }),
    output ? h("p", { class: "muted small-text", text: `From the ${output.from}.` }) : null,
    output ? dataTree([{ path: `results.${nodeId}`, label: records.get(state.selected).name || nodeId, caption: nodeId, value: output.value }])
      : emptyNote("No output yet: run the flow, or pin an output."));
}

export function openNodeView() {
  if (!state.selected || !view.hidden) return;
  returnFocus = document.activeElement;
  settingsBox.append(inspector);
  view.hidden = false;
  for (const behind of BEHIND) behind.inert = true; // Tab stays in the view
  renderSides();
  $("node-view-title").textContent = records.get(state.selected).name || "Node";
  $("node-view-close").focus();
}

export function closeNodeView() {
  if (view.hidden) return;
  view.hidden = true;
  for (const behind of BEHIND) behind.inert = false;
  $("pane-inspector").append(inspector);
  returnFocus?.focus?.();
}

wideButton.addEventListener("click", () => {
  const wide = wideButton.getAttribute("aria-pressed") !== "true";
  wideButton.setAttribute("aria-pressed", String(wide));
  view.classList.toggle("wide", wide);
});
$("node-view-close").addEventListener("click", closeNodeView);
view.addEventListener("keydown", (event) => {
  // Escape inside the code editor is the editor's own (Escape then Tab leaves it).
  if (event.key === "Escape" && !event.defaultPrevented && !event.target.closest(".cm-editor")) {
    event.preventDefault();
    closeNodeView();
  }
});
container.addEventListener("dblclick", (event) => {
  const element = event.target.closest(".drawflow-node");
  if (!element) return;
  selectNode(element.id.replace("node-", ""));
  openNodeView();
});
on("open-node-view", openNodeView);
on("selection-changed", () => {
  if (view.hidden) return;
  if (!state.selected) closeNodeView();
  else {
    renderSides();
    $("node-view-title").textContent = records.get(state.selected).name || "Node";
  }
});
on("run-shown", () => view.hidden || renderSides());
