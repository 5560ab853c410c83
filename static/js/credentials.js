// The Credentials page: list, create, edit and delete through /api/credentials.
// Secret values only ever travel from this page to the server, never back.
import { api } from "./api.js";
import { cell, describe, showError } from "./list_page.js";

const KIND_LABELS = { bearer: "Bearer", header: "Header", basic: "Basic", query: "Query", custom: "Custom", smtp: "SMTP", postgres: "PostgreSQL" };
const SECRET_FIELDS = { bearer: ["token"], header: ["value"], basic: ["password"], query: ["value"], custom: ["values"], smtp: ["password"], postgres: ["password"] };
const PUBLIC_FIELDS = {
  bearer: [], header: ["header_name"], basic: ["username"], query: ["param_name"], custom: [],
  smtp: ["host", "port", "security", "username", "from_address"],
  postgres: ["host", "port", "database", "username", "sslmode"],
};

let credentials = JSON.parse(document.getElementById("credentials-data").textContent);
const rows = document.getElementById("credential-rows");
const table = document.getElementById("credential-table");
const empty = document.getElementById("empty-credentials");
const dialog = document.getElementById("credential-dialog");
const form = document.getElementById("credential-form");
const formError = document.getElementById("credential-error");
const deleteDialog = document.getElementById("delete-dialog");
let editing = null;
let deleting = null;
let forceDelete = false;

function button(label, action, extra = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `small ${extra}`.trim();
  b.dataset.action = action;
  b.textContent = label;
  return b;
}

function render() {
  rows.replaceChildren(
    ...credentials.map((credential) => {
      const tr = document.createElement("tr");
      tr.dataset.id = credential.id;
      tr.className = "credential-row";
      const detail = credential.host || credential.header_name || credential.param_name || credential.username || "";
      tr.append(
        cell(credential.name),
        cell(KIND_LABELS[credential.kind] + (detail ? ` · ${detail}` : "")),
        cell(credential.has_value ? "Saved (hidden)" : "Empty", "muted"),
        cell(credential.last_used_at ? new Date(credential.last_used_at).toLocaleString() : "Never", "muted"),
      );
      const actions = document.createElement("td");
      actions.className = "actions";
      actions.append(button("Edit", "edit"), button("Delete", "delete", "danger"));
      tr.append(actions);
      return tr;
    }),
  );
  table.hidden = credentials.length === 0;
  empty.hidden = credentials.length !== 0;
}

function showKindFields() {
  const kind = form.elements.kind.value;
  for (const block of form.querySelectorAll("[data-kind]")) {
    block.hidden = !block.dataset.kind.split(" ").includes(kind);
  }
}

function openForm(credential) {
  editing = credential;
  form.reset();
  showError(formError, "");
  document.getElementById("credential-form-title").textContent = credential ? `Edit ${credential.name}` : "New credential";
  form.elements.kind.disabled = Boolean(credential);
  document.getElementById("credential-keep-hint").hidden = !credential;
  if (credential) {
    form.elements.name.value = credential.name;
    form.elements.kind.value = credential.kind;
    for (const field of PUBLIC_FIELDS[credential.kind]) form.elements[field].value = credential[field] || "";
  }
  showKindFields();
  dialog.showModal();
  form.elements.name.focus();
}

function formBody() {
  const kind = form.elements.kind.value;
  const body = { name: form.elements.name.value.trim() };
  if (!editing) body.kind = kind;
  for (const field of PUBLIC_FIELDS[kind]) {
    const value = form.elements[field].value.trim();
    if (value || (!editing && field !== "port")) body[field] = value;  // no port: the default
  }
  for (const field of SECRET_FIELDS[kind]) {
    const value = form.elements[field].value;
    if (!value && editing) continue;
    if (field === "values") {
      try {
        body.values = JSON.parse(value || "null");
      } catch (error) {
        throw new Error("Values must be a JSON object, like {\"api_key\": \"…\"}.");
      }
    } else {
      body[field] = value;
    }
  }
  return body;
}

form.elements.kind.addEventListener("change", showKindFields);
document.getElementById("new-credential").addEventListener("click", () => openForm(null));
document.getElementById("credential-cancel").addEventListener("click", () => dialog.close());

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(formError, "");
  let body;
  try {
    body = formBody();
  } catch (error) {
    showError(formError, error.message);
    return;
  }
  try {
    const saved = editing
      ? await api("PATCH", `/api/credentials/${editing.id}`, body)
      : await api("POST", "/api/credentials", body);
    credentials = credentials.filter((c) => c.id !== saved.id).concat([saved]);
    credentials.sort((a, b) => a.name.localeCompare(b.name));
    form.reset();  // the typed secret leaves the page
    dialog.close();
    render();
  } catch (error) {
    showError(formError, describe(error));
  }
});

rows.addEventListener("click", (event) => {
  const action = event.target.dataset.action;
  const row = event.target.closest("tr");
  if (!action || !row) return;
  const credential = credentials.find((c) => c.id === row.dataset.id);
  if (action === "edit") openForm(credential);
  if (action === "delete") {
    deleting = credential;
    forceDelete = false;
    document.getElementById("delete-credential-name").textContent = credential.name;
    document.getElementById("delete-flows").replaceChildren();
    document.getElementById("confirm-delete").textContent = "Delete";
    showError(document.getElementById("delete-error"), "");
    deleteDialog.showModal();
  }
});

deleteDialog.addEventListener("close", async () => {
  if (deleteDialog.returnValue !== "confirm" || !deleting) return;
  const query = forceDelete ? "?force=true" : "";
  try {
    await api("DELETE", `/api/credentials/${deleting.id}${query}`);
    credentials = credentials.filter((c) => c.id !== deleting.id);
    deleting = null;
    render();
  } catch (error) {
    if (error.status === 409) {
      const list = document.getElementById("delete-flows");
      list.replaceChildren(
        ...(error.details.flows || []).map((flow) => {
          const li = document.createElement("li");
          const link = document.createElement("a");
          link.href = `/flows/${flow.id}/`;
          link.textContent = flow.name;
          li.append(link);
          return li;
        }),
      );
      forceDelete = true;
      document.getElementById("confirm-delete").textContent = "Delete anyway";
    }
    showError(document.getElementById("delete-error"), error.message);
    deleteDialog.showModal();
  }
});

render();
