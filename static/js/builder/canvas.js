// The canvas: Drawflow's events, adding nodes (palette click and drop, placement)
// and zoom / fit.
import { drawflowNode, freshNodeId, handlesOf, kindOf } from "../graph_format.js";
import { defaultData } from "../node_forms.js";
import {
  container, editor, kinds, markChanged, nodeElement, records, refreshEmptyHint, state,
} from "./context.js";
import { $ } from "./dom.js";
import { selectNode } from "./inspector.js";
import { showTab } from "./tabs.js";
import { canvasPoint, freeSpot, placeFromPalette } from "./placement.js";
import { bringIntoView } from "./view.js";
import { appActionMatches } from "./app_palette.js";

for (const eventName of ["connectionCreated", "connectionRemoved"]) {
  editor.on(eventName, () => markChanged());
}

// Drawflow 0.0.60 stores a dragged node's position one mouse step off from where
// it draws it (it re-reads offsetLeft after moving). Take what the user sees.
editor.on("nodeMoved", (dfId) => {
  const entry = editor.drawflow.drawflow.Home.data[dfId];
  const element = nodeElement(String(dfId));
  if (entry && element) {
    entry.pos_x = parseFloat(element.style.left) || 0;
    entry.pos_y = parseFloat(element.style.top) || 0;
  }
  markChanged();
});

editor.on("nodeRemoved", (dfId) => {
  const key = String(dfId);
  if (editor.node_selected?.id === `node-${key}`) editor.node_selected = null;
  records.delete(key);
  state.nodeErrors.delete(key);
  if (state.selected === key) selectNode(null);
  refreshEmptyHint();
  markChanged();
});

editor.on("nodeSelected", (dfId) => selectNode(String(dfId), { fromCanvas: true }));
editor.on("nodeUnselected", () => selectNode(null, { fromCanvas: true }));
// Drawflow sends no event for a click on the node that is already selected; the
// inspector still comes to the front.
container.addEventListener("click", (event) => {
  const element = event.target.closest(".drawflow-node");
  if (!element || event.target.closest(".input, .output")) return;
  const dfId = element.id.replace("node-", "");
  if (state.selected !== dfId) selectNode(dfId, { fromCanvas: true });
  showTab("inspector");
});

/** "Code", then "Code 2", "Code 3", ...: a name no node of the flow has yet. */
export function uniqueName(wanted) {
  const taken = new Set([...records.values()].map((record) => record.name));
  if (!taken.has(wanted)) return wanted;
  const base = wanted.replace(/ \d+$/, ""); // a copy of "Code 2" is "Code 3"
  let counter = 2;
  while (taken.has(`${base} ${counter}`)) counter += 1;
  return `${base} ${counter}`;
}

/**
 * Put a new node on the canvas and return its Drawflow id. `name` and `data`
 * default to the kind's label (made unique) and its default data; `exact`
 * places it at `position` as is, otherwise at the nearest free spot in view.
 */
export function addNode(type, position, { exact = false, name = null, data = null, settings = {}, select = true } = {}) {
  const kind = kindOf(kinds, type);
  const existing = new Set([...records.values()].map((record) => record.id));
  const record = {
    id: freshNodeId(type, existing),
    type,
    name: uniqueName(name || kind.label),
    data: data ?? defaultData(kind),
    ...settings,
  };
  const { x, y } = exact ? { x: Math.round(position.x), y: Math.round(position.y) } : freeSpot(position);
  const entry = drawflowNode("0", record, kind, { x, y });
  const dfId = String(
    editor.addNode(entry.name, Object.keys(entry.inputs).length, Object.keys(entry.outputs).length,
      x, y, entry.class, {}, entry.html),
  );
  records.set(dfId, record);
  refreshEmptyHint();
  markChanged();
  if (select) selectNode(dfId);
  return dfId;
}

export const palette = $("palette");

/**
 * The output a palette node is connected from: the selected node's first port
 * with nothing on it (a switch's second case after its first), never its error
 * port; the first port when every one is taken.
 */
