// The flow builder: Drawflow canvas, palette, inspector, save, run and history.
// Everything the user typed reaches the DOM through textContent, or through
// graph_format.nodeHtml() (escaped) for Drawflow's innerHTML.
import { api } from "./api.js";
import {
  drawflowNode,
  drawflowToGraph,
  freshNodeId,
  graphToDrawflow,
  kindClass,
  kindOf,
  nodeHtml,
} from "./graph_format.js";
import { DEFAULT_DATA, fieldsFor } from "./node_forms.js";

const flow = JSON.parse(document.getElementById("flow-data").textContent);
const kinds = Object.fromEntries(
  JSON.parse(document.getElementById("node-kinds").textContent).map((kind) => [kind.type, kind]),
);
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- small DOM helpers

function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function showText(element, message) {
  element.textContent = message || "";
  element.hidden = !message;
}

function prettyJson(value) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch (error) {
    return String(value);
  }
}

function formatDuration(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

function formatTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  const today = date.toDateString() === new Date().toDateString();
  const options = today
    ? { hour: "2-digit", minute: "2-digit", second: "2-digit" }
    : { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
  return date.toLocaleString(undefined, options);
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (error) {
    const scratch = h("textarea", { class: "visually-hidden" });
    scratch.value = text;
    document.body.append(scratch);
    scratch.select();
    document.execCommand("copy");
    scratch.remove();
  }
  const label = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = label; }, 1500);
}

// ---------------------------------------------------------------- the editor

const container = $("drawflow");
const editor = new window.Drawflow(container);
editor.start();
const { importData, records } = graphToDrawflow(flow, kinds);
editor.import(importData);

const state = {
  version: flow.version,
  changeCounter: 0,
  savedCounter: 0,
  saving: false,
  savedEdges: flow.edges,
  savedGraphJson: JSON.stringify({ name: flow.name, nodes: flow.nodes, edges: flow.edges }),
  selected: null,
  nodeErrors: new Map(), // dfId -> [{field, message}]
  lastSteps: null,
};

function isDirty() {
  return state.changeCounter !== state.savedCounter;
}

function nodeElement(dfId) {
  return document.getElementById(`node-${dfId}`);
}

function dfIdOfNode(nodeId) {
  for (const [dfId, record] of records) if (record.id === nodeId) return dfId;
  return null;
}

function currentGraph() {
  return drawflowToGraph(editor.export(), records, kinds, state.savedEdges);
}

function refreshEmptyHint() {
  $("canvas-empty").hidden = records.size > 0;
}

// ---------------------------------------------------------------- unsaved changes

const saveState = $("save-state");

function markChanged() {
  state.changeCounter += 1;
  renderSaveState();
}

