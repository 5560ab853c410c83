// What every builder module shares: the flow as loaded, the node kinds, the
// Drawflow editor, the flow's own node records (keyed by Drawflow id), the
// editing state and the unsaved-changes counter.
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
};

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
