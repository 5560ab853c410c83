// Following a queued, running or waiting run: its steps appear as the worker
// stores them, a waiting run shows its resume link, and a Cancel button stops
// it. Used by the Run tab and by History (any run that is not finished yet).
import { api } from "../api.js";
import { wireCancel } from "../run_cancel.js";
import { dfIdOfNode, records } from "./context.js";
import { h } from "./dom.js";
import { showRun } from "./run_view.js";

const POLL_MS = 500;
const WAITING_POLL_MS = 3000; // a wait may last days
export const ACTIVE = new Set(["queued", "running", "waiting"]);

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
  });
  wireCancel(button, error, runId);
  return h("div", { class: "button-row run-live-actions" }, button, error);
}

/** Where the run waits, and for a callback wait the link that resumes it. */
function waitNote(run) {
  const wait = run.wait || {};
  const name = records.get(dfIdOfNode(wait.node_id))?.name || wait.node_id || "a wait node";
  const until = wait.until ? new Date(wait.until).toLocaleString() : "";
  const note = h("div", { class: "run-wait", "data-testid": "run-waiting" },
    h("p", { text: wait.resume_url
      ? `Waiting at ${name} for an answer (until ${until}). The run holds no worker meanwhile.`
      : `Waiting at ${name} until ${until}. The run holds no worker meanwhile.` }));
  if (wait.resume_url) {
    note.append(
      h("label", { for: "run-resume-url", class: "step-label", text: "Resume link (opening it shows Approve and Reject)" }),
      h("input", { id: "run-resume-url", class: "mono", readonly: true, value: wait.resume_url, "data-testid": "run-resume-url" }),
      h("a", { href: wait.resume_url, target: "_blank", rel: "noopener", text: "Open the resume page" }));
  }
  return note;
}

function render(target, run) {
  showRun(target, run);
  if (run.status === "waiting") {
    target.prepend(waitNote(run), cancelButton(run.id, run));
  } else if (ACTIVE.has(run.status)) {
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
      mine.timer = setTimeout(tick, run.status === "waiting" ? WAITING_POLL_MS : POLL_MS);
    } else {
      stopFollowing();
      onFinal(run);
    }
  };
  await tick();
}