function outputToFollow(dfId) {
  const ports = Object.keys(editor.drawflow.drawflow.Home.data[dfId].outputs);
  const record = records.get(dfId);
  const handles = handlesOf(kindOf(kinds, record.type), record);
  const usable = ports.filter((port, index) => handles[index] !== "error");
  const free = usable.find((port) => !editor.drawflow.drawflow.Home.data[dfId].outputs[port].connections.length);
  return free || usable[0];
}

/**
 * Add a palette item's kind: right of the selected node and connected from
 * its first free output (when both ends have a port), else in view.
 */
function addFromPalette(type, options = {}) {
  const { position, exact, from } = placeFromPalette();
  const output = from && outputToFollow(from);
  const dfId = addNode(type, position, { exact, ...options });
  const target = editor.drawflow.drawflow.Home.data[dfId];
  if (output && Object.keys(target.inputs).length) editor.addConnection(from, dfId, output, "input_1");
  bringIntoView(dfId);
}

// Typing filters the palette by name, description or type; Enter adds the
// first match. Matches in the name come first ("call": Call flow before HTTP
// request, whose description says "Call"), then the palette's own order.
const paletteSearch = $("palette-search");
const paletteItems = [...palette.querySelectorAll("[data-kind]")];
function paletteMatches() {
  const words = paletteSearch.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const ranked = [];
  for (const [index, item] of paletteItems.entries()) {
    const name = item.textContent.trim().toLowerCase();
    const text = `${name} ${item.title} ${item.dataset.kind}`.toLowerCase();
    const match = words.every((word) => text.includes(word));
    item.parentElement.hidden = !match;
    if (!match) continue;
    const inName = words.filter((word) => name.includes(word)).length;
    const startsName = words.some((word) => name.startsWith(word)) ? 1 : 0;
    ranked.push({ item, index, score: inName * 2 + startsName });
  }
  ranked.sort((a, b) => b.score - a.score || a.index - b.index);
  palette.append(...ranked.map(({ item }) => item.parentElement),
    ...paletteItems.filter((item) => item.parentElement.hidden).map((item) => item.parentElement));
  return ranked.map(({ item }) => item);
}
paletteSearch.addEventListener("input", () => {
  const kindsFound = paletteMatches().length;
  const actionsFound = appActionMatches(paletteSearch.value).length;
  $("palette-none").hidden = kindsFound + actionsFound > 0;
});
paletteSearch.addEventListener("keydown", (event) => {
  if (event.key !== "Enter") return;
  event.preventDefault();
  const [first] = paletteMatches();
  if (first) addFromPalette(first.dataset.kind);
  else {
    const [action] = appActionMatches(paletteSearch.value);
    if (action) addAppAction(action);
  }
});

/** Add an app's action: an app_action node with its app and operation set,
 * named after the operation's summary, with the credential named for the app
 * when the workspace has exactly one (flows/app_actions/catalogue.py). */
function addAppAction(button) {
  const kind = kindOf(kinds, "app_action");
  const data = {
    ...defaultData(kind), app: button.dataset.appAction, operation: button.dataset.operation,
    credential_id: button.closest(".palette-app").dataset.credential || null,
  };
  addFromPalette("app_action", { data, name: button.textContent.trim() });
}
$("palette-apps").addEventListener("click", (event) => {
  const button = event.target.closest("[data-app-action]");
  if (button) addAppAction(button);
});
palette.addEventListener("click", (event) => {
  const item = event.target.closest("[data-kind]");
  if (item) addFromPalette(item.dataset.kind);
});
palette.addEventListener("dragstart", (event) => {
  const item = event.target.closest("[data-kind]");
  if (!item) return;
  event.dataTransfer.setData("application/x-weir-kind", item.dataset.kind);
  event.dataTransfer.effectAllowed = "copy";
});
container.addEventListener("dragover", (event) => {
  if (event.dataTransfer.types.includes("application/x-weir-kind")) event.preventDefault();
});
container.addEventListener("drop", (event) => {
  const type = event.dataTransfer.getData("application/x-weir-kind");
  if (!type || !kinds[type]) return;
  event.preventDefault();
  const point = canvasPoint(event.clientX, event.clientY);
  addNode(type, { x: point.x - 90, y: point.y - 30 }, { exact: true });
});
