// The agent page: create or edit one of your agents through /api/agents.
// The API is the one place settings are checked; its 400 details are shown
// next to the field they name, and a stale edit (412) says so.
import { api } from "./api.js";
import { fillServers, serversValue, showServerProblems } from "./agent_form/mcp_servers.js";
import { PUBLISH_FIELDS, fillPublishing, publishingValue } from "./agent_form/publishing.js";

const data = JSON.parse(document.getElementById("agent-form-data").textContent);
const form = document.getElementById("agent-form");
const agent = data.agent;
const FIELDS = [
  "name",
  "description",
  "system_prompt",
  "temperature",
  "max_tokens",
  "model",
  "credential",
  "tool_flows",
  "approval_flows",
  "knowledge_bases",
  "output_schema",
  "mcp_servers",
  "max_cost_per_day",
  "max_cost_per_turn",
  ...PUBLISH_FIELDS,
];

const HINTS = {
  openai: "Needs an OpenAI key: pick a credential below, or the server's OPENAI_API_KEY is used.",
  anthropic: "Needs an Anthropic key: pick a credential below, or the server's ANTHROPIC_API_KEY is used.",
  ollama: "Runs on the server's Ollama (OLLAMA_BASE_URL); no key needed.",
  echo: "Answers offline by echoing your message; good for trying flows as tools.",
};

function showError(id, message) {
  const element = document.getElementById(id);
  if (!element) return false;
  element.textContent = message || "";
  element.hidden = !message;
  return true;
}

function clearErrors() {
  for (const field of FIELDS) showError(`agent-${field}-error`, "");
  showError("agent-error", "");
}

function fillSuggestions() {
  const provider = form.elements.provider.value;
  const list = document.getElementById("agent-model-suggestions");
  list.replaceChildren(
    ...(data.suggestions[provider] || []).map((name) => {
      const option = document.createElement("option");
      option.value = name;
      return option;
    }),
  );
  document.getElementById("agent-provider-hint").textContent = HINTS[provider] || "";
  form.elements.credential.disabled = provider === "echo" || provider === "ollama";
}

function fill() {
  for (const credential of data.credentials) {
    const option = document.createElement("option");
    option.value = credential.id;
    option.textContent = `${credential.name} (${credential.kind})`;
    form.elements.credential.append(option);
  }
  const chosen = new Set(agent ? agent.tool_flows : []);
  const asking = new Set(agent ? agent.approval_flows : []);
  document.getElementById("agent-tools").replaceChildren(
    ...data.flows.map((flow) => {
      const item = document.createElement("li");
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.name = "tool_flows";
      box.value = flow.id;
      box.checked = chosen.has(flow.id);
      label.append(box, " ", flow.name);
      // Only a tool can ask first: the second box follows the first.
      const askLabel = document.createElement("label");
      askLabel.className = "agent-tool-approval";
      const ask = document.createElement("input");
      ask.type = "checkbox";
      ask.name = "approval_flows";
      ask.value = flow.id;
      ask.checked = asking.has(flow.id);
      ask.disabled = !box.checked;
      box.addEventListener("change", () => {
        ask.disabled = !box.checked;
        if (!box.checked) ask.checked = false;
      });
      askLabel.append(ask, " requires approval");
      item.append(label, askLabel);
      return item;
    }),
  );
  document.getElementById("agent-no-flows").hidden = data.flows.length > 0;
  const searched = new Set(agent ? agent.knowledge_bases : []);
  document.getElementById("agent-knowledge").replaceChildren(
    ...data.knowledge_bases.map((base) => {
      const item = document.createElement("li");
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.name = "knowledge_bases";
      box.value = base.id;
      box.checked = searched.has(base.id);
      label.append(box, " ", base.name);
      item.append(label);
      return item;
    }),
  );
  document.getElementById("agent-no-knowledge").hidden = data.knowledge_bases.length > 0;
  fillServers(data.credentials, agent ? agent.mcp_servers : []);
  const [provider, modelName] = agent ? splitModel(agent.model) : ["echo", "demo"];
  form.elements.provider.value = provider;
  form.elements.model_name.value = modelName;
  if (agent) {
    form.elements.name.value = agent.name;
    form.elements.description.value = agent.description;
    form.elements.system_prompt.value = agent.system_prompt;
    form.elements.temperature.value = agent.temperature;
    form.elements.max_tokens.value = agent.max_tokens;
    form.elements.credential.value = agent.credential || "";
    form.elements.max_cost_per_day.value = agent.max_cost_per_day ?? "";
    form.elements.max_cost_per_turn.value = agent.max_cost_per_turn ?? "";
    form.elements.output_schema.value = agent.output_schema ? JSON.stringify(agent.output_schema, null, 2) : "";
  }
  fillPublishing(form, agent);
  fillSuggestions();
}

function splitModel(model) {
  const at = model.indexOf(":");
  return [model.slice(0, at), model.slice(at + 1)];
}

function modelString() {
  return `${form.elements.provider.value}:${form.elements.model_name.value.trim()}`;
}

function credentialValue() {
  return form.elements.credential.disabled ? null : form.elements.credential.value || null;
}

function capValue(name) {
  const raw = form.elements[name].value.trim();
  return raw === "" ? null : raw;
}

// Empty is no schema; text that is not JSON is refused here, next to the field.
function outputSchema() {
  const raw = form.elements.output_schema.value.trim();
  if (!raw) return null;
  try {
    return JSON.parse(raw);
  } catch {
    throw Object.assign(new Error("Not JSON."), { details: { output_schema: ["This is not valid JSON."] } });
  }
}

