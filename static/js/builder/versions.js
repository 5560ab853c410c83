// The Versions tab: the flow's saved versions, newest first; pick one to see
// what that save changed, on the canvas (added green, changed amber) and in a
// list (removed nodes in red: they are not on the canvas), and restore it.
import { api } from "../api.js";
import { dfIdOfNode, flow, isDirty, nodeElement, on, state } from "./context.js";
import { $, formatTime, h, showText } from "./dom.js";

const DIFF_CLASSES = ["diff-added", "diff-changed", "diff-moved"];
const view = { page: 1, selected: null };

export function clearDiff() {
  document.querySelectorAll(".drawflow-node").forEach((node) => node.classList.remove(...DIFF_CLASSES));
}

function paintDiff(diff) {
  clearDiff();
  const paint = (id, css) => nodeElement(dfIdOfNode(id))?.classList.add(css);
  for (const node of diff.nodes.added) paint(node.id, "diff-added");
  for (const change of diff.nodes.changed) paint(change.id, change.layout_only ? "diff-moved" : "diff-changed");
}

function nodeItem(kind, node, detail) {
  const onCanvas = dfIdOfNode(node.id) !== null;
  return h("li", { class: `diff-item diff-${kind}`, "data-node-id": node.id },
    h("span", { class: "diff-mark", text: { added: "+", removed: "−", changed: "~", moved: "↔" }[kind] }),
    h("strong", { text: node.name || node.id }),
    detail ? h("span", { class: "muted mono", text: ` ${detail}` }) : null,
    kind !== "removed" && !onCanvas ? h("span", { class: "muted", text: " (no longer on the canvas)" }) : null);
}

function describe(diff) {
  const items = [
    ...diff.nodes.added.map((node) => nodeItem("added", node)),
    ...diff.nodes.removed.map((node) => nodeItem("removed", node)),
    ...diff.nodes.changed.map((change) =>
      nodeItem(change.layout_only ? "moved" : "changed", change, change.layout_only ? "moved" : change.paths.join(", "))),
    ...diff.edges.added.map((edge) => h("li", { class: "diff-item diff-added", text: `+ connection ${edge.source} → ${edge.target}` })),
    ...diff.edges.removed.map((edge) => h("li", { class: "diff-item diff-removed", text: `− connection ${edge.source} → ${edge.target}` })),
    ...diff.fields.map((field) => h("li", { class: "diff-item diff-changed", text: `~ ${field.path}` })),
  ];
  if (!items.length) return h("p", { class: "muted", text: "Nothing changed in this version's content." });
  return h("ul", { class: "diff-list" }, ...items);
}

async function restore(version) {
  const unsaved = isDirty() ? " Your unsaved changes will be lost." : "";
  if (!window.confirm(`Restore version ${version.number}? It is saved as a new version; nothing is deleted.${unsaved}`)) return;
  const detail = $("versions-detail");
  try {
    await api("POST", `/api/flows/${flow.id}/versions/${version.number}/restore`, undefined, { "If-Match": `"${state.version}"` });
    state.savedCounter = state.changeCounter; // the page reloads with the restored graph
    window.location.reload();
  } catch (error) {
    const problems = Object.values(error.details?.nodes ?? []).map((p) => p.message);
    detail.prepend(h("p", { class: "form-error", role: "alert", text: [error.message, ...problems].join(" ") }));
  }
}

export async function showVersion(version, row) {
  document.querySelectorAll("#versions-rows tr").forEach((other) => other.classList.remove("current"));
  row?.classList.add("current");
  view.selected = version.number;
  const detail = $("versions-detail");
  detail.replaceChildren(h("p", { class: "muted", text: "Loading the changes…" }));
  try {
    const diff = await api("GET", `/api/flows/${flow.id}/versions/${version.number}/diff`);
    paintDiff(diff);
    const title = diff.from === null ? `Version ${diff.to}: the first` : `Version ${diff.to}, against version ${diff.from}`;
    const actions = version.number === state.version
      ? h("p", { class: "muted", text: "This is the flow as it is now." })
      : h("button", { type: "button", class: "primary small", id: "versions-restore", text: `Restore version ${version.number}`, onclick: () => restore(version) });
    detail.replaceChildren(h("h3", { class: "section-title", text: title }), describe(diff), actions);
  } catch (error) {
    detail.replaceChildren(h("p", { class: "form-error", role: "alert", text: error.message }));
  }
}

function versionOrigin(version) {
  if (version.source === "restore") return `restored v${version.restored_from}`;
  const from = version.promoted_from;
  if (version.source === "promote" && from) return `promoted from ${from.workspace_name} v${from.version}`;
  return version.source;
}

function versionRow(version) {
  const who = versionOrigin(version);
  const row = h("tr", { class: "history-row", tabindex: "0", "data-version": String(version.number) },
    h("td", { text: `v${version.number}` }),
    h("td", {}, h("time", { datetime: version.created_at, text: formatTime(version.created_at) })),
    h("td", { text: version.created_by, title: version.created_by }),
    h("td", { text: who }));
  row.addEventListener("click", () => showVersion(version, row));
  row.addEventListener("keydown", (event) => { if (event.key === "Enter") showVersion(version, row); });
  return row;
}

export async function loadVersions() {
  showText($("versions-error"), "");
  try {
    const page = await api("GET", `/api/flows/${flow.id}/versions?page=${view.page}`);
    const versions = page.results || [];
    $("versions-rows").replaceChildren(...versions.map(versionRow));
    $("versions-empty").hidden = versions.length > 0;
    $("versions-newer").disabled = !page.previous;
    $("versions-older").disabled = !page.next;
    $("versions-pager").hidden = !page.previous && !page.next;
    const selected = $("versions-rows").querySelector(`tr[data-version="${view.selected}"]`);
    selected?.classList.add("current");
  } catch (error) {
    showText($("versions-error"), error.message);
  }
}

/** Open the Versions tab on version `number` (the 412 banner's "See what changed"). */
export async function openVersion(number) {
  $("tab-versions").click();
  await loadVersions();
  const row = $("versions-rows").querySelector(`tr[data-version="${number}"]`);
  row?.click();
}

$("versions-newer").addEventListener("click", () => { view.page = Math.max(1, view.page - 1); loadVersions(); });
$("versions-older").addEventListener("click", () => { view.page += 1; loadVersions(); });
on("tab-shown", (name) => (name === "versions" ? loadVersions() : clearDiff())); // the diff's colours belong to the Versions tab
