// The Credentials page: list, create, edit, test and delete through /api/credentials.
// Secret values only ever travel from this page to the server, never back.
import { api } from "./api.js";
import { cell, describe, showError } from "./list_page.js";

// Every kind and its fields, plugin kinds included: the server's registry
// (the same list as GET /api/credential-kinds), so nothing here names a kind's fields.
const KINDS = JSON.parse(document.getElementById("credential-kinds-data").textContent);
const KIND = Object.fromEntries(KINDS.map((kind) => [kind.name, kind]));
const fieldsOf = (kind) => (KIND[kind] ? KIND[kind].fields : []);
// Server kinds Weir tests by connecting; HTTP kinds (signs_http) by a GET to a URL the user gives.
const SERVER_KINDS = ["smtp", "postgres"];
const testable = (kind) => Boolean(KIND[kind]) && (KIND[kind].signs_http || SERVER_KINDS.includes(kind));
// Fields typed as text but sent as JSON: a list as words, an object as JSON.
const AS_TEXT = {
  list: { show: (value) => (value || []).join(" "), parse: (text) => text.split(/\s+/).filter(Boolean) },
  json: {
    show: (value) => (value ? JSON.stringify(value) : ""),
    parse: (text, field) => {
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new Error(`${field.label} must be a JSON object, like {"key": "value"}.`);
      }
    },
  },
};

let credentials = JSON.parse(document.getElementById("credentials-data").textContent);
const rows = document.getElementById("credential-rows");
const table = document.getElementById("credential-table");
const empty = document.getElementById("empty-credentials");
const dialog = document.getElementById("credential-dialog");
const form = document.getElementById("credential-form");
const formError = document.getElementById("credential-error");
const deleteDialog = document.getElementById("delete-dialog");
const testDialog = document.getElementById("test-dialog");
const testForm = document.getElementById("test-form");
const testResult = document.getElementById("test-result");
let editing = null;
let testing = null;
const testedUrls = new Map();  // credential id → the URL last tested, for this visit
let deleting = null;
let forceDelete = false;

function button(label, action, extra = "", name = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `small ${extra}`.trim();
  b.dataset.action = action;
  b.textContent = label;
  if (name) b.setAttribute("aria-label", name);
  return b;
}

function kindText(credential) {
  return KIND[credential.kind] ? KIND[credential.kind].label : `${credential.kind} (not installed)`;
}

function valueText(credential) {
  if (credential.kind === "oauth2") {
    if (credential.reconnect_needed) return "Reconnect needed";
    if (credential.connected) return credential.expires_at ? `Connected (token until ${new Date(credential.expires_at).toLocaleString()})` : "Connected";
    return credential.grant === "client_credentials" ? "Token fetched on first use" : "Not connected";
  }
  if (credential.has_value) return "Saved (hidden)";
  const secret = fieldsOf(credential.kind).find((field) => field.secret);
  return secret && !secret.required ? `No ${secret.label.toLowerCase()}` : "Empty";
}

function render() {
  rows.replaceChildren(
    ...credentials.map((credential) => {
      const tr = document.createElement("tr");
      tr.dataset.id = credential.id;
      tr.className = "credential-row";
      const detail = credential.host || credential.client_id || credential.header_name || credential.param_name || credential.username || "";
      tr.append(
        cell(credential.name),
        cell(kindText(credential) + (detail ? ` · ${detail}` : "")),
        cell(valueText(credential), "muted"),
        cell(credential.last_used_at ? new Date(credential.last_used_at).toLocaleString() : "Never", "muted"),
      );
      const actions = document.createElement("td");
      actions.className = "actions";
      // A custom credential's values go into templates: nothing to test alone.
      if (credential.kind === "oauth2" && credential.grant === "authorization_code") {
        // A link, not a form: the provider's page is another origin.
        const connect = document.createElement("a");
        connect.className = "button small primary";
        connect.href = `/oauth/connect/${credential.id}`;
        connect.textContent = credential.connected || credential.reconnect_needed ? "Reconnect" : "Connect";
        connect.setAttribute("aria-label", `${connect.textContent} ${credential.name}`);
        actions.append(connect);
      }
      if (credential.kind === "oauth2" && credential.connected) actions.append(button("Disconnect", "disconnect", "", `Disconnect ${credential.name}`));
      if (testable(credential.kind)) actions.append(button("Test", "test", "", `Test ${credential.name}`));
      if (KIND[credential.kind]) actions.append(button("Edit", "edit"));
      actions.append(button("Delete", "delete", "danger"));
      tr.append(actions);
      return tr;
    }),
  );
  table.hidden = credentials.length === 0;
  empty.hidden = credentials.length !== 0;
}