function body() {
  return {
    name: form.elements.name.value,
    description: form.elements.description.value,
    system_prompt: form.elements.system_prompt.value,
    temperature: Number(form.elements.temperature.value),
    max_tokens: Number(form.elements.max_tokens.value),
    model: modelString(),
    credential: credentialValue(),
    max_cost_per_day: capValue("max_cost_per_day"),
    max_cost_per_turn: capValue("max_cost_per_turn"),
    tool_flows: [...form.querySelectorAll("input[name=tool_flows]:checked")].map((box) => box.value),
    approval_flows: [...form.querySelectorAll("input[name=approval_flows]:checked")].map((box) => box.value),
    knowledge_bases: [...form.querySelectorAll("input[name=knowledge_bases]:checked")].map((box) => box.value),
    output_schema: outputSchema(),
    mcp_servers: serversValue(),
    ...publishingValue(form),
  };
}

function showProblems(error) {
  let placed = false;
  for (const [field, messages] of Object.entries(error.details || {})) {
    if (field === "mcp_servers" && showServerProblems(messages)) {
      placed = true;
      continue;
    }
    const text = Array.isArray(messages) ? messages.join(" ") : String(messages);
    placed = showError(`agent-${field}-error`, text) || placed;
  }
  if (!placed) showError("agent-error", error.message);
  const first = form.querySelector(".field-error:not([hidden]), .form-error:not([hidden])");
  if (first) first.scrollIntoView({ block: "center" });
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearErrors();
  const save = document.getElementById("agent-save");
  save.disabled = true;
  try {
    const saved = agent
      ? await api("PATCH", `/api/agents/${agent.id}`, body(), { "If-Match": `"${agent.version}"` })
      : await api("POST", "/api/agents", body());
    window.location.href = `/agents/${saved.id}/`;
  } catch (error) {
    if (error.status === 412) {
      showError("agent-error", `${error.message} Reload the page to see the saved settings, then make your change again.`);
    } else {
      showProblems(error);
    }
    save.disabled = false;
  }
});

form.elements.provider.addEventListener("change", () => {
  form.elements.model_name.value = (data.suggestions[form.elements.provider.value] || [""])[0];
  fillSuggestions();
});

document.getElementById("agent-test").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  const result = document.getElementById("agent-test-result");
  clearErrors();
  button.disabled = true;
  result.className = "muted";
  result.textContent = "Asking the model…";
  try {
    const answer = await api("POST", "/api/agents/test-connection", { model: modelString(), credential: credentialValue() });
    result.className = "ok";
    result.textContent = `Connected: it answered "${answer.reply}" in ${answer.latency_ms} ms.`;
  } catch (error) {
    result.className = "field-error";
    const details = error.details || {};
    result.textContent = (details.model || details.credential || [error.message]).join(" ");
  } finally {
    button.disabled = false;
  }
});

const deleteButton = document.getElementById("agent-delete");
if (deleteButton) {
  const dialog = document.getElementById("agent-delete-dialog");
  deleteButton.addEventListener("click", () => {
    showError("agent-delete-error", "");
    dialog.showModal();
  });
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "confirm") return;
    try {
      await api("DELETE", `/api/agents/${agent.id}`);
      window.location.href = "/agents/";
    } catch (error) {
      showError("agent-error", error.message);
    }
  });
}

const dollars = (value) => `$${value < 0.01 && value > 0 ? value.toFixed(6) : value.toFixed(2)}`;

// Cost per day as bars (SVG built with DOM calls, no markup from data), totals
// above and a row per user below.
async function showUsage() {
  const totals = document.getElementById("agent-usage-totals");
  let usage;
  try {
    usage = await api("GET", `/api/agents/${agent.id}/usage?days=30`);
  } catch (error) {
    totals.textContent = `Usage could not be loaded: ${error.message}`;
    return;
  }
  const t = usage.totals;
  if (!t.messages) {
    totals.textContent = "No messages in the last 30 days.";
    return;
  }
  totals.textContent = `${t.messages} model calls, ${t.input_tokens} tokens in, ${t.output_tokens} out, ${dollars(t.cost_usd)} in all.`;
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  svg.setAttribute("viewBox", "0 0 300 80");
  svg.setAttribute("preserveAspectRatio", "none");
  const top = Math.max(...usage.by_day.map((day) => day.cost_usd), 1e-9);
  usage.by_day.forEach((day, index) => {
    const bar = document.createElementNS(svgNs, "rect");
    const height = (day.cost_usd / top) * 76;
    bar.setAttribute("x", String(index * 10 + 1));
    bar.setAttribute("y", String(80 - height));
    bar.setAttribute("width", "8");
    bar.setAttribute("height", String(height));
    const title = document.createElementNS(svgNs, "title");
    title.textContent = `${day.day}: ${dollars(day.cost_usd)}, ${day.messages} calls`;
    bar.append(title);
    svg.append(bar);
  });
  document.getElementById("agent-usage-chart").append(svg);
  const table = document.getElementById("agent-usage-users");
  table.querySelector("tbody").replaceChildren(
    ...usage.by_user.map((row) => {
      const tr = document.createElement("tr");
      const who = row.user_id === null ? "Public visitors" : row.username;
      for (const value of [who, row.messages, row.input_tokens, row.output_tokens, dollars(row.cost_usd)]) {
        const td = document.createElement("td");
        td.textContent = String(value);
        tr.append(td);
      }
      return tr;
    }),
  );
  table.hidden = false;
}

fill();
if (agent) showUsage();
