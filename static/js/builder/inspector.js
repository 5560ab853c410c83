// Selection and the inspector: the selected node's form, built from its kind's
// declared fields, and edits written back into the node's record.
import { kindClass, kindOf, nodeHtml } from "../graph_format.js";
import { fieldsFor } from "../node_forms.js";
import { container, editor, emit, kinds, markChanged, nodeElement, on, records, state } from "./context.js";
import { $, h, showText } from "./dom.js";
import { showTab } from "./tabs.js";
import { connectionsSection } from "./connect_menu.js";
import { curlImportSection } from "./curl_import.js";
import { pinsSection } from "./pins_panel.js";
import { fieldWidget } from "./widgets.js";
import { appActionSection } from "./app_action_form.js";
import {
  ERROR_FIELD, getSetting, isSetting, RETRY_FIELDS, setSetting, syncErrorPort, WAIT_FIELD,
} from "./node_settings.js";

export const inspector = $("inspector");

export function selectNode(dfId, { fromCanvas = false } = {}) {
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
  emit("selection-changed");
}

export function setPath(record, path, value) {
  if (path === "name") {
    record.name = value;
    return;
  }
  if (isSetting(path)) {
    setSetting(record, path, value);
    return;
  }
  const key = path.slice("data.".length);
  if (path === "data") record.data = value;
  else record.data = { ...record.data, [key]: value };
}

export function getPath(record, path) {
  if (path === "name") return record.name;
  if (isSetting(path)) return getSetting(record, path);
  if (path === "data") return record.data;
  return record.data?.[path.slice("data.".length)];
}

export function refreshNodeHtml(dfId) {
  const record = records.get(dfId);
  const element = nodeElement(dfId);
  if (!record || !element) return;
  const title = element.querySelector(".node-name");
  if (title) title.textContent = record.name || kindOf(kinds, record.type).label;
  if (record.type === "app_action") {
    // The app's icon and name, and whether it still needs a credential.
    const card = document.createElement("template");
    card.innerHTML = nodeHtml(record, kindOf(kinds, record.type));
    element.querySelector(".node-kind")?.replaceWith(card.content.querySelector(".node-kind"));
    element.querySelector(".node-needs")?.remove();
    const needs = card.content.querySelector(".node-needs");
    if (needs) element.querySelector(".node-name")?.after(needs);
  }
  const handles = element.querySelector(".node-handles");
  if (handles) {
    // A switch's outputs follow its cases: redraw their names from the escaped HTML.
    const fresh = document.createElement("template");
    fresh.innerHTML = nodeHtml(record, kindOf(kinds, record.type));
    handles.replaceWith(fresh.content.querySelector(".node-handles") ?? "");
  }
  // Keep Drawflow's copy of the HTML in step, escaped, for its own re-renders.
  editor.drawflow.drawflow.Home.data[dfId].html = nodeHtml(record, kindOf(kinds, record.type));
}

export function clearFieldErrors(dfId, path) {
  const errors = state.nodeErrors.get(dfId);
  if (!errors) return;
  const remaining = errors.filter((error) => !(error.field === path || error.field.startsWith(path + ".")));
  if (remaining.length) state.nodeErrors.set(dfId, remaining);
  else {
    state.nodeErrors.delete(dfId);
    nodeElement(dfId)?.classList.remove("has-error");
  }
}

export function onFieldChange(dfId, path, value, wrapper) {
  const record = records.get(dfId);
  if (!record) return;
  setPath(record, path, value);
  if (path === "name" || path === "data.credential_id") refreshNodeHtml(dfId);
  if (path === "error_output") syncErrorPort(dfId, record);
  if (path === "data.cases") {
    syncErrorPort(dfId, record); // a switch: one port per case (ports follow the count)
    refreshNodeHtml(dfId);
  }
  clearFieldErrors(dfId, path);
  const errorBox = wrapper?.querySelector(".field-error");
  if (errorBox) showText(errorBox, "");
  wrapper?.classList.remove("invalid");
  markChanged({ coalesce: `${dfId}|${path}` });
}