function renderSaveState(text) {
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

// ---------------------------------------------------------------- palette

/** Where a clicked palette item lands: right of the selected node, else top left of the view. */
function placeForNewNode() {
  const selected = state.selected && editor.drawflow.drawflow.Home.data[state.selected];
  if (selected) {
    const right = { x: selected.pos_x + 240, y: selected.pos_y };
    const screenRight = editor.precanvas.getBoundingClientRect().left + (right.x + 180) * editor.zoom;
    const fits = screenRight <= container.getBoundingClientRect().right;
    return fits ? right : { x: selected.pos_x, y: selected.pos_y + 120 };
  }
  const rect = container.getBoundingClientRect();
  return canvasPoint(rect.left + 60, rect.top + 80);
}

/** Screen coordinates -> canvas coordinates (undoing pan and zoom). */
function canvasPoint(clientX, clientY) {
  const rect = editor.precanvas.getBoundingClientRect();
  return { x: (clientX - rect.left) / editor.zoom, y: (clientY - rect.top) / editor.zoom };
}

/** Nearest spot at or right of `position` where a new node does not cover another. */
function freeSpot(position) {
  const taken = Object.values(editor.drawflow.drawflow.Home.data).map((entry) => [entry.pos_x, entry.pos_y]);
  let { x, y } = position;
  for (let attempt = 0; attempt < 40; attempt += 1) {
    if (!taken.some(([left, top]) => Math.abs(left - x) < 210 && Math.abs(top - y) < 90)) break;
    x += 240;
    if (attempt % 4 === 3) { x = position.x; y += 110; }
  }
  return { x: Math.round(x), y: Math.round(y) };
}

function addNode(type, position, { exact = false } = {}) {
  const kind = kindOf(kinds, type);
  const existing = new Set([...records.values()].map((record) => record.id));
  const record = {
    id: freshNodeId(type, existing),
    type,
    name: kind.label,
    data: (DEFAULT_DATA[type] || (() => ({})))(),
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
  selectNode(dfId);
  return dfId;
}

const palette = $("palette");
palette.addEventListener("click", (event) => {
  const item = event.target.closest("[data-kind]");
  if (item) addNode(item.dataset.kind, placeForNewNode());
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

// ---------------------------------------------------------------- selection and inspector

const inspector = $("inspector");

function selectNode(dfId, { fromCanvas = false } = {}) {
  state.selected = dfId && records.has(dfId) ? dfId : null;
  if (!fromCanvas) {
    // Mirror Drawflow's own selection so Delete and the canvas agree with us.
    container.querySelectorAll(".drawflow-node.selected").forEach((node) => node.classList.remove("selected"));
    editor.node_selected = null;
    if (state.selected) {
      const element = nodeElement(state.selected);
      element.classList.add("selected");
      editor.node_selected = element;
    }
  }
  renderInspector();
  if (state.selected) showTab("inspector");
}

function setPath(record, path, value) {
  if (path === "name") {
    record.name = value;
    return;
  }
  const key = path.slice("data.".length);
  if (path === "data") record.data = value;
  else record.data = { ...record.data, [key]: value };
}

function getPath(record, path) {
  if (path === "name") return record.name;
  if (path === "data") return record.data;
  return record.data?.[path.slice("data.".length)];
}

function refreshNodeHtml(dfId) {
  const record = records.get(dfId);
  const element = nodeElement(dfId);
  if (!record || !element) return;
  const title = element.querySelector(".node-name");
  if (title) title.textContent = record.name || kindOf(kinds, record.type).label;
  // Keep Drawflow's copy of the HTML in step, escaped, for its own re-renders.
  editor.drawflow.drawflow.Home.data[dfId].html = nodeHtml(record, kindOf(kinds, record.type));
}

function clearFieldErrors(dfId, path) {
  const errors = state.nodeErrors.get(dfId);
  if (!errors) return;
  const remaining = errors.filter((error) => !(error.field === path || error.field.startsWith(path + ".")));
  if (remaining.length) state.nodeErrors.set(dfId, remaining);
  else {
    state.nodeErrors.delete(dfId);
    nodeElement(dfId)?.classList.remove("has-error");
  }
}

function onFieldChange(dfId, path, value, wrapper) {
  const record = records.get(dfId);
  if (!record) return;
  setPath(record, path, value);
  if (path === "name") refreshNodeHtml(dfId);
  clearFieldErrors(dfId, path);
  const errorBox = wrapper?.querySelector(".field-error");
  if (errorBox) showText(errorBox, "");
  wrapper?.classList.remove("invalid");
  markChanged();
}

function codeEditor(value, onInput) {
  const gutter = h("pre", { class: "gutter", "aria-hidden": "true" });
  const textarea = h("textarea", { class: "code-input mono", spellcheck: "false", rows: "14", wrap: "off" });
  textarea.value = value ?? "";
  const renumber = () => {
    const lines = textarea.value.split("\n").length;
    gutter.textContent = Array.from({ length: lines }, (_, index) => index + 1).join("\n");
  };
  textarea.addEventListener("input", () => { renumber(); onInput(textarea.value); });
  textarea.addEventListener("scroll", () => { gutter.scrollTop = textarea.scrollTop; });
  textarea.addEventListener("keydown", (event) => {
    const { selectionStart: start, selectionEnd: end, value: text } = textarea;
    if (event.key === "Tab") {
      event.preventDefault();
      const lineStart = text.lastIndexOf("\n", start - 1) + 1;
      if (event.shiftKey) {
        const remove = text.slice(lineStart, lineStart + 2).match(/^ {0,2}/)[0].length;
        textarea.setRangeText("", lineStart, lineStart + remove, "end");
        textarea.selectionStart = textarea.selectionEnd = Math.max(lineStart, start - remove);
      } else {
        textarea.setRangeText("  ", start, end, "end");
      }
      textarea.dispatchEvent(new Event("input"));
    } else if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
      const lineStart = text.lastIndexOf("\n", start - 1) + 1;
      const indent = text.slice(lineStart, start).match(/^[ \t]*/)[0];
      if (indent) {
        event.preventDefault();
        textarea.setRangeText("\n" + indent, start, end, "end");
        textarea.dispatchEvent(new Event("input"));
      }
    }
  });
  renumber();
  return { element: h("div", { class: "code-editor" }, gutter, textarea), input: textarea };
}

function keyValueEditor(value, onChange) {
  const rows = h("div", { class: "kv-rows" });
  const emit = () => {
    const result = {};
    rows.querySelectorAll(".kv-row").forEach((row) => {
      const [keyInput, valueInput] = row.querySelectorAll("input");
      if (keyInput.value.trim()) result[keyInput.value.trim()] = valueInput.value;
    });
    onChange(result);
  };
  const addRow = (key = "", text = "") => {
    const keyInput = h("input", { class: "mono", placeholder: "key", "aria-label": "Key", oninput: emit });
    const valueInput = h("input", { class: "mono", placeholder: "value", "aria-label": "Value", oninput: emit });
    keyInput.value = key;
    valueInput.value = typeof text === "string" ? text : JSON.stringify(text);
    const remove = h("button", {
      type: "button", class: "small icon", "aria-label": "Remove row", text: "×",
      onclick: () => { row.remove(); emit(); },
    });
    const row = h("div", { class: "kv-row" }, keyInput, valueInput, remove);
    rows.append(row);
    return keyInput;
  };
  for (const [key, text] of Object.entries(value || {})) addRow(key, text);
  const add = h("button", { type: "button", class: "small", text: "Add row", onclick: () => addRow().focus() });
  return { element: h("div", { class: "kv" }, rows, add), input: rows };
}

let agentsCache = null;
async function loadAgents() {
  if (!agentsCache) {
    agentsCache = api("GET", "/api/agents").then((list) => (Array.isArray(list) ? list : list.results || []));
  }
  return agentsCache;
}

function fieldWidget(field, value, onChange, wrapper) {
  switch (field.widget) {
    case "code":
      return codeEditor(value, onChange);
    case "textarea": {
      const input = h("textarea", { rows: "4", oninput: () => onChange(input.value) });
      input.value = value ?? "";
      return { element: input, input };
    }
    case "number": {
      const input = h("input", { type: "number", min: field.min, max: field.max, oninput: () => {
        const number = Number(input.value);
        onChange(input.value === "" ? null : Number.isFinite(number) ? number : input.value);
      } });
      input.value = value ?? "";
      return { element: input, input };
    }
    case "number-or-template": {
      // A number, or a {{ }} template that must render to one at run time.
      const input = h("input", { type: "text", inputmode: "numeric", class: "mono", oninput: () => {
        const text = input.value.trim();
        onChange(text === "" ? null : /^\d+$/.test(text) ? Number(text) : text);
      } });
      input.value = value ?? "";
      return { element: input, input };
    }
    case "select": {
      const options = [...field.options];
      if (value && !options.includes(value)) options.push(value);
      const input = h("select", { onchange: () => onChange(input.value) },
        options.map((option) => h("option", { value: option, text: option })));
      input.value = value ?? options[0];
      return { element: input, input };
    }
    case "keyvalue":
      return keyValueEditor(value, onChange);
    case "json":
    case "json-object": {
      const input = h("textarea", { class: "code-input mono", rows: "5", spellcheck: "false" });
      if (field.widget === "json") input.value = typeof value === "string" ? value : value == null ? "" : prettyJson(value);
      else input.value = prettyJson(value ?? {});
      input.addEventListener("input", () => {
        if (field.widget === "json" && !input.value.trim()) {
          onChange(null);
          return;
        }
        let parsed;
        try {
          parsed = JSON.parse(input.value);
        } catch (error) {
          if (field.widget === "json") onChange(input.value);
          else showText(wrapper.querySelector(".field-error"), "Not valid JSON yet.");
          return;
        }
        if (field.widget === "json-object" && (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))) {
          showText(wrapper.querySelector(".field-error"), "Must be a JSON object.");
          return;
        }
        onChange(parsed);
      });
      return { element: input, input };
    }
    case "agent": {
      const input = h("select", { onchange: () => onChange(input.value) },
        h("option", { value: "", text: "Choose an agent…" }));
      if (value) input.append(h("option", { value, text: value }));
      input.value = value ?? "";
      loadAgents().then((agents) => {
        input.replaceChildren(h("option", { value: "", text: agents.length ? "Choose an agent…" : "No agents yet (an admin adds them)" }));
        for (const agent of agents) input.append(h("option", { value: agent.id, text: `${agent.name} (${agent.model})` }));
        if (value && !agents.some((agent) => agent.id === value)) input.append(h("option", { value, text: `${value} (unknown)` }));
        input.value = value ?? "";
      }).catch(() => {});
      return { element: input, input };
    }
    default: {
      const input = h("input", { class: field.mono ? "mono" : "", oninput: () => onChange(input.value) });
      input.value = value ?? "";
      return { element: input, input };
    }
  }
}

function renderInspector() {
  const dfId = state.selected;
  $("inspector-empty").hidden = Boolean(dfId);
  inspector.hidden = !dfId;
  inspector.replaceChildren();
  if (!dfId) return;
  const record = records.get(dfId);
  const kind = kindOf(kinds, record.type);
  const errors = state.nodeErrors.get(dfId) || [];
  const fields = [{ path: "name", label: "Node name", widget: "text" }, ...fieldsFor(record.type)];
  const placed = new Set();

  inspector.append(
    h("div", { class: `inspector-head ${kindClass(record.type)}` },
      h("span", { class: "kind-dot", "aria-hidden": "true" }),
      h("div", {},
        h("div", { class: "inspector-kind", text: kind.label }),
        h("div", { class: "muted small-text" }, "id ", h("code", { class: "node-id", text: record.id })),
      ),
    ),
    h("p", { class: "muted small-text", text: kind.description }),
  );

  const general = h("ul", { class: "field-error-list", role: "alert" });
  inspector.append(general);

  fields.forEach((field, index) => {
    const inputId = `field-${index}`;
    const wrapper = h("div", { class: "field", "data-field": field.path });
    const errorBox = h("p", { class: "field-error", role: "alert", hidden: true });
    const widget = fieldWidget(field, getPath(record, field.path), (value) => onFieldChange(dfId, field.path, value, wrapper), wrapper);
    widget.input.id = inputId;
    wrapper.append(h("label", { class: "field-label", for: inputId, text: field.label }), widget.element, errorBox);
    if (field.help) wrapper.append(h("p", { class: "hint", text: field.help }));
    const mine = errors.filter((error) => error.field === field.path || error.field.startsWith(field.path + "."));
    if (mine.length) {
      mine.forEach((error) => placed.add(error));
      wrapper.classList.add("invalid");
      showText(errorBox, mine.map((error) => error.message).join(" "));
    }
    inspector.append(wrapper);
  });

  for (const error of errors) {
    if (placed.has(error)) continue;
    general.append(h("li", { text: error.field ? `${error.field}: ${error.message}` : error.message }));
  }
  general.hidden = !general.children.length;
  inspector.append(
    h("div", { class: "inspector-foot" },
      h("button", { type: "button", class: "small danger", text: "Delete node", onclick: () => editor.removeNodeId(`node-${dfId}`) }),
    ),
  );
}

// ---------------------------------------------------------------- banner (errors, conflicts)

function showBanner(kind, message, items = [], actions = []) {
  const banner = $("banner");
  banner.className = `banner ${kind}`;
  $("banner-text").textContent = message;
  $("banner-list").replaceChildren(...items.map((item) => h("li", { text: item })));
  $("banner-actions").replaceChildren(...actions);
  banner.hidden = false;
}

function hideBanner() {
  $("banner").hidden = true;
}

function clearValidationErrors() {
  state.nodeErrors.clear();
  container.querySelectorAll(".has-error").forEach((element) => element.classList.remove("has-error"));
  container.querySelectorAll(".connection.edge-error").forEach((element) => element.classList.remove("edge-error"));
  showText(document.querySelector('[data-error-for="name"]'), "");
}

function showValidationErrors(error, mapping) {
  clearValidationErrors();
  const details = error.details || {};
  const items = [];
  for (const problem of details.nodes || []) {
    const dfId = mapping.nodeDfIds[problem.index];
    if (!dfId) continue;
    const list = state.nodeErrors.get(dfId) || [];
    list.push({ field: problem.field || "", message: problem.message });
    state.nodeErrors.set(dfId, list);
    nodeElement(dfId)?.classList.add("has-error");
  }
  for (const problem of details.edges || []) {
    const pair = mapping.edgeDfIds[problem.index];
    if (pair) {
      const [source, target] = pair.map((dfId) => records.get(dfId)?.name || dfId);
      items.push(`Connection ${source} → ${target}: ${problem.message}`);
      container.querySelector(`.connection.node_out_node-${pair[0]}.node_in_node-${pair[1]}`)?.classList.add("edge-error");
    } else {
      items.push(problem.message);
    }
  }
  for (const problem of details.graph || []) items.push(problem.message);
  for (const [field, messages] of Object.entries(details)) {
    if (["nodes", "edges", "graph"].includes(field)) continue;
    const text = Array.isArray(messages) ? messages.join(" ") : String(messages);
    if (field === "name") showText(document.querySelector('[data-error-for="name"]'), text);
    else items.push(`${field}: ${text}`);
  }
  for (const [dfId, problems] of state.nodeErrors) {
    const name = records.get(dfId)?.name || records.get(dfId)?.id;
    for (const problem of problems) items.push(`${name}: ${problem.message}`);
  }
  showBanner("error", "Not saved: fix the problems marked on the canvas.", items);
  const first = state.nodeErrors.keys().next().value;
  if (first) selectNode(first);
  else renderInspector();
}

function showConflict(error) {
  const reload = h("button", { type: "button", class: "primary small", text: "Reload the latest version", onclick: () => {
    state.savedCounter = state.changeCounter; // the user chose to drop their edits
    window.location.reload();
  } });
  const dismiss = h("button", { type: "button", class: "small", text: "Keep editing", onclick: hideBanner });
  showBanner(
    "warning",
    "Someone else saved this flow after you opened it, so your changes were not saved. " +
      "Reload to see their version (your unsaved changes will be lost).",
    error.message ? [error.message] : [],
    [reload, dismiss],
  );
}

// ---------------------------------------------------------------- save

const nameInput = $("flow-name");
nameInput.addEventListener("input", () => {
  showText(document.querySelector('[data-error-for="name"]'), "");
  markChanged();
});

async function save() {
  if (state.saving) return false;
  const name = nameInput.value.trim();
  if (!name) {
    showText(document.querySelector('[data-error-for="name"]'), "A flow needs a name.");
    nameInput.focus();
    return false;
  }
  const mapping = currentGraph();
  const counterAtStart = state.changeCounter;
  state.saving = true;
  $("save-button").disabled = true;
  renderSaveState("Saving…");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`,
      { name, nodes: mapping.graph.nodes, edges: mapping.graph.edges },
      { "If-Match": `"${state.version}"` });
    state.version = updated.version;
    state.savedEdges = updated.edges;
    state.savedGraphJson = JSON.stringify({ name: updated.name, nodes: updated.nodes, edges: updated.edges });
    state.savedCounter = counterAtStart;
    document.title = `${updated.name} · Weir`;
    clearValidationErrors();
    hideBanner();
    if (state.selected) renderInspector();
    renderSaveState(isDirty() ? undefined : "Saved");
    return true;
  } catch (error) {
    if (error.status === 412) showConflict(error);
    else if (error.status === 400 && error.code === "validation_error") showValidationErrors(error, mapping);
    else showBanner("error", `Not saved: ${error.message}`);
    renderSaveState();
    return false;
  } finally {
    state.saving = false;
    $("save-button").disabled = false;
  }
}

$("save-button").addEventListener("click", save);

/**
 * A webhook setting changed on the server and bumped the flow's version. Adopt
 * the new version only when the graph there is still what we last saved, so a
 * genuine edit by someone else still surfaces as a conflict on the next save.
 */
async function adoptVersionIfGraphUnchanged(serverFlow) {
  const latest = serverFlow || (await api("GET", `/api/flows/${flow.id}`));
  const graphJson = JSON.stringify({ name: latest.name, nodes: latest.nodes, edges: latest.edges });
  if (graphJson === state.savedGraphJson) state.version = latest.version;
  return latest;
}

// ---------------------------------------------------------------- zoom

/**
 * Zoom and pan so every node is in view (never zooming in past 100%).
 * Drawflow draws the canvas as translate(canvas_x, canvas_y) scale(zoom) around
 * the canvas centre, so a canvas point p lands at centre + (p - centre) * zoom + t.
 */
function fitView() {
  const entries = Object.values(editor.drawflow.drawflow.Home.data);
  if (!entries.length) return;
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const entry of entries) {
    const element = nodeElement(String(entry.id));
    minX = Math.min(minX, entry.pos_x);
    minY = Math.min(minY, entry.pos_y);
    maxX = Math.max(maxX, entry.pos_x + (element?.offsetWidth || 170));
    maxY = Math.max(maxY, entry.pos_y + (element?.offsetHeight || 60));
  }
  const width = container.clientWidth;
  const height = container.clientHeight;
  const pad = 40;
  const zoom = Math.max(editor.zoom_min, Math.min(1, (width - 2 * pad) / (maxX - minX), (height - 2 * pad) / (maxY - minY)));
  const centreX = editor.precanvas.clientWidth / 2;
  const centreY = editor.precanvas.clientHeight / 2;
  editor.zoom = zoom;
  editor.zoom_last_value = zoom;
  editor.canvas_x = pad - (centreX + (minX - centreX) * zoom);
  editor.canvas_y = pad - (centreY + (minY - centreY) * zoom);
  editor.precanvas.style.transform = `translate(${editor.canvas_x}px, ${editor.canvas_y}px) scale(${zoom})`;
  $("zoom-reset").textContent = `${Math.round(zoom * 100)}%`;
}

/** True when some node sits (partly) outside the visible canvas. */
function graphOverflowsView() {
  const view = container.getBoundingClientRect();
  return [...container.querySelectorAll(".drawflow-node")].some((element) => {
    const box = element.getBoundingClientRect();
    return box.left < view.left || box.top < view.top || box.right > view.right || box.bottom > view.bottom;
  });
}

$("zoom-fit").addEventListener("click", fitView);
$("zoom-in").addEventListener("click", () => editor.zoom_in());
$("zoom-out").addEventListener("click", () => editor.zoom_out());
$("zoom-reset").addEventListener("click", () => editor.zoom_reset());
editor.on("zoom", (level) => { $("zoom-reset").textContent = `${Math.round(level * 100)}%`; });

// ---------------------------------------------------------------- tabs

const TABS = ["inspector", "run", "history"];
function showTab(name) {
  for (const tab of TABS) {
    $(`tab-${tab}`).setAttribute("aria-selected", String(tab === name));
    $(`pane-${tab}`).hidden = tab !== name;
  }
  if (name === "history") loadHistory();
}
for (const tab of TABS) $(`tab-${tab}`).addEventListener("click", () => showTab(tab));

// ---------------------------------------------------------------- run results

const RUN_CLASSES = ["run-succeeded", "run-failed", "run-skipped", "run-pending", "run-running"];

function stepDuration(step) {
  return step.duration_ms ?? step.duration ?? null;
}

function paintCanvas(steps) {
  container.querySelectorAll(".drawflow-node").forEach((element) => {
    element.classList.remove(...RUN_CLASSES);
    const badge = element.querySelector(".node-run");
    if (badge) badge.textContent = "";
  });
  for (const step of steps) {
    const dfId = dfIdOfNode(step.node_id);
    const element = dfId && nodeElement(dfId);
    if (!element) continue;
    element.classList.add(`run-${step.status}`);
    const badge = element.querySelector(".node-run");
    if (badge) {
      const took = stepDuration(step);
      badge.textContent = step.status + (took !== null && step.status !== "skipped" ? ` · ${formatDuration(took)}` : "");
    }
  }
}

/** Steps from the run detail; without it, derived from the run result alone. */
function stepsOf(result, detail) {
  if (detail && Array.isArray(detail.steps)) return detail.steps;
  const steps = [];
  for (const [nodeId, output] of Object.entries(result.results || {})) {
    steps.push({ node_id: nodeId, status: "succeeded", output, logs: [], error: null });
  }
  if (result.error?.node_id) {
    steps.push({ node_id: result.error.node_id, status: "failed", output: null, logs: [], error: result.error });
  }
  return steps;
}

function errorText(error) {
  if (!error) return "";
  if (typeof error === "string") return error;
  return [error.code, error.message].filter(Boolean).join(": ");
}

function renderRun(target, run, steps) {
  const status = run.status || (run.success ? "succeeded" : "failed");
  const duration = run.duration ?? run.duration_ms;
  const runId = run.run_id || run.id;
  const summary = h("div", { class: "run-summary" },
    h("span", { class: `pill status-${status}`, "data-testid": "run-status", text: status.replace("_", " ") }),
    h("span", { class: "run-duration", text: `took ${formatDuration(duration)}` }),
    run.trigger ? h("span", { class: "muted", text: run.trigger }) : null,
    runId ? h("a", { href: `/runs/${runId}/`, class: "small-text", text: "Open run page" }) : null,
  );
  const children = [summary];
  if (run.error) {
    const failedName = records.get(dfIdOfNode(run.error.node_id))?.name || run.error.node_id;
    children.push(h("div", { class: "run-error", role: "alert" },
      h("strong", { text: failedName ? `${failedName} failed` : "The run failed" }),
      h("div", { text: errorText(run.error) })));
  }
  const list = h("ol", { class: "steps" });
  for (const step of steps) {
    const dfId = dfIdOfNode(step.node_id);
    const name = step.node_name || records.get(dfId)?.name || step.node_id;
    const item = h("li", { class: `step status-${step.status}`, "data-node-id": step.node_id });
    item.append(
      h("button", { type: "button", class: "step-head", title: "Show this node on the canvas", onclick: () => dfId && selectNode(dfId) },
        h("span", { class: "step-name", text: name }),
        h("span", { class: `pill status-${step.status}`, text: step.status }),
        h("span", { class: "muted", text: step.status === "skipped" ? "" : formatDuration(stepDuration(step)) })),
    );
    if (step.error) item.append(h("div", { class: "step-error", text: errorText(step.error) }));
    if (step.logs && step.logs.length) {
      item.append(h("div", { class: "step-label", text: "Logs" }),
        h("pre", { class: "step-logs", text: step.logs.map((line) => (typeof line === "string" ? line : prettyJson(line))).join("\n") }));
    }
    if (step.status === "succeeded" || step.output !== null && step.output !== undefined) {
      item.append(h("div", { class: "step-label", text: "Output" }), h("pre", { class: "step-output", text: prettyJson(step.output) }));
    }
    list.append(item);
  }
  if (run.response) {
    children.push(h("div", { class: "run-response" },
      h("div", { class: "step-label", text: `Webhook response · HTTP ${run.response.status}` }),
      h("pre", { class: "step-output", text: prettyJson(run.response.body) })));
  }
  if (!steps.length) children.push(h("p", { class: "muted", text: "No node ran." }));
  children.push(list);
  target.replaceChildren(...children);
  paintCanvas(steps);
}

// ---------------------------------------------------------------- run panel

const runInput = $("run-input");
const runButton = $("run-button");

function parseRunInput() {
  const text = runInput.value.trim();
  if (!text) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The input is not valid JSON: ${error.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("The input must be a JSON object, like {\"name\": \"Ada\"}.");
  }
  return value;
}

async function runFlow() {
  if (runButton.disabled) return;
  let input;
  try {
    input = parseRunInput();
  } catch (error) {
    showText($("run-input-error"), error.message);
    runInput.classList.add("invalid");
    return;
  }
  showText($("run-input-error"), "");
  runInput.classList.remove("invalid");
  showTab("run");
  const result = $("run-result");
  if (isDirty() && !(await save())) {
    result.replaceChildren(h("p", { class: "form-error", text: "The flow could not be saved, so it did not run. See the message above the canvas." }));
    return;
  }
  runButton.disabled = true;
  const started = performance.now();
  const progress = $("run-progress");
  progress.hidden = false;
  const ticker = setInterval(() => {
    $("run-progress-text").textContent = `Running… ${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  $("run-progress-text").textContent = "Running…";
  result.replaceChildren();
  container.querySelectorAll(".drawflow-node").forEach((element) => {
    element.classList.remove(...RUN_CLASSES);
    element.classList.add("run-running");
  });
  try {
    const outcome = await api("POST", `/api/flows/${flow.id}/run`, input);
    let detail = null;
    try {
      detail = await api("GET", `/api/runs/${outcome.run_id}`);
    } catch (error) {
      detail = null;
    }
    const extra = detail ? { trigger: detail.trigger, response: detail.response } : {};
    renderRun(result, { ...outcome, ...extra }, stepsOf(outcome, detail));
  } catch (error) {
    paintCanvas([]);
    result.replaceChildren(h("div", { class: "run-error", role: "alert" },
      h("strong", { text: "The run could not start" }), h("div", { text: error.message })));
  } finally {
    clearInterval(ticker);
    progress.hidden = true;
    runButton.disabled = false;
  }
}

runButton.addEventListener("click", runFlow);
runInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    runFlow();
  }
});