// One input per field name (kinds sharing a name share it), shown for the kinds that have it.
function fieldBlock(field, kinds) {
  const block = document.createElement("div");
  block.dataset.kind = kinds.join(" ");
  if (field.grant) block.dataset.grant = field.grant;
  const id = `credential-${field.name.replaceAll("_", "-")}`;
  const label = document.createElement("label");
  label.className = "field-label";
  label.htmlFor = id;
  label.textContent = field.label;
  let input;
  if (field.widget === "select") {
    input = document.createElement("select");
    const choices = field.required ? field.choices : ["", ...field.choices];
    input.append(...choices.map((choice) => new Option(choice || "Default", choice)));
  } else if (field.widget === "json" && field.secret) {
    input = document.createElement("textarea");
    input.rows = 4;
  } else {
    input = document.createElement("input");
    const types = { password: "password", email: "email", url: "url" };
    input.type = types[field.widget] || "text";
    if (field.widget === "number") input.inputMode = "numeric";
    input.autocomplete = field.secret ? "new-password" : "off";
  }
  input.id = id;
  input.name = field.name;
  if (field.placeholder) input.placeholder = field.placeholder;
  block.append(label, input);
  return block;
}

function buildKindForm() {
  form.elements.kind.replaceChildren(...KINDS.map((kind) => new Option(kind.label, kind.name)));
  const byName = new Map();
  for (const kind of KINDS) {
    for (const field of kind.fields) {
      if (!byName.has(field.name)) byName.set(field.name, { field, kinds: [] });
      byName.get(field.name).kinds.push(kind.name);
    }
  }
  document.getElementById("credential-kind-fields").replaceChildren(
    ...[...byName.values()].map(({ field, kinds }) => fieldBlock(field, kinds)),
  );
  document.getElementById("oauth-redirect-hint").dataset.kind = "oauth2";
  document.getElementById("oauth-redirect-hint").dataset.grant = "authorization_code";
}

function showKindFields() {
  const kind = form.elements.kind.value;
  const grant = form.elements.grant ? form.elements.grant.value : "";
  document.getElementById("credential-kind-docs").textContent = KIND[kind] ? KIND[kind].docs : "";
  for (const block of form.querySelectorAll("[data-kind]")) {
    const otherGrant = block.dataset.grant && block.dataset.grant !== grant;
    block.hidden = !block.dataset.kind.split(" ").includes(kind) || Boolean(otherGrant);
  }
}

function openForm(credential) {
  editing = credential;
  form.reset();
  showError(formError, "");
  document.getElementById("credential-form-title").textContent = credential ? `Edit ${credential.name}` : "New credential";
  form.elements.kind.disabled = Boolean(credential);
  if (form.elements.grant) form.elements.grant.disabled = Boolean(credential);
  document.getElementById("credential-keep-hint").hidden = !credential;
  if (credential) {
    form.elements.name.value = credential.name;
    form.elements.kind.value = credential.kind;
    for (const field of fieldsOf(credential.kind).filter((f) => !f.secret)) {
      const text = AS_TEXT[field.widget];
      form.elements[field.name].value = text ? text.show(credential[field.name]) : credential[field.name] ?? "";
    }
  }
  showKindFields();
  dialog.showModal();
  form.elements.name.focus();
}

