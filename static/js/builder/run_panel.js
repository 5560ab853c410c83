// The Run tab: the JSON input, Run (saving first), progress, the result.
import { api } from "../api.js";
import { container, flow, isDirty } from "./context.js";
import { $, h, showText } from "./dom.js";
import { followRun, stopFollowing } from "./live_run.js";
import { paintCanvas, RUN_CLASSES, showRun, stepsOf } from "./run_view.js";
import { save } from "./save.js";
import { showTab } from "./tabs.js";

export const runInput = $("run-input");
export const runButton = $("run-button");
const runInBackground = $("run-background");

export function parseRunInput() {
  const text = runInput.value.trim();
  if (!text) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The input is not valid JSON: ${error.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("The input must be a JSON object, like {\"name\": \"Ada\"}.");
  }
  return value;
}

export async function runFlow() {
  if (runButton.disabled) return;
  let input;
  try {
    input = parseRunInput();
  } catch (error) {
    showText($("run-input-error"), error.message);
    runInput.classList.add("invalid");
    return;
  }
  showText($("run-input-error"), "");
  runInput.classList.remove("invalid");
  showTab("run");
  const result = $("run-result");
  if (isDirty() && !(await save())) {
    result.replaceChildren(h("p", { class: "form-error", text: "The flow could not be saved, so it did not run. See the message above the canvas." }));
    return;
  }
  stopFollowing();
  if (runInBackground.checked) {
    await startBackgroundRun(input, result);
    return;
  }
  runButton.disabled = true;
  const started = performance.now();
  const progress = $("run-progress");
  progress.hidden = false;
  const ticker = setInterval(() => {
    $("run-progress-text").textContent = `Running… ${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 100);
  $("run-progress-text").textContent = "Running…";
  result.replaceChildren();
  container.querySelectorAll(".drawflow-node").forEach((element) => {
    element.classList.remove(...RUN_CLASSES);
    element.classList.add("run-running");
  });
  try {
    const outcome = await api("POST", `/api/flows/${flow.id}/run?pins=true`, input);
    if (outcome.status === "waiting") {  // parked at a wait node: follow it
      await followRun(result, outcome.run_id);
      return;
    }
    let detail = null;
    try {
      detail = await api("GET", `/api/runs/${outcome.run_id}`);
    } catch (error) {
      detail = null;
    }
    const extra = detail ? { trigger: detail.trigger, response: detail.response } : {};
    showRun(result, { ...outcome, ...extra }, stepsOf(outcome, detail));
  } catch (error) {
    paintCanvas([]);
    result.replaceChildren(h("div", { class: "run-error", role: "alert" },
      h("strong", { text: "The run could not start" }), h("div", { text: error.message })));
  } finally {
    clearInterval(ticker);
    progress.hidden = true;
    runButton.disabled = false;
  }
}

/** Queue the run for a worker (202), then follow it live with a Cancel button. */
async function startBackgroundRun(input, result) {
  runButton.disabled = true;
  result.replaceChildren(h("p", { class: "muted", text: "Queueing the run…" }));
  try {
    const queued = await api("POST", `/api/flows/${flow.id}/run?pins=true`, input, { Prefer: "respond-async" });
    runButton.disabled = false;
    await followRun(result, queued.run_id);
  } catch (error) {
    paintCanvas([]);
    result.replaceChildren(h("div", { class: "run-error", role: "alert" },
      h("strong", { text: "The run could not start" }), h("div", { text: error.message })));
  } finally {
    runButton.disabled = false;
  }
}

runButton.addEventListener("click", runFlow);
runInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    runFlow();
  }
});
