// The API tokens page (personal, /api/tokens) and a workspace's tokens page
// (/api/workspaces/:id/tokens): list, create and revoke. A new token's text is
// shown once, in the banner, and leaves the page with it.
import { api } from "./api.js";
import { cell, describe, showError } from "./list_page.js";

const read = (id) => JSON.parse(document.getElementById(id).textContent);
let tokens = read("tokens-data");
const endpoint = read("tokens-endpoint");
const workspaceNames = read("tokens-workspaces");
const rows = document.getElementById("token-rows");
const table = document.getElementById("token-table");
const empty = document.getElementById("empty-tokens");
const dialog = document.getElementById("token-dialog");
const form = document.getElementById("token-form");
const formError = document.getElementById("token-error");
const created = document.getElementById("created-token");
const createdValue = document.getElementById("created-token-value");
const revokeDialog = document.getElementById("revoke-dialog");
let revoking = null;

function when(iso, never) {
  return iso ? new Date(iso).toLocaleString() : never;
}

function render() {
  rows.replaceChildren(
    ...tokens.map((token) => {
      const tr = document.createElement("tr");
      tr.dataset.id = token.id;
      tr.className = "token-row";
      const expired = new Date(token.expires_at) <= new Date();
      const revoke = document.createElement("button");
      revoke.type = "button";
      revoke.className = "small danger";
      revoke.dataset.action = "revoke";
      revoke.textContent = "Revoke";
      revoke.setAttribute("aria-label", `Revoke ${token.name}`);
      const actions = document.createElement("td");
      actions.className = "actions";
      actions.append(revoke);
      tr.append(
        cell(token.name),
        cell(`${token.prefix}…`, "mono"),
        cell(token.role_cap || workspaceNames[token.workspace] || ""),
        cell(token.scopes.join(", ")),
        cell(expired ? `Expired ${when(token.expires_at)}` : when(token.expires_at), expired ? "form-error" : "muted"),
        cell(token.last_used_at ? `${when(token.last_used_at)} from ${token.last_used_ip || "?"}` : "Never", "muted"),
        actions,
      );
      return tr;
    }),
  );
  table.hidden = tokens.length === 0;
  empty.hidden = tokens.length !== 0;
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (error) {
    createdValue.select();
    document.execCommand("copy");
  }
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = "Copy"; }, 1500);
}

document.getElementById("new-token").addEventListener("click", () => {
  form.reset();
  showError(formError, "");
  dialog.showModal();
  form.elements.name.focus();
});
document.getElementById("token-cancel").addEventListener("click", () => dialog.close());
document.getElementById("copy-token").addEventListener("click", (event) => copy(createdValue.value, event.target));
document.getElementById("dismiss-token").addEventListener("click", () => {
  createdValue.value = "";
  created.hidden = true;
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const scopes = [...form.querySelectorAll("input[name=scopes]:checked")].map((box) => box.value);
  const name = form.elements.name.value.trim();
  if (!name) return showError(formError, "Give the token a name.");
  if (!scopes.length) return showError(formError, "Tick at least one scope.");
  const days = Number(form.elements.expiry.value);
  const expires_at = new Date(Date.now() + days * 86400000).toISOString();
  try {
    const body = { name, scopes, expires_at };
    if (form.elements.workspace) body.workspace = form.elements.workspace.value;
    if (form.elements.role_cap) body.role_cap = form.elements.role_cap.value;
    const token = await api("POST", endpoint, body);
    createdValue.value = token.token;
    delete token.token;
    tokens = [token, ...tokens];
    dialog.close();
    render();
    created.hidden = false;
    createdValue.focus();
    createdValue.select();
  } catch (error) {
    showError(formError, describe(error));
  }
});

rows.addEventListener("click", (event) => {
  const row = event.target.closest("tr");
  if (event.target.dataset.action !== "revoke" || !row) return;
  revoking = tokens.find((token) => token.id === row.dataset.id);
  document.getElementById("revoke-token-name").textContent = revoking.name;
  showError(document.getElementById("revoke-error"), "");
  revokeDialog.showModal();
});

revokeDialog.addEventListener("close", async () => {
  if (revokeDialog.returnValue !== "confirm" || !revoking) return;
  try {
    await api("DELETE", `${endpoint}/${revoking.id}`);
    tokens = tokens.filter((token) => token.id !== revoking.id);
    revoking = null;
    render();
  } catch (error) {
    showError(document.getElementById("revoke-error"), error.message);
    revokeDialog.showModal();
  }
});

render();
