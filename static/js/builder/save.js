// Saving the graph (PATCH with If-Match), and showing what went wrong:
// validation errors on the canvas and inspector, a 412 conflict, other failures.
import { api } from "../api.js";
import {
  container, currentGraph, emit, flow, isDirty, markChanged, nodeElement, records, renderSaveState, state,
} from "./context.js";
import { $, h, showText } from "./dom.js";
import { markStepSaved } from "./undo.js";
import { openVersion } from "./versions.js";

export function showBanner(kind, message, items = [], actions = []) {
  const banner = $("banner");
  banner.className = `banner ${kind}`;
  $("banner-text").textContent = message;
  $("banner-list").replaceChildren(...items.map((item) => h("li", { text: item })));
  $("banner-actions").replaceChildren(...actions);
  banner.hidden = false;
}

export function hideBanner() {
  $("banner").hidden = true;
}

export function clearValidationErrors() {
  state.nodeErrors.clear();
  container.querySelectorAll(".has-error").forEach((element) => element.classList.remove("has-error"));
  container.querySelectorAll(".connection.edge-error").forEach((element) => element.classList.remove("edge-error"));
  showText(document.querySelector('[data-error-for="name"]'), "");
}

/**
 * `message` with the node ids the API quotes ('greet') or lists ("...through
 * nodes: a, b.") replaced by the nodes' names, which is what the user sees.
 */
export function byName(message) {
  const names = new Map([...records.values()].map((record) => [record.id, record.name || record.id]));
  const named = (id) => (names.has(id) ? `“${names.get(id)}”` : null);
  let text = message.replace(/'([^']+)'/g, (match, id) => named(id) || match);
  const list = text.match(/^(.*nodes: )(.+)\.$/);
  if (list) text = list[1] + list[2].split(", ").map((id) => named(id) || id).join(", ") + ".";
  return text;
}

export function showValidationErrors(error, mapping) {
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
      items.push(`Connection ${source} → ${target}: ${byName(problem.message)}`);
      container.querySelector(`.connection.node_out_node-${pair[0]}.node_in_node-${pair[1]}`)?.classList.add("edge-error");
    } else {
      items.push(byName(problem.message));
    }
  }
  for (const problem of details.graph || []) items.push(byName(problem.message));
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
  if (first) emit("select-node", first);
  else emit("refresh-inspector");
}

export function showConflict(error) {
  const reload = h("button", { type: "button", class: "primary small", text: "Reload the latest version", onclick: () => {
    state.savedCounter = state.changeCounter; // the user chose to drop their edits
    window.location.reload();
  } });
  const dismiss = h("button", { type: "button", class: "small", text: "Keep editing", onclick: hideBanner });
  const newer = error.details?.current_version;
  const changes = error.details?.diff_url
    ? h("button", { type: "button", class: "small", id: "conflict-diff", text: "See what changed", onclick: () => openVersion(newer) })
    : null;
  showBanner(
    "warning",
    "Someone else saved this flow after you opened it, so your changes were not saved. " +
      "Reload to see their version (your unsaved changes will be lost).",
    error.message ? [error.message] : [],
    [reload, changes, dismiss].filter(Boolean),
  );
}

export const nameInput = $("flow-name");
nameInput.addEventListener("input", () => {
  showText(document.querySelector('[data-error-for="name"]'), "");
  markChanged({ graph: false });
});

export async function save() {
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
    if (!isDirty()) markStepSaved();
    document.title = `${updated.name} · Weir`;
    clearValidationErrors();
    if (updated.warnings?.length) showBanner("warning", "Saved, but check:", updated.warnings);
    else hideBanner();
    if (state.selected) emit("refresh-inspector");
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
export async function adoptVersionIfGraphUnchanged(serverFlow) {
  const latest = serverFlow || (await api("GET", `/api/flows/${flow.id}`));
  const graphJson = JSON.stringify({ name: latest.name, nodes: latest.nodes, edges: latest.edges });
  if (graphJson === state.savedGraphJson) state.version = latest.version;
  return latest;
}