// ---------------------------------------------------------------- history

async function showHistoryRun(runId, row) {
  document.querySelectorAll("#history-rows tr").forEach((other) => other.classList.remove("current"));
  row?.classList.add("current");
  const target = $("history-detail");
  target.replaceChildren(h("p", { class: "muted", text: "Loading run…" }));
  try {
    const detail = await api("GET", `/api/runs/${runId}`);
    renderRun(target, detail, stepsOf(detail, detail));
  } catch (error) {
    target.replaceChildren(h("p", { class: "form-error", text: error.message }));
  }
}

async function loadHistory() {
  const rows = $("history-rows");
  showText($("history-error"), "");
  try {
    const page = await api("GET", `/api/flows/${flow.id}/runs`);
    const runs = Array.isArray(page) ? page : page.results || [];
    rows.replaceChildren(...runs.map((run) => {
      const status = run.status;
      const row = h("tr", { class: "history-row", tabindex: "0", "data-run-id": run.id },
        h("td", {}, h("time", { datetime: run.created_at, text: formatTime(run.created_at) })),
        h("td", { text: run.trigger }),
        h("td", {}, h("span", { class: `pill status-${status}`, text: String(status).replace("_", " ") })),
        h("td", { class: "num", text: formatDuration(run.duration ?? run.duration_ms) }));
      row.addEventListener("click", () => showHistoryRun(run.id, row));
      row.addEventListener("keydown", (event) => { if (event.key === "Enter") showHistoryRun(run.id, row); });
      return row;
    }));
    $("history-empty").hidden = runs.length > 0;
  } catch (error) {
    showText($("history-error"), error.message);
  }
}
$("history-refresh").addEventListener("click", loadHistory);

