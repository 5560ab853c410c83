// The flow list: create, rename, duplicate and delete through the API.
import { api } from "./api.js";
import { showError } from "./list_page.js";

const createForm = document.getElementById("create-flow");
const createError = document.getElementById("create-flow-error");

createForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = createForm.elements.name.value.trim();
  if (!name) {
    showError(createError, "Give the flow a name.");
    createForm.elements.name.focus();
    return;
  }
  showError(createError, "");
  try {
    const flow = await api("POST", "/api/flows", {
      name,
      nodes: [],
      edges: [],
      workspace: createForm.dataset.workspace,
    });
    window.location.assign(`/flows/${flow.id}/`);
  } catch (error) {
    showError(createError, error.message);
  }
});

const table = document.getElementById("flow-table");
const dialog = document.getElementById("delete-dialog");
let rowToDelete = null;

function rowOf(element) {
  return element.closest("tr.flow-row");
}

function toggleRename(row, editing) {
  row.querySelector(".flow-link").hidden = editing;
  row.querySelector(".rename-form").hidden = !editing;
  if (editing) {
    const input = row.querySelector(".rename-form input");
    input.value = row.dataset.flowName;
    input.focus();
    input.select();
  }
}

async function duplicate(row) {
  const errorBox = row.querySelector(".row-error");
  try {
    const original = await api("GET", `/api/flows/${row.dataset.flowId}`);
    const copy = await api("POST", "/api/flows", {
      name: `Copy of ${original.name}`.slice(0, 200),
      workspace: original.workspace,
      description: original.description,
      input_schema: original.input_schema,
      nodes: original.nodes,
      edges: original.edges,
    });
    window.location.assign(`/flows/${copy.id}/`);
  } catch (error) {
    showError(errorBox, error.message);
  }
}

if (table) {
  table.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    const row = rowOf(button);
    const action = button.dataset.action;
    if (action === "rename") toggleRename(row, true);
    if (action === "cancel-rename") toggleRename(row, false);
    if (action === "duplicate") duplicate(row);
    if (action === "delete") {
      rowToDelete = row;
      document.getElementById("delete-flow-name").textContent = row.dataset.flowName;
      showError(document.getElementById("delete-error"), "");
      dialog.showModal();
    }
  });

  table.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const row = rowOf(form);
    const name = form.elements.name.value.trim();
    const errorBox = row.querySelector(".row-error");
    if (!name) {
      showError(errorBox, "A flow needs a name.");
      return;
    }
    try {
      const flow = await api("PATCH", `/api/flows/${row.dataset.flowId}`, { name });
      row.dataset.flowName = flow.name;
      row.querySelector(".flow-link").textContent = flow.name;
      showError(errorBox, "");
      toggleRename(row, false);
    } catch (error) {
      showError(errorBox, error.message);
    }
  });

  table.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && event.target.closest(".rename-form")) {
      toggleRename(rowOf(event.target), false);
    }
  });
}

dialog.addEventListener("close", async () => {
  if (dialog.returnValue !== "confirm" || !rowToDelete) return;
  const row = rowToDelete;
  try {
    await api("DELETE", `/api/flows/${row.dataset.flowId}`);
    window.location.reload();
  } catch (error) {
    showError(row.querySelector(".row-error"), error.message);
  }
});
