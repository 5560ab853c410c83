// Showing a run: its summary, its steps (status, logs, output) and the colours
// it paints on the canvas. Used by the run panel and by history.
import { api } from "../api.js";
import { LABELS, RETRYABLE, TITLES, wireAgain } from "../run_again.js";
import { container, dfIdOfNode, emit, flow, nodeElement, records, state } from "./context.js";
import { formatDuration, h, prettyJson } from "./dom.js";
import { fileList, withFilesAsText } from "./run_files.js";

const FINISHED = new Set(["succeeded", "failed", "timed_out", "cancelled", "interrupted"]);

export const RUN_CLASSES = ["run-succeeded", "run-failed", "run-skipped", "run-pending", "run-running"];

export function stepDuration(step) {
  return step.duration_ms ?? step.duration ?? null;
}

export function paintCanvas(steps) {
  container.querySelectorAll(".drawflow-node").forEach((element) => {
    element.classList.remove(...RUN_CLASSES);
    const badge = element.querySelector(".node-run");
    if (badge) badge.textContent = "";
  });
  for (const step of steps) {
    const dfId = dfIdOfNode(step.node_id);
    const element = dfId && nodeElement(dfId);
    if (!element) continue;
    element.classList.add(`run-${step.status}`);
    const badge = element.querySelector(".node-run");
    if (badge) {
      const took = stepDuration(step);
      badge.textContent = step.status + (took !== null && step.status !== "skipped" ? ` · ${formatDuration(took)}` : "");
    }
  }
}

/** Steps from the run detail; without it, derived from the run result alone. */
export function stepsOf(result, detail) {
  if (detail && Array.isArray(detail.steps)) return detail.steps;
  const steps = [];
  for (const [nodeId, output] of Object.entries(result.results || {})) {
    steps.push({ node_id: nodeId, status: "succeeded", output, logs: [], error: null });
  }
  if (result.error?.node_id) {
    steps.push({ node_id: result.error.node_id, status: "failed", output: null, logs: [], error: result.error });
  }
  return steps;
}

export function errorText(error) {
  if (!error) return "";
  if (typeof error === "string") return error;
  return [error.code, error.message].filter(Boolean).join(": ");
}

/** "Attempt 1 failed: http_status: …", "Attempt 2 succeeded" (a node that retried). */
export function attemptList(attempts) {
  return h("ol", { class: "step-attempts", "aria-label": "Attempts" }, attempts.map((attempt) =>
    h("li", { class: `status-${attempt.status}`, text: `Attempt ${attempt.attempt} ${attempt.status}` +
      (attempt.error ? `: ${errorText(attempt.error)}` : "") + ` (${formatDuration(attempt.duration_ms)})` })));
}

/** "Retry from failed node" (a run that failed) and "Re-run" for a finished
 * run: the new run is shown in `target` in its place; History reloads. */
function againBar(target, runId, status) {
  const error = h("span", { class: "field-error", role: "alert", hidden: true });
  const verbs = RETRYABLE.has(status) ? ["retry", "rerun"] : ["rerun"];
  const buttons = verbs.map((verb) => h("button", {
    type: "button", class: verb === "retry" ? "small primary" : "small", "data-again": verb, title: TITLES[verb], text: LABELS[verb],
  }));
  for (const button of buttons) {
    wireAgain(button, runId, error, async (result) => {
      const detail = await api("GET", `/api/runs/${result.run_id}`).catch(() => null);
      showRun(target, detail || result);
      emit("runs-changed");
    });
  }
  return h("div", { class: "run-again" }, buttons, error);
}

/**
 * Show `run` in `target` and paint its steps on the canvas; they become
 * `state.lastSteps`, whoever shows the run (the Run tab, History, a run
 * followed live, "Run this node"). Without `steps`, the run's own (a detail).
 */
export function showRun(target, run, steps = stepsOf(run, run)) {
  state.lastSteps = steps;
  const status = run.status || (run.success ? "succeeded" : "failed");
  const duration = run.duration ?? run.duration_ms;
  const runId = run.run_id || run.id;
  const summary = h("div", { class: "run-summary" },
    h("span", { class: `pill status-${status}`, "data-testid": "run-status", text: status.replace("_", " ") }),
    h("span", { class: "run-duration", text: `took ${formatDuration(duration)}` }),
    run.trigger ? h("span", { class: "muted", text: run.trigger }) : null,
    runId ? h("a", { href: `/runs/${runId}/`, class: "small-text", text: "Open run page" }) : null,
  );
  const children = [summary];
  if (runId && flow.may_run && FINISHED.has(status)) children.push(againBar(target, runId, status));
  if (run.error) {
    const failedName = records.get(dfIdOfNode(run.error.node_id))?.name || run.error.node_id;
    children.push(h("div", { class: "run-error", role: "alert" },
      h("strong", { text: failedName ? `${failedName} failed` : "The run failed" }),
      h("div", { text: errorText(run.error) })));
  }
  const list = h("ol", { class: "steps" });
  for (const step of steps) {
    const dfId = dfIdOfNode(step.node_id);
    const name = step.node_name || records.get(dfId)?.name || step.node_id;
    const item = h("li", { class: `step status-${step.status}`, "data-node-id": step.node_id });
    item.append(
      h("button", { type: "button", class: "step-head", title: "Show this node on the canvas", onclick: () => dfId && emit("select-node", dfId) },
        h("span", { class: "step-name", text: name }),
        h("span", { class: `pill status-${step.status}`, text: step.status }),
        h("span", { class: "muted", text: step.status === "skipped" ? "" : formatDuration(stepDuration(step)) })),
    );
    if (step.error) item.append(h("div", { class: "step-error", text: errorText(step.error) }));
    if (step.attempts?.length > 1) item.append(attemptList(step.attempts));
    if (step.logs && step.logs.length) {
      item.append(h("div", { class: "step-label", text: "Logs" }),
        h("pre", { class: "step-logs", text: step.logs.map((line) => (typeof line === "string" ? line : prettyJson(line))).join("\n") }));
    }
    if (step.status === "succeeded" || step.output !== null && step.output !== undefined) {
      item.append(...[
        h("div", { class: "step-label", text: "Output" }),
        fileList(runId, step.output),
        h("pre", { class: "step-output", text: prettyJson(withFilesAsText(step.output)) }),
      ].filter(Boolean));
    }
    list.append(item);
  }
  if (run.response) {
    children.push(h("div", { class: "run-response" },
      h("div", { class: "step-label", text: `Webhook response · HTTP ${run.response.status}` }),
      h("pre", { class: "step-output", text: prettyJson(run.response.body) })));
  }
  if (!steps.length) children.push(h("p", { class: "muted", text: "No node ran." }));
  children.push(list);
  target.replaceChildren(...children);
  paintCanvas(steps);
  emit("run-shown");
}