// ---------------------------------------------------------------- webhook settings

const webhookState = { enabled: flow.webhook_enabled, signed: flow.webhook_signed, secret: "" };

/**
 * A ready-to-paste example. For a signed flow it computes the Standard Webhooks
 * signature with openssl (HMAC-SHA256 of "id.timestamp.body" keyed with the
 * base64-decoded secret), filling in the secret when it was just created here.
 */
function renderCurl() {
  const url = flow.webhook_url;
  const lines = webhookState.signed
    ? [
      `SECRET='${webhookState.secret || "whsec_…"}'  # your signing secret`,
      `BODY='{"name": "Ada"}'`,
      `ID="msg_$(date +%s%N)"; TS=$(date +%s)`,
      `KEY=$(printf %s "\${SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \\n')`,
      `SIG=$(printf %s "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -binary | base64)`,
      `curl -X POST '${url}' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -H "webhook-id: $ID" -H "webhook-timestamp: $TS" \\`,
      `  -H "webhook-signature: v1,$SIG" -d "$BODY"`,
    ]
    : [
      `curl -X POST '${url}' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d '{"name": "Ada"}'`,
    ];
  $("webhook-curl").textContent = lines.join("\n");
}

function renderSigning() {
  const signing = $("signing-state");
  signing.textContent = webhookState.signed ? "Signed" : "Unsigned";
  signing.className = webhookState.signed ? "pill on" : "pill off";
  signing.title = webhookState.signed
    ? "Calls must carry a valid signature made with the secret."
    : "Anyone with the URL can call it. Add a secret to require signed calls.";
  $("secret-create").textContent = webhookState.signed ? "Rotate secret" : "Add secret";
  $("secret-remove").hidden = !webhookState.signed;
  $("webhook-section").classList.toggle("disabled", !webhookState.enabled);
  renderCurl();
}