// What the form sends: the kind's fields that are shown, typed and enabled; an empty
// one is left out (on an edit, the saved value stays; on create, the server says
// which are required).
function formBody() {
  const kind = form.elements.kind.value;
  const body = { name: form.elements.name.value.trim() };
  if (!editing) body.kind = kind;
  for (const field of fieldsOf(kind)) {
    const input = form.elements[field.name];
    if (input.disabled || input.closest("[data-kind]").hidden) continue;
    const value = field.secret && field.widget !== "json" ? input.value : input.value.trim();
    if (!value) continue;
    body[field.name] = AS_TEXT[field.widget] ? AS_TEXT[field.widget].parse(value, field) : value;
  }
  return body;
}

buildKindForm();
form.elements.kind.addEventListener("change", showKindFields);
if (form.elements.grant) form.elements.grant.addEventListener("change", showKindFields);
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
  if (action === "test") openTest(credential);
  if (action === "disconnect") disconnect(credential);
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

async function disconnect(credential) {
  try {
    const saved = await api("POST", `/api/credentials/${credential.id}/disconnect`);
    credentials = credentials.map((c) => (c.id === saved.id ? saved : c));
    render();
  } catch (error) {
    window.alert(describe(error));
  }
}

// What a test of a server credential does, said before it runs.
function serverHint(credential) {
  if (credential.kind === "postgres") {
    return `Weir connects to ${credential.host}:${credential.port || 5432}/${credential.database} as ${credential.username} and runs SELECT 1.`;
  }
  const security = credential.security || "starttls";
  const port = credential.port || (security === "tls" ? 465 : 587);
  const steps = [`Weir connects to ${credential.host}:${port}`, "says EHLO"];
  if (security !== "none") steps.push(security === "tls" ? "over TLS" : "starts TLS");
  if (credential.username) steps.push(`logs in as ${credential.username}`);
  return `${steps.join(", ")}; no mail is sent.`;
}

function showResult(ok, message) {
  testResult.textContent = `${ok ? "✓" : "✗"} ${message}`;
  testResult.className = `test-result ${ok ? "ok" : "failed"}`;
}

function openTest(credential) {
  testing = credential;
  const http = KIND[credential.kind].signs_http;
  document.getElementById("test-credential-name").textContent = credential.name;
  document.getElementById("test-url-block").hidden = !http;
  const hint = document.getElementById("test-server-hint");
  hint.hidden = http;
  hint.textContent = http ? "" : serverHint(credential);
  testForm.elements.url.value = testedUrls.get(credential.id) || "";
  testResult.textContent = "";
  testResult.className = "test-result";
  testDialog.showModal();
  (http ? testForm.elements.url : document.getElementById("test-run")).focus();
}

testForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const credential = testing;
  const run = document.getElementById("test-run");
  const body = {};
  if (KIND[credential.kind].signs_http) {
    body.url = testForm.elements.url.value.trim();
    testedUrls.set(credential.id, body.url);
  }
  run.disabled = true;
  testResult.className = "test-result";
  testResult.textContent = "Testing…";
  try {
    const answer = await api("POST", `/api/credentials/${credential.id}/test`, body);
    if (testing === credential) showResult(answer.ok, answer.message);
  } catch (error) {
    if (testing === credential) showResult(false, describe(error));
  } finally {
    run.disabled = false;
  }
});
document.getElementById("test-close").addEventListener("click", () => testDialog.close());
testDialog.addEventListener("close", () => { testing = null; });

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
      // Flows using it may be overridden ("Delete anyway"); an agent holding it
      // as its API key may not: it needs another credential first.
      const agents = error.details.used_by || [];
      const links = [
        ...(error.details.flows || []).map((flow) => [`/flows/${flow.id}/`, flow.name]),
        ...agents.map((used) => [`/agents/${used.id}/edit/`, used.name]),
      ];
      document.getElementById("delete-flows").replaceChildren(
        ...links.map(([href, name]) => {
          const li = document.createElement("li");
          const link = document.createElement("a");
          link.href = href;
          link.textContent = name;
          li.append(link);
          return li;
        }),
      );
      forceDelete = agents.length === 0;
      document.getElementById("confirm-delete").textContent = forceDelete ? "Delete anyway" : "Delete";
    }
    showError(document.getElementById("delete-error"), error.message);
    deleteDialog.showModal();
  }
});

render();