export function renderInspector() {
  const dfId = state.selected;
  $("inspector-empty").hidden = Boolean(dfId);
  inspector.hidden = !dfId;
  inspector.replaceChildren();
  if (!dfId) return;
  const record = records.get(dfId);
  const kind = kindOf(kinds, record.type);
  const errors = state.nodeErrors.get(dfId) || [];
  let fields = [{ path: "name", label: "Node name", widget: "text" }, ...fieldsFor(kind)];
  const appAction = record.type === "app_action";
  if (appAction) fields = appActionFields(fields, kind.apps?.[record.data.app], record.data.operation);
  if (!kind.is_trigger) fields.push(WAIT_FIELD, ERROR_FIELD, ...RETRY_FIELDS);
  const placed = new Set();

  inspector.append(
    h("div", { class: `inspector-head ${kindClass(record.type)}` },
      h("span", { class: "kind-dot", "aria-hidden": "true" }),
      h("div", {},
        h("div", { class: "inspector-kind", text: kind.label }),
        h("div", { class: "muted small-text" }, "id ", h("code", { class: "node-id", text: record.id })),
      ),
      h("button", { type: "button", class: "small node-view-open", text: "Open node view",
        title: "Input, settings and output side by side (or double-click the node)", onclick: () => emit("open-node-view") }),
    ),
    h("p", { class: "muted small-text", text: kind.description }),
  );

  const general = h("ul", { class: "field-error-list", role: "alert" });
  inspector.append(general);
  if (kind.imports_curl) inspector.append(curlImportSection(dfId, renderInspector));

  const groups = new Map(); // a <details> per field group, open when in use
  const placeIn = (field, wrapper) => {
    if (!field.group) return inspector.append(wrapper);
    if (!groups.has(field.group)) {
      const details = h("details", { class: "field-group" }, h("summary", { text: field.group }));
      groups.set(field.group, details);
      inspector.append(details);
    }
    const details = groups.get(field.group);
    details.append(wrapper);
    if (getPath(record, field.path) !== undefined || wrapper.classList.contains("invalid")) details.open = true;
  };

  fields.forEach((field, index) => {
    if (appAction && field.path === "data.operation") {
      const change = (path, value) => {
        onFieldChange(dfId, path, value);
        if (path === "data.app") refreshNodeHtml(dfId);
      };
      inspector.append(appActionSection(record, kind, change, renderInspector));
      return;
    }
    const inputId = `field-${index}`;
    const wrapper = h("div", { class: "field", "data-field": field.path });
    const errorBox = h("p", { class: "field-error", role: "alert", hidden: true });
    const described = field.widget === "code" ? { ...field, nodeId: record.id } : field;
    const widget = fieldWidget(described, getPath(record, field.path), (value) => onFieldChange(dfId, field.path, value, wrapper), wrapper);
    widget.input.id = inputId;
    wrapper.append(h("label", { class: "field-label", for: inputId, text: field.label }), widget.element, errorBox);
    if (field.help) wrapper.append(h("p", { class: "hint", text: field.help }));
    const mine = errors.filter((error) => error.field === field.path || error.field.startsWith(field.path + "."));
    if (mine.length) {
      mine.forEach((error) => placed.add(error));
      wrapper.classList.add("invalid");
      showText(errorBox, mine.map((error) => error.message).join(" "));
    }
    placeIn(field, wrapper);
  });

  for (const error of errors) {
    if (placed.has(error)) continue;
    general.append(h("li", { text: error.field ? `${error.field}: ${error.message}` : error.message }));
  }
  general.hidden = !general.children.length;
  inspector.append(
    // A trigger or a branch has no pins section: null, which append() would write as "null".
    ...[pinsSection(dfId, renderInspector)].filter(Boolean),
    connectionsSection(dfId, renderInspector),
    h("div", { class: "inspector-foot" },
      h("button", { type: "button", class: "small danger", text: "Delete node", onclick: () => editor.removeNodeId(`node-${dfId}`) }),
    ),
  );
}

/** An app action's fields: the app, operation and parameters are one section
 * (app_action_form.js), and the credential offers only the kinds the operation
 * takes (its own `security`, else the app's). */
function appActionFields(fields, app, operationId) {
  const operation = app?.operations.find((each) => each.id === operationId);
  const kinds = operation?.kinds.length ? operation.kinds : app?.kinds;
  return fields
    .filter((field) => field.path !== "data.app" && field.path !== "data.params")
    .map((field) => (field.path === "data.credential_id" && kinds?.length ? { ...field, kinds } : field));
}

on("select-node", selectNode);
on("refresh-inspector", renderInspector);
