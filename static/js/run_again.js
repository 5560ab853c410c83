// "Re-run" and "Retry from failed node", on the run page and in the builder's
// Run and History tabs: POST /api/runs/:id/rerun or /retry. The new run runs
// now, as "Run flow" does, and its result goes to `shown`; a refusal (409: the
// run did not fail; 429/503: at capacity) is shown next to the buttons.
import { api } from "./api.js";

export const RETRYABLE = new Set(["failed", "timed_out", "interrupted"]);
export const LABELS = { rerun: "Re-run", retry: "Retry from failed node" };
export const TITLES = {
  rerun: "A new run with the same input, on the flow's current version: every node runs again",
  retry: "Run again from the node that failed; the nodes that succeeded do not run again, their outputs are reused",
};
const BUSY = { rerun: "Re-running…", retry: "Retrying…" };

// The button comes disabled from the server and is enabled once it works: a
// click before the script has run would do nothing.
export function wireAgain(button, runId, error, shown) {
  const verb = button.dataset.again;
  button.disabled = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    error.hidden = true;
    button.textContent = BUSY[verb];
    try {
      await shown(await api("POST", `/api/runs/${runId}/${verb}`));
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
      button.textContent = LABELS[verb];
    }
  });
}
