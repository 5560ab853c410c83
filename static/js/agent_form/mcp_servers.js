// The agent page's MCP servers: one row per server (name, URL, the credential
// sent as its Authorization or other header, allowed tools, timeout, whether
// its tools require approval), read
// back as the API's `mcp_servers` list. A 400 detail for a row shows under it.

const list = () => document.getElementById("agent-mcp-servers");

function input(labelText, name, value, attrs = {}) {
  const label = document.createElement("label");
  label.className = "mcp-field";
  const field = document.createElement("input");
  field.name = `mcp_${name}`;
  field.value = value ?? "";
  Object.assign(field, attrs);
  label.append(labelText, field);
  return label;
}

function credentialSelect(credentials, chosen) {
  const label = document.createElement("label");
  label.className = "mcp-field";
  const select = document.createElement("select");
  select.name = "mcp_credential";
  const none = new Option("None", "");
  select.append(none, ...credentials.map((c) => new Option(`${c.name} (${c.kind})`, c.id)));
  select.value = chosen || "";
  label.append("Credential", select);
  return label;
}

export function addServerRow(credentials, server = {}) {
  const item = document.createElement("li");
  item.className = "mcp-server";
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => {
    item.remove();
    document.getElementById("agent-no-mcp").hidden = list().children.length > 0;
  });
  const error = document.createElement("p");
  error.className = "field-error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  item.append(
    input("Server name", "name", server.name, { required: true, placeholder: "github", maxLength: 20 }),
    input("Server URL", "url", server.url, { required: true, type: "url", placeholder: "https://mcp.example.com/mcp" }),
    credentialSelect(credentials, server.credential),
    input("Allowed tools", "allowed_tools", (server.allowed_tools || []).join(", "), { placeholder: "all" }),
    input("Timeout (s)", "timeout_seconds", server.timeout_seconds ?? 300, { type: "number", min: 1, max: 3600 }),
    input("Its tools require approval", "requires_approval", "", { type: "checkbox", checked: Boolean(server.requires_approval) }),
    remove,
    error,
  );
  list().append(item);
  document.getElementById("agent-no-mcp").hidden = true;
  return item;
}

export function fillServers(credentials, servers) {
  list().replaceChildren();
  for (const server of servers || []) addServerRow(credentials, server);
  document.getElementById("agent-no-mcp").hidden = (servers || []).length > 0;
  document.getElementById("agent-add-mcp").addEventListener("click", () => {
    addServerRow(credentials).querySelector("input").focus();
  });
}

export function serversValue() {
  return [...list().children].map((row) => {
    const value = (name) => row.querySelector(`[name=mcp_${name}]`).value.trim();
    return {
      name: value("name"),
      url: value("url"),
      credential: value("credential") || null,
      allowed_tools: value("allowed_tools").split(",").map((t) => t.trim()).filter(Boolean),
      timeout_seconds: Number(value("timeout_seconds") || 300),
      requires_approval: row.querySelector("[name=mcp_requires_approval]").checked,
    };
  });
}

// A field's messages: a list, or for a list field (allowed_tools) an object
// of lists by item index.
const messagesOf = (problem) =>
  typeof problem === "object" && !Array.isArray(problem)
    ? Object.values(problem).flatMap(messagesOf)
    : [].concat(problem);

// `details` is {index: {field: [messages]}} for rows, or a list for the whole.
export function showServerProblems(details) {
  const rows = [...list().children];
  for (const row of rows) row.querySelector(".field-error").hidden = true;
  if (Array.isArray(details)) return false;
  for (const [index, problems] of Object.entries(details)) {
    const row = rows[Number(index)];
    if (!row) continue;
    const error = row.querySelector(".field-error");
    error.textContent = Object.entries(problems)
      .map(([field, messages]) => `${field}: ${messagesOf(messages).join(" ")}`)
      .join(" ");
    error.hidden = false;
  }
  return true;
}
