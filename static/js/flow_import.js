// The flow list's Import dialog: a Weir export from a file or pasted JSON,
// sent to POST /api/flows/import; problems are listed by node name.
import { api } from "./api.js";

const dialog = document.getElementById("import-dialog");
const form = document.getElementById("import-form");
const fileInput = document.getElementById("import-file");
const jsonInput = document.getElementById("import-json");
const errorBox = document.getElementById("import-error");
const submit = document.getElementById("import-submit");

function showProblems(message, lines = []) {
  errorBox.replaceChildren();
  errorBox.hidden = !message;
  if (!message) return;
  const lead = document.createElement("div");
  lead.textContent = message;
  errorBox.append(lead);
  if (!lines.length) return;
  const list = document.createElement("ul");
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = line;
    list.append(item);
  }
  errorBox.append(list);
}

// Every problem of the envelope's details as one readable line.
function problemLines(details) {
  if (!details || typeof details !== "object") return [];
  const lines = [];
  for (const problem of details.nodes || []) {
    const who = problem.node_name || problem.node_id || `node ${problem.index + 1}`;
    lines.push(`${who}${problem.field ? ` (${problem.field})` : ""}: ${problem.message}`);
  }
  for (const problem of details.edges || []) {
    lines.push(`Connection ${problem.index + 1} (${problem.field}): ${problem.message}`);
  }
  for (const problem of details.graph || []) lines.push(problem.message);
  for (const [field, messages] of Object.entries(details)) {
    if (["nodes", "edges", "graph"].includes(field) || !Array.isArray(messages)) continue;
    for (const message of messages) lines.push(`${field}: ${message}`);
  }
  return lines;
}

document.getElementById("import-open").addEventListener("click", () => {
  form.reset();
  showProblems("");
  dialog.showModal();
});
document.getElementById("import-cancel").addEventListener("click", () => dialog.close());

fileInput.addEventListener("change", async () => {
  const [file] = fileInput.files;
  if (file) jsonInput.value = await file.text();
  showProblems("");
});

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = jsonInput.value.trim();
  if (!text) {
    showProblems("Choose an exported file or paste its JSON.");
    return;
  }
  let document_;
  try {
    document_ = JSON.parse(text);
  } catch (error) {
    showProblems(`This is not JSON: ${error.message}`);
    return;
  }
  submit.disabled = true;
  try {
    const flow = await api(
      "POST",
      `/api/flows/import?workspace=${encodeURIComponent(
        document.getElementById("create-flow").dataset.workspace,
      )}`,
      document_,
    );
    window.location.assign(`/flows/${flow.id}/`);
  } catch (error) {
    const lines = problemLines(error.details);
    showProblems(lines.length ? "The flow was not imported:" : error.message, lines);
  } finally {
    submit.disabled = false;
  }
});
