// Undo and redo of every graph change (add, delete, move, connect, disconnect,
// inspector edits): Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y, and the canvas bar's buttons.
//
// Each step is a snapshot of the whole graph (docs/api.md's format), taken once the
// change's events have settled: deleting a node fires one Drawflow event per
// removed connection and then one for the node, and they make one step. Typing
// into one inspector field keeps replacing the last step (its `coalesce` key), so
// a word is one step, not one per letter. Undo re-imports the snapshot.
import { graphToDrawflow } from "../graph_format.js";
import {
  currentGraph, editor, emit, graphListeners, kinds, markChanged, records, refreshEmptyHint, renderSaveState, state,
} from "./context.js";
import { $ } from "./dom.js";

export const MAX_STEPS = 200;

const history = {
  steps: [], index: -1, savedIndex: 0, lastKey: null, pending: false, restoring: false,
};

function snapshot() {
  const { graph } = currentGraph();
  return JSON.stringify(graph);
}

/** Take the settled graph as a new step (or replace the last one when coalescing). */
function recordStep(coalesce) {
  if (history.restoring) return;
  const key = coalesce;
  if (history.pending) {
    history.pendingKey = history.pendingKey === key ? key : null;
    return;
  }
  history.pending = true;
  history.pendingKey = key;
  queueMicrotask(() => {
    history.pending = false;
    const taken = snapshot();
    if (taken === history.steps[history.index]) return;
    const merge = history.pendingKey !== null && history.pendingKey === history.lastKey &&
      history.index === history.steps.length - 1 && history.index > 0;
    history.steps.length = history.index + 1; // a new change drops the redo steps
    if (merge) history.steps[history.index] = taken;
    else history.steps.push(taken);
    if (history.steps.length > MAX_STEPS + 1) {
      history.steps.shift();
      history.savedIndex -= 1;
    }
    history.index = history.steps.length - 1;
    history.lastKey = history.pendingKey;
    renderButtons();
  });
}

/** Put `graphJson` on the canvas, keeping the selection when its node survives. */
function restore(graphJson) {
  const graph = JSON.parse(graphJson);
  const selectedId = state.selected && records.get(state.selected)?.id;
  history.restoring = true;
  try {
    const loaded = graphToDrawflow(graph, kinds);
    editor.node_selected = null;
    editor.connection_selected = null;
    editor.clear();
    editor.import(loaded.importData);
    records.clear();
    for (const [dfId, record] of loaded.records) records.set(dfId, record);
    state.nodeErrors.clear();
    const again = [...records].find(([, record]) => record.id === selectedId);
    emit("select-node", again ? again[0] : null);
    if (!again) emit("refresh-inspector");
    refreshEmptyHint();
    markChanged();
    // Back at what was last saved: nothing is unsaved (unless the name changed).
    const savedName = JSON.parse(state.savedGraphJson).name;
    if (history.index === history.savedIndex && $("flow-name").value.trim() === savedName) {
      state.savedCounter = state.changeCounter;
      renderSaveState();
    }
  } finally {
    history.restoring = false;
  }
  history.lastKey = null;
  renderButtons();
}

/** The graph on the canvas was just saved: coming back to this step means clean. */
export function markStepSaved() {
  history.savedIndex = history.index;
}

export function undo() {
  if (history.index <= 0) return;
  history.index -= 1;
  restore(history.steps[history.index]);
}

export function redo() {
  if (history.index >= history.steps.length - 1) return;
  history.index += 1;
  restore(history.steps[history.index]);
}

function renderButtons() {
  $("undo-button").disabled = history.index <= 0;
  $("redo-button").disabled = history.index >= history.steps.length - 1;
}

/** The graph as loaded is the first step. Call once the canvas is filled. */
export function startUndo() {
  history.steps = [snapshot()];
  history.index = 0;
  graphListeners.push(recordStep);
  $("undo-button").addEventListener("click", undo);
  $("redo-button").addEventListener("click", redo);
  renderButtons();
}