$("webhook-enabled").addEventListener("change", async (event) => {
  const wanted = event.target.checked;
  showText($("webhook-error"), "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { webhook_enabled: wanted });
    webhookState.enabled = updated.webhook_enabled;
    await adoptVersionIfGraphUnchanged(updated);
  } catch (error) {
    event.target.checked = !wanted;
    showText($("webhook-error"), error.message);
  }
  renderSigning();
});

$("webhook-response-mode").addEventListener("change", async (event) => {
  const wanted = event.target.value;
  showText($("webhook-error"), "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { webhook_response_mode: wanted });
    event.target.value = updated.webhook_response_mode;
    await adoptVersionIfGraphUnchanged(updated);
  } catch (error) {
    event.target.value = wanted === "immediately" ? "completed" : "immediately";
    showText($("webhook-error"), error.message);
  }
});

$("secret-create").addEventListener("click", async () => {
  showText($("webhook-error"), "");
  if (webhookState.signed && !window.confirm("Rotate the signing secret? Senders using the old one will be refused.")) return;
  try {
    const created = await api("POST", `/api/flows/${flow.id}/webhook-secret`);
    webhookState.signed = true;
    webhookState.secret = created.secret;
    $("secret-value").value = created.secret;
    $("secret-once").hidden = false;
    await adoptVersionIfGraphUnchanged();
  } catch (error) {
    showText($("webhook-error"), error.message);
  }
  renderSigning();
});

