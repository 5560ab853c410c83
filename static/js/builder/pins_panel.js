// Pinned outputs in the inspector (flows/graph/pins.py): pin a node's output from the
// last run shown, or type one as JSON; unpin; "Run this node" on the upstream
// nodes' pinned or last-run outputs. Pins are saved at once (PATCH pins), and
// only the builder's test runs use them.
import { api } from "../api.js";
import { kindOf } from "../graph_format.js";
import { flow, isDirty, kinds, nodeElement, records, state } from "./context.js";
import { $, h, prettyJson, showText } from "./dom.js";
import { showRun, stepsOf } from "./run_view.js";
import { adoptVersionIfGraphUnchanged, save } from "./save.js";
import { showTab } from "./tabs.js";

flow.pins = flow.pins || {};

/** Whether a node of this kind can be pinned: not a trigger, not a branch. */
function pinnable(kind) {
  return !kind.is_trigger && kind.output_handles.length === 1 && kind.output_handles[0] === null;
}

export function markPinnedNodes() {
  for (const [dfId, record] of records) {
    nodeElement(dfId)?.classList.toggle("pinned", Object.hasOwn(flow.pins, record.id));
  }
}

async function savePins(pins, errorBox) {
  showText(errorBox, "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { pins });
    flow.pins = updated.pins;
    await adoptVersionIfGraphUnchanged(updated);
    markPinnedNodes();
    return true;
  } catch (error) {
    showText(errorBox, error.details?.pins?.[0] || error.message);
    return false;
  }
}

async function runThisNode(nodeId, errorBox) {
  if (isDirty() && !(await save())) {
    showText(errorBox, "The flow could not be saved, so the node did not run.");
    return;
  }
  const target = $("run-result");
  showTab("run");
  target.replaceChildren(h("p", { class: "muted", text: "Running this node…" }));
  try {
    const outcome = await api("POST", `/api/flows/${flow.id}/nodes/${encodeURIComponent(nodeId)}/run`);
    const detail = await api("GET", `/api/runs/${outcome.run_id}`).catch(() => null);
    showRun(target, { ...outcome, trigger: detail?.trigger }, stepsOf(outcome, detail));
  } catch (error) {
    target.replaceChildren(h("p", { class: "form-error", role: "alert", text: error.message }));
  }
}

/** The inspector's "Pinned output" section for node `dfId`, or null. */
export function pinsSection(dfId, rerender) {
  const record = records.get(dfId);
  if (!pinnable(kindOf(kinds, record.type))) return null;
  const nodeId = record.id;
  const pinned = Object.hasOwn(flow.pins, nodeId);
  const errorBox = h("p", { class: "field-error", role: "alert", hidden: true });
  const editor = h("textarea", { class: "code-input mono", rows: "5", spellcheck: "false", id: `pin-${dfId}`,
    "aria-label": "Pinned output (JSON)" });
  editor.value = pinned ? prettyJson(flow.pins[nodeId]) : "";
  const last = state.lastSteps.find((step) => step.node_id === nodeId && step.status === "succeeded");
  const pinWith = async (value) => (await savePins({ ...flow.pins, [nodeId]: value }, errorBox)) && rerender();
  const buttons = [
    h("button", { type: "button", class: "small", text: pinned ? "Save pinned output" : "Pin this JSON",
      onclick: () => {
        let value;
        try {
          value = JSON.parse(editor.value);
        } catch (error) {
          showText(errorBox, `Not valid JSON: ${error.message}`);
          editor.setAttribute("aria-invalid", "true");
          return;
        }
        editor.removeAttribute("aria-invalid");
        pinWith(value);
      } }),
    !pinned && last ? h("button", { type: "button", class: "small", text: "Pin last output",
      onclick: () => pinWith(last.output) }) : null,
    pinned ? h("button", { type: "button", class: "small", text: "Unpin", onclick: async () => {
      const rest = { ...flow.pins };
      delete rest[nodeId];
      if (await savePins(rest, errorBox)) rerender();
    } }) : null,
    h("button", { type: "button", class: "small", text: "Run this node", onclick: () => runThisNode(nodeId, errorBox) }),
  ];
  return h("fieldset", { class: "pins", "data-testid": "pins" },
    h("legend", { class: "field-label", text: pinned ? "📌 Pinned output" : "Pinned output" }),
    h("p", { class: "hint", text: pinned
      ? "Test runs from the builder use this instead of running the node; webhooks and schedules never do."
      : "Pin an output to test the nodes after this one without running it." }),
    editor, errorBox, h("div", { class: "button-row" }, buttons));
}
