// The one place that translates between the graph format of docs/api.md
//   nodes [{id, type, name, position: {x, y}, data}], edges [{id, source, target, sourceHandle}]
// and Drawflow's export format
//   {drawflow: {Home: {data: {"<dfId>": {id, name, data, class, html, inputs, outputs, pos_x, pos_y}}}}}.
//
// Drawflow numbers its nodes itself. The flow's own node (a "record": {id, type,
// name, data}) is kept beside the editor in a Map keyed by Drawflow id, so ids
// survive a round trip. Drawflow's own per-node `data` stays empty on purpose:
// Drawflow builds CSS selectors from its keys, and user keys (a transform's
// value names) would break those selectors.
// Output ports are numbered: handle k of a kind (its `output_handles`) is
// Drawflow's `output_<k+1>`, so a condition's "true" is output_1 and "false" output_2.
// Drawflow sets node HTML with innerHTML: nodeHtml() escapes every user value.

const MODULE = "Home";

export function escapeHtml(value) {
  return String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export function kindOf(kinds, type) {
  return kinds[type] || { type, label: type, output_handles: [null], is_trigger: false };
}

/** A CSS class for a node type; types are validated server-side, this is belt and braces. */
export function kindClass(type) {
  return "kind-" + String(type).replace(/[^a-z0-9_]/gi, "");
}

/**
 * The node's output handles: its kind's, then "error" when the node enables its
 * error output (docs/engine.md): that port is the last one, drawn red.
 */
export function handlesOf(kind, record) {
  const own = ownHandles(kind, record);
  return record?.error_output === true ? [...own, "error"] : own;
}

/**
 * A kind's handles for this node: `output_handles`, or for a kind whose handles
 * come from its data (a switch: `handles_from: "cases"`), one per case, then
 * "default" (flows.nodes.NodeKind.handles).
 */
function ownHandles(kind, record) {
  if (kind.handles_from !== "cases") return kind.output_handles;
  const cases = Array.isArray(record?.data?.cases) ? record.data.cases : [];
  return [...cases.map((item) => String(item?.handle ?? "")), ...kind.output_handles];
}

/** The node's inner HTML on the canvas, built only from escaped values. */
export function nodeHtml(record, kind) {
  const name = record.name || kind.label;
  const handles = ownHandles(kind, record)
    .filter((handle) => handle !== null)
    .map((handle) => `<span>${escapeHtml(handle)}</span>`)
    .join("");
  // An app's action shows the app's icon and name instead of the kind's.
  const app = record.type === "app_action" ? kind.apps?.[record.data?.app] : null;
  const badge = app?.icon
    ? `<img class="app-icon" src="${escapeHtml(app.icon)}" alt="" width="14" height="14">`
    : `<span class="kind-dot"></span>`;
  return (
    `<div class="node-card">` +
    `<div class="node-kind">${badge}${escapeHtml(app ? app.name : kind.label)}</div>` +
    `<div class="node-name">${escapeHtml(name)}</div>` +
    (app?.kinds?.length && !record.data?.credential_id
      ? `<div class="node-needs">Pick a ${escapeHtml(app.name)} credential</div>`
      : "") +
    `<div class="node-run" aria-live="polite"></div>` +
    (handles ? `<div class="node-handles">${handles}</div>` : "") +
    `</div>`
  );
}

function portsFor(kind, record) {
  const inputs = kind.is_trigger ? {} : { input_1: { connections: [] } };
  const outputs = {};
  handlesOf(kind, record).forEach((handle, index) => {
    outputs[`output_${index + 1}`] = { connections: [] };
  });
  return { inputs, outputs };
}

/** A new Drawflow node entry (used by import and by "add node"). */
export function drawflowNode(dfId, record, kind, position) {
  const { inputs, outputs } = portsFor(kind, record);
  return {
    id: Number(dfId),
    name: kindClass(record.type),
    data: {},
    class: kindClass(record.type) + (record.error_output === true ? " with-error-output" : ""),
    html: nodeHtml(record, kind),
    typenode: false,
    inputs,
    outputs,
    pos_x: position.x,
    pos_y: position.y,
  };
}

/**
 * API graph (docs/api.md) -> {importData for editor.import(), records: Map(dfId -> record)}.
 * Drawflow ids are "1".."n" in node order.
 */
/** Node-level settings beside `data` (docs/api.md), kept as the API gave them. */
export const NODE_SETTINGS = ["wait", "retry", "error_output"];

export function settingsOf(node) {
  const settings = {};
  for (const key of NODE_SETTINGS) {
    if (node[key] !== undefined && node[key] !== null) settings[key] = structuredClone(node[key]);
  }
  return settings;
}

export function graphToDrawflow(graph, kinds) {
  const data = {};
  const records = new Map();
  const dfIdOf = new Map();
  graph.nodes.forEach((node, index) => dfIdOf.set(node.id, String(index + 1)));
  graph.nodes.forEach((node, index) => {
    const record = {
      id: node.id,
      type: node.type,
      name: node.name ?? "",
      data: node.data ?? {},
      ...settingsOf(node),
    };
    const position = node.position || { x: 40 + index * 240, y: 80 };
    const dfId = dfIdOf.get(node.id);
    records.set(dfId, record);
    data[dfId] = drawflowNode(dfId, record, kindOf(kinds, node.type), position);
  });
  for (const edge of graph.edges) {
    const source = dfIdOf.get(edge.source);
    const target = dfIdOf.get(edge.target);
    if (!source || !target) continue;
    const kind = kindOf(kinds, records.get(source).type);
    const portIndex = handlesOf(kind, records.get(source)).indexOf(edge.sourceHandle ?? null);
    const output = `output_${portIndex + 1}`;
    if (portIndex < 0 || !data[target].inputs.input_1) continue;
    data[source].outputs[output].connections.push({ node: target, output: "input_1" });
    data[target].inputs.input_1.connections.push({ node: source, input: output });
  }
  return { importData: { drawflow: { [MODULE]: { data } } }, records };
}

/**
 * Drawflow export -> API graph (docs/api.md). Edge ids are kept when the same
 * (source, handle, target) existed in `previousEdges`; new edges get fresh ids.
 * Also returns `nodeDfIds[i]` (the Drawflow id of nodes[i]) and `edgeDfIds[i]`
 * ([source dfId, target dfId] of edges[i]) so API errors by index can be
 * pointed at on the canvas.
 */
export function drawflowToGraph(exported, records, kinds, previousEdges = []) {
  const data = exported.drawflow[MODULE].data;
  const entries = Object.values(data).sort((a, b) => Number(a.id) - Number(b.id));
  const nodes = [];
  const nodeDfIds = [];
  for (const entry of entries) {
    const record = records.get(String(entry.id));
    nodes.push({
      id: record.id,
      type: record.type,
      name: record.name,
      position: { x: Math.round(entry.pos_x), y: Math.round(entry.pos_y) },
      data: record.data,
      ...settingsOf(record),
    });
    nodeDfIds.push(String(entry.id));
  }

  const previousIds = new Map();
  for (const edge of previousEdges) {
    previousIds.set(`${edge.source}|${edge.sourceHandle ?? ""}|${edge.target}`, edge.id);
  }
  const usedIds = new Set();
  const pending = [];
  for (const entry of entries) {
    const source = records.get(String(entry.id));
    const kind = kindOf(kinds, source.type);
    for (const [output, port] of Object.entries(entry.outputs)) {
      const handle = handlesOf(kind, source)[Number(output.split("_")[1]) - 1] ?? null;
      for (const connection of port.connections) {
        const target = records.get(String(connection.node));
        if (!target) continue;
        const edge = { id: null, source: source.id, target: target.id, sourceHandle: handle };
        const key = `${edge.source}|${handle ?? ""}|${edge.target}`;
        const previous = previousIds.get(key);
        if (previous && !usedIds.has(previous)) {
          edge.id = previous;
          usedIds.add(previous);
        }
        pending.push({ edge, dfIds: [String(entry.id), String(connection.node)] });
      }
    }
  }
  let counter = 1;
  for (const item of pending) {
    if (item.edge.id) continue;
    while (usedIds.has(`e${counter}`)) counter += 1;
    item.edge.id = `e${counter}`;
    usedIds.add(item.edge.id);
  }
  return {
    graph: { nodes, edges: pending.map((item) => item.edge) },
    nodeDfIds,
    edgeDfIds: pending.map((item) => item.dfIds),
  };
}

/** A node id not used yet in the flow, readable: "code_1", "code_2", ... */
export function freshNodeId(type, existingIds) {
  const base = String(type).replace(/[^a-z0-9_]/gi, "") || "node";
  let counter = 1;
  while (existingIds.has(`${base}_${counter}`)) counter += 1;
  return `${base}_${counter}`;
}
