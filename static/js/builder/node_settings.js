// Node-level settings beside `data` (docs/api.md): how a node with inputs
// merges them (`wait`), how it retries (`retry`) and whether a failure leaves
// through its red `error` port (`error_output`). The inspector shows them after
// the kind's own fields; paths are "wait", "error_output" and "retry.<key>".
import { handlesOf, kindClass, kindOf } from "../graph_format.js";
import { editor, kinds, nodeElement } from "./context.js";

export const WAIT_FIELD = {
  path: "wait",
  label: "Runs when",
  widget: "select",
  options: ["all", "any"],
  help: "all: once every incoming connection has fired (a node fed by both branches of a condition is skipped). any: once one has; use it to merge branches.",
};

export const ERROR_FIELD = {
  path: "error_output",
  label: "Error output",
  widget: "checkbox",
  help: "Adds a red error port: when the node fails (after its retries), its error {code, message, node_id} flows out there and the run goes on.",
};

const RETRY = "Retry on failure";

export const RETRY_FIELDS = [
  { group: RETRY, path: "retry.max_attempts", label: "Attempts", widget: "number", min: 1, max: 10,
    help: "1 (or empty) runs the node once; up to 10 tries it again after a failure." },
  { group: RETRY, path: "retry.backoff", label: "Backoff", widget: "select", options: ["fixed", "exponential"],
    help: "fixed: every wait is the delay below. exponential: it doubles after each attempt (at most 60 s)." },
  { group: RETRY, path: "retry.delay_ms", label: "Wait before retrying (ms)", widget: "number", min: 0, max: 60000 },
  { group: RETRY, path: "retry.on", label: "Retry on", widget: "text",
    help: "Error codes and HTTP statuses, comma-separated (http_error, 503, 5xx). Empty: any error." },
];

/** The form value of a node-level setting, or undefined when `path` is not one. */
export function getSetting(record, path) {
  if (path === "wait" || path === "error_output") return record[path];
  if (!path.startsWith("retry.")) return undefined;
  const value = record.retry?.[path.slice("retry.".length)];
  return path === "retry.on" && Array.isArray(value) ? value.join(", ") : value;
}

export function isSetting(path) {
  return path === "wait" || path === "error_output" || path.startsWith("retry.");
}

/** Store a setting; an empty value removes it, and an empty `retry` goes. */
export function setSetting(record, path, value) {
  if (path === "wait") {
    record.wait = value;
    return;
  }
  if (path === "error_output") {
    if (value === true) record.error_output = true;
    else delete record.error_output;
    return;
  }
  const key = path.slice("retry.".length);
  const retry = { ...(record.retry || {}) };
  if (key === "on") {
    const items = String(value ?? "").split(",").map((item) => item.trim()).filter(Boolean);
    value = items.length ? items.map((item) => (/^\d+$/.test(item) ? Number(item) : item)) : null;
  }
  if (value === null || value === undefined || value === "") delete retry[key];
  else retry[key] = value;
  if (Object.keys(retry).length) record.retry = retry;
  else delete record.retry;
}

/** Give node `dfId` its error port, or take it away (with its connections). */
export function syncErrorPort(dfId, record) {
  const entry = editor.drawflow.drawflow.Home.data[dfId];
  const count = Object.keys(entry.outputs).length;
  const wanted = handlesOf(kindOf(kinds, record.type), record).length;
  for (let ports = count; ports < wanted; ports++) editor.addNodeOutput(dfId);
  for (let ports = count; ports > wanted; ports--) editor.removeNodeOutput(dfId, `output_${ports}`);
  const on = record.error_output === true;
  entry.class = kindClass(record.type) + (on ? " with-error-output" : "");
  nodeElement(dfId)?.classList.toggle("with-error-output", on);
}
