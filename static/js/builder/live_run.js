// Following a queued or running run: its steps appear as the worker stores
// them, and a Cancel button stops it. Used by the Run tab (background runs)
// and by History (any run that is not finished yet).
import { api } from "../api.js";
import { h } from "./dom.js";
import { renderRun, stepsOf } from "./run_view.js";

const POLL_MS = 500;
export const ACTIVE = new Set(["queued", "running"]);

let following = null; // the one run followed at a time: {runId, timer, target}

export function stopFollowing() {
  if (following) clearTimeout(following.timer);
  following = null;
}

function cancelButton(runId, run) {
  const error = h("span", { class: "field-error", role: "alert", hidden: true });
  const button = h("button", {
    type: "button",
    class: "small danger",
    "data-testid": "run-cancel",
    disabled: run.cancel_requested || undefined,
    text: run.cancel_requested ? "Cancelling…" : "Cancel run",
    onclick: async () => {
      button.disabled = true;
      error.hidden = true;
      try {
        await api("POST", `/api/runs/${runId}/cancel`);
        button.textContent = "Cancelling…";
      } catch (failure) {
        error.textContent = failure.message;
        error.hidden = false;
        button.disabled = false;
      }
    },
  });
  return h("div", { class: "button-row run-live-actions" }, button, error);
}

function render(target, run) {
  renderRun(target, run, stepsOf(run, run));
  if (ACTIVE.has(run.status)) {
    const note = run.status === "queued"
      ? "Waiting for a worker… steps appear here as they finish."
      : "Running… steps appear here as they finish.";
    target.prepend(h("p", { class: "progress", "data-testid": "run-live" },
      h("span", { class: "spinner", "aria-hidden": "true" }), h("span", { text: note })),
    cancelButton(run.id, run));
  }
}

/**
 * Show run `runId` in `target` and keep it current until it has finished;
 * `onFinal(run)` is called once with the finished run.
 */
export async function followRun(target, runId, onFinal = () => {}) {
  stopFollowing();
  const mine = { runId, timer: null, target };
  following = mine;
  const tick = async () => {
    let run;
    try {
      run = await api("GET", `/api/runs/${runId}`);
    } catch (error) {
      if (following !== mine) return;
      target.replaceChildren(h("p", { class: "form-error", role: "alert", text: error.message }));
      stopFollowing();
      return;
    }
    if (following !== mine) return; // another run was chosen meanwhile
    render(target, run);
    if (ACTIVE.has(run.status)) {
      mine.timer = setTimeout(tick, POLL_MS);
    } else {
      stopFollowing();
      onFinal(run);
    }
  };
  await tick();
}
