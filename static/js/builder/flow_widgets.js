// Widgets for the node kinds that refer to flows or carry their own outputs:
// "flow" (a select of the user's other flows, call_flow and for_each) and
// "cases" (a switch's output names and expressions, one row per output port).
import { api } from "../api.js";
import { flow as thisFlow } from "./context.js";
import { h } from "./dom.js";

let flowsCache = null;
/** The user's flows, up to 100 (one page of GET /api/flows), this one excluded. */
export async function loadFlows() {
  if (!flowsCache) {
    flowsCache = api("GET", "/api/flows?page_size=100").then((page) =>
      (Array.isArray(page) ? page : page.results || []).filter((item) => item.id !== thisFlow.id));
  }
  return flowsCache;
}

export function flowSelect(value, onChange) {
  const input = h("select", { onchange: () => onChange(input.value) },
    h("option", { value: "", text: "Choose a flow…" }));
  if (value) input.append(h("option", { value, text: value }));
  input.value = value ?? "";
  loadFlows().then((flows) => {
    input.replaceChildren(h("option", { value: "", text: flows.length ? "Choose a flow…" : "No other flows yet" }));
    for (const item of flows) input.append(h("option", { value: item.id, text: item.name }));
    if (value && !flows.some((item) => item.id === value)) input.append(h("option", { value, text: "Missing flow" }));
    input.value = value ?? "";
  }).catch(() => {});
  return { element: input, input };
}

/** A switch's cases: each row is an output (its port on the canvas) and its expression. */
export function casesEditor(value, onChange) {
  const rows = h("div", { class: "kv-rows" });
  const emit = () => {
    onChange([...rows.querySelectorAll(".kv-row")].map((row) => {
      const [handle, expression] = row.querySelectorAll("input");
      return { handle: handle.value.trim(), expression: expression.value };
    }));
  };
  const addRow = (handle = "", expression = "") => {
    const handleInput = h("input", { class: "mono case-handle", placeholder: "output", "aria-label": "Output name", oninput: emit });
    const expressionInput = h("input", { class: "mono", placeholder: "input.amount > 100", "aria-label": "Expression", oninput: emit });
    handleInput.value = handle;
    expressionInput.value = expression;
    const remove = h("button", {
      type: "button", class: "small icon", "aria-label": "Remove case", text: "×",
      onclick: () => { row.remove(); emit(); },
    });
    const row = h("div", { class: "kv-row" }, handleInput, expressionInput, remove);
    rows.append(row);
    return handleInput;
  };
  for (const item of Array.isArray(value) ? value : []) addRow(item?.handle ?? "", item?.expression ?? "");
  const add = h("button", { type: "button", class: "small", text: "Add case", onclick: () => {
    const input = addRow(`case_${rows.children.length + 1}`, "");
    emit();
    input.focus();
  } });
  return { element: h("div", { class: "kv" }, rows, add), input: rows };
}
