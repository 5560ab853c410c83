// What every builder module shares: the flow as loaded, the node kinds, the
// Drawflow editor, the flow's own node records (keyed by Drawflow id), the
// editing state, the unsaved-changes counter and the event bus.
import { drawflowToGraph, graphToDrawflow } from "../graph_format.js";
import { $ } from "./dom.js";

export const flow = JSON.parse(document.getElementById("flow-data").textContent);
export const kinds = Object.fromEntries(
  JSON.parse(document.getElementById("node-kinds").textContent).map((kind) => [kind.type, kind]),
);

export const container = $("drawflow");
export const editor = new window.Drawflow(container);
editor.start();
const loaded = graphToDrawflow(flow, kinds);
export const records = loaded.records;
editor.import(loaded.importData);

export const state = {
  version: flow.version,
  changeCounter: 0,
  savedCounter: 0,
  saving: false,
  savedEdges: flow.edges,
  savedGraphJson: JSON.stringify({ name: flow.name, nodes: flow.nodes, edges: flow.edges }),
  selected: null,
  nodeErrors: new Map(), // dfId -> [{field, message}]
  // The steps of the run shown last, set by run_view.js showRun() only: "Pin
  // last output" and the code editor's samples read them.
  lastSteps: [],
};

// A small event bus (as Node-RED's editor has RED.events): a panel reacts to
// what happened instead of importing the panel that handles it, so modules do
// not import each other in a circle. Events: "select-node" (dfId, options),
// "refresh-inspector", "tab-shown" (name), "selection-changed" (after any
// selection), "open-node-view", "run-shown" (after showRun()).
const handlers = new Map();

export function on(event, handler) {
  if (!handlers.has(event)) handlers.set(event, []);
  handlers.get(event).push(handler);
}

export function emit(event, ...args) {
  for (const handler of handlers.get(event) || []) handler(...args);
}

export function isDirty() {
  return state.changeCounter !== state.savedCounter;
}

export function nodeElement(dfId) {
  return document.getElementById(`node-${dfId}`);
}

export function dfIdOfNode(nodeId) {
  for (const [dfId, record] of records) if (record.id === nodeId) return dfId;
  return null;
}

export function currentGraph() {
  return drawflowToGraph(editor.export(), records, kinds, state.savedEdges);
}

export function refreshEmptyHint() {
  $("canvas-empty").hidden = records.size > 0;
}

export const saveState = $("save-state");

// Called after each graph change with its `coalesce` key (undo.js records steps).
export const graphListeners = [];

/**
 * Something the user would save changed. `graph: false` for changes that are not
 * part of the graph (the flow's name); `coalesce` names an edit that merges with
 * the previous one of the same key (typing into one inspector field).
 */
export function markChanged({ graph = true, coalesce = null } = {}) {
  state.changeCounter += 1;
  renderSaveState();
  if (graph) for (const listener of graphListeners) listener(coalesce);
}

export function renderSaveState(text) {
  saveState.classList.toggle("dirty", isDirty());
  if (text) saveState.textContent = text;
  else saveState.textContent = isDirty() ? "Unsaved changes" : "All changes saved";
}

window.addEventListener("beforeunload", (event) => {
  if (isDirty()) {
    event.preventDefault();
    event.returnValue = "";
  }
});
