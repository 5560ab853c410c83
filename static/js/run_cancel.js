// The Cancel button of a queued or running run, on the run page and in the
// builder alike: it asks once (POST /api/runs/:id/cancel), says "Cancelling…"
// until the run stops, and shows a refusal next to itself.
import { api } from "./api.js";

export function wireCancel(button, error, runId) {
  button.addEventListener("click", async () => {
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
  });
}
