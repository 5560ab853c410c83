// Copy, paste and duplicate nodes (Ctrl+C, Ctrl+V, Ctrl+D), within a flow and
// across flows. The clipboard carries plain JSON in the API's shape,
// {"nodes": [...], "edges": [...]} with only the edges between the copied nodes,
// so a flow copied from the API (or an export) pastes too. Pasted nodes get fresh
// ids and unique names and land near the selection, inside the view, on no other
// node; their layout is kept where there is room.
//
// What is copied: the nodes picked with Shift+click or Ctrl+A, plus the selected one.
import { handlesOf, kindOf, settingsOf } from "../graph_format.js";
import { container, currentGraph, editor, kinds, nodeElement, records, state } from "./context.js";
import { addNode } from "./canvas.js";
import { typingInField } from "./dom.js";
import { selectNode } from "./inspector.js";
import { freeSpot, placeForNewNode } from "./placement.js";

const picked = new Set();

function renderPicks() {
  container.querySelectorAll(".drawflow-node.picked").forEach((element) => element.classList.remove("picked"));
  for (const dfId of picked) nodeElement(dfId)?.classList.add("picked");
}

/** Drawflow ids of the nodes a copy takes. */
function chosen() {
  const ids = new Set([...picked].filter((dfId) => records.has(dfId)));
  if (state.selected) ids.add(state.selected);
  return ids;
}

export function pickAll() {
  picked.clear();
  for (const dfId of records.keys()) picked.add(dfId);
  renderPicks();
}

export function clearPicks() {
  picked.clear();
  renderPicks();
}

/** The chosen nodes and the edges between them, in the API's graph shape. */
export function selectionAsGraph() {
  const dfIds = chosen();
  if (!dfIds.size) return null;
  const ids = new Set([...dfIds].map((dfId) => records.get(dfId).id));
  const { graph } = currentGraph();
  return {
    nodes: graph.nodes.filter((node) => ids.has(node.id)),
    edges: graph.edges.filter((edge) => ids.has(edge.source) && ids.has(edge.target)),
  };
}

/** Nodes and edges from pasted text, or null when it is not a graph. */
export function graphFromText(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return null;
  }
  if (Array.isArray(value)) value = { nodes: value, edges: [] };
  else if (value && typeof value === "object" && typeof value.type === "string") value = { nodes: [value], edges: [] };
  if (!value || typeof value !== "object" || !Array.isArray(value.nodes)) return null;
  const nodes = value.nodes.filter((node) => node && typeof node === "object" && kinds[node.type]);
  if (!nodes.length) return null;
  return { nodes, edges: Array.isArray(value.edges) ? value.edges : [] };
}

/** Add `graph`'s nodes and their edges to the canvas; returns the new Drawflow ids. */
export function insertGraph(graph) {
  const positions = graph.nodes.map((node, index) => ({
    x: Number(node.position?.x) || index * 240,
    y: Number(node.position?.y) || 0,
  }));
  const originX = Math.min(...positions.map((point) => point.x));
  const originY = Math.min(...positions.map((point) => point.y));
  const anchor = placeForNewNode();
  const taken = Object.values(editor.drawflow.drawflow.Home.data).map((entry) => [entry.pos_x, entry.pos_y]);
  const dfIdOf = new Map();
  graph.nodes.forEach((node, index) => {
    const wanted = { x: anchor.x + positions[index].x - originX, y: anchor.y + positions[index].y - originY };
    const spot = freeSpot(wanted, { taken });
    taken.push([spot.x, spot.y]);
    const data = node.data && typeof node.data === "object" ? structuredClone(node.data) : undefined;
    const settings = settingsOf(node);
    const dfId = addNode(node.type, spot, { exact: true, name: node.name || null, data, settings, select: false });
    if (!dfIdOf.has(node.id)) dfIdOf.set(node.id, dfId);
  });
  for (const edge of graph.edges) {
    const source = dfIdOf.get(edge.source);
    const target = dfIdOf.get(edge.target);
    if (!source || !target) continue;
    const record = records.get(source);
    const handle = handlesOf(kindOf(kinds, record.type), record).indexOf(edge.sourceHandle ?? null);
    if (handle < 0 || kindOf(kinds, records.get(target).type).is_trigger) continue;
    editor.addConnection(source, target, `output_${handle + 1}`, "input_1");
  }
  const added = [...dfIdOf.values()];
  picked.clear();
  for (const dfId of added) picked.add(dfId);
  selectNode(added[0]);
  renderPicks();
  return added;
}

export function duplicateSelection() {
  const graph = selectionAsGraph();
  if (graph) insertGraph(graph);
}

document.addEventListener("copy", (event) => {
  if (typingInField(event.target) || String(window.getSelection() || "")) return;
  const graph = selectionAsGraph();
  if (!graph) return;
  event.clipboardData.setData("text/plain", JSON.stringify(graph, null, 2));
  event.preventDefault();
});

document.addEventListener("paste", (event) => {
  if (typingInField(event.target)) return;
  const graph = graphFromText(event.clipboardData.getData("text/plain"));
  if (!graph) return;
  event.preventDefault();
  insertGraph(graph);
});

// Shift+click adds a node to (or takes it from) what Ctrl+C copies.
container.addEventListener("mousedown", (event) => {
  const element = event.target.closest(".drawflow-node");
  if (!element) {
    if (!event.shiftKey) clearPicks();
    return;
  }
  const dfId = element.id.replace("node-", "");
  if (event.shiftKey) {
    if (picked.has(dfId)) picked.delete(dfId);
    else picked.add(dfId);
    if (state.selected && state.selected !== dfId) picked.add(state.selected);
  } else if (!picked.has(dfId)) {
    picked.clear();
  }
  renderPicks();
}, true);
