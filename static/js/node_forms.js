// What the inspector shows for each node kind: default `data` for a new node and
// the form fields that edit it. `path` is where the value lives in the node
// ("name" or "data.<key>"), and is also the `field` the API names in a
// validation error, so errors land next to the right input.

export const DEFAULT_DATA = {
  webhook: () => ({ method: "POST" }),
  code: () => ({
    language: "javascript",
    code: "// `input` is the flow's input, `prev` the upstream node's output.\nreturn { greeting: 'hi ' + input.name };",
  }),
  condition: () => ({ expression: "input.amount > 100" }),
  transform: () => ({ values: { greeting: "Hello {{ input.name }}" } }),
  http_request: () => ({ method: "GET", url: "https://example.com/", headers: {}, body: null, timeout_ms: 10000 }),
  agent: () => ({ agent_id: "", message: "{{ input.message }}" }),
  delay: () => ({ ms: 1000 }),
  response: () => ({ status: 200, headers: {}, body: { ok: true } }),
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

export const FORM_FIELDS = {
  webhook: [
    { path: "data.method", label: "Method", widget: "select", options: ["POST"],
      help: "The webhook accepts POST with a JSON object body; the body is the flow's input." },
  ],
  code: [
    { path: "data.code", label: "JavaScript", widget: "code",
      help: "Use input, prev and results; return any JSON value. console.log lines appear in the run's logs." },
  ],
  condition: [
    { path: "data.expression", label: "Expression", widget: "text", mono: true,
      help: "A JavaScript expression. True follows the true output, false the false output." },
  ],
  transform: [
    { path: "data.values", label: "Values", widget: "keyvalue",
      help: "Each value is a template: {{ input.name }}, {{ prev.total }}." },
  ],
  http_request: [
    { path: "data.method", label: "Method", widget: "select", options: METHODS },
    { path: "data.url", label: "URL", widget: "text", mono: true, help: "Templates allowed: https://api.example.com/{{ input.id }}" },
    { path: "data.headers", label: "Headers", widget: "keyvalue" },
    { path: "data.body", label: "Body", widget: "json", help: "JSON, or plain text. Templates allowed inside strings." },
    { path: "data.timeout_ms", label: "Timeout (ms)", widget: "number", min: 1 },
    { path: "data.credential_id", label: "Credential", widget: "credential",
      help: "Sent as its header, bearer token, basic auth or query parameter. Manage them on the Credentials page." },
  ],
  agent: [
    { path: "data.agent_id", label: "Agent", widget: "agent" },
    { path: "data.message", label: "Message", widget: "textarea", help: "Templates allowed: {{ input.question }}" },
    { path: "data.credential_id", label: "API key credential", widget: "credential", kinds: ["bearer", "header"],
      help: "Optional: the provider key for this node; empty uses the agent's own." },
  ],
  delay: [
    { path: "data.ms", label: "Wait (ms)", widget: "number", min: 0 },
  ],
  response: [
    { path: "data.status", label: "HTTP status", widget: "number-or-template",
      help: "200-599, or a template such as {{ input.status }} (checked when the flow runs)." },
    { path: "data.headers", label: "Headers", widget: "keyvalue" },
    { path: "data.body", label: "Body", widget: "json", help: "JSON, or plain text. Templates allowed inside strings." },
  ],
};

export function fieldsFor(type) {
  return FORM_FIELDS[type] || [{ path: "data", label: "Data (JSON)", widget: "json-object" }];
}