$("secret-remove").addEventListener("click", async () => {
  showText($("webhook-error"), "");
  if (!window.confirm("Remove the signing secret? The webhook will accept unsigned calls.")) return;
  try {
    await api("DELETE", `/api/flows/${flow.id}/webhook-secret`);
    webhookState.signed = false;
    webhookState.secret = "";
    $("secret-once").hidden = true;
    $("secret-value").value = "";
    await adoptVersionIfGraphUnchanged();
  } catch (error) {
    showText($("webhook-error"), error.message);
  }
  renderSigning();
});

document.querySelectorAll("[data-copy]").forEach((button) => {
  button.addEventListener("click", () => {
    const source = $(button.dataset.copy);
    copyText(source.value ?? source.textContent, button);
  });
});

// ---------------------------------------------------------------- keyboard

function typingInField(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

// Capture phase, so Drawflow's own Delete handler never runs twice with ours.
window.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
    event.preventDefault();
    save();
    return;
  }
  const deleting = event.key === "Delete" || (event.key === "Backspace" && event.metaKey);
  if (!deleting || typingInField(event.target)) return;
  if (editor.node_selected) {
    event.preventDefault();
    event.stopPropagation();
    editor.removeNodeId(editor.node_selected.id);
  } else if (editor.connection_selected) {
    event.preventDefault();
    event.stopPropagation();
    editor.removeConnection();
    editor.connection_selected = null;
  }
}, true);

// ---------------------------------------------------------------- start

renderSigning();
refreshEmptyHint();
if (graphOverflowsView()) fitView();
renderSaveState();
document.body.dataset.builderReady = "true";
