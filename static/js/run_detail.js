// The run page of a queued, running or waiting run: a Cancel button, and the
// page follows the run (reloads once its status changes) until it has finished.
import { api } from "./api.js";

const live = document.getElementById("run-live");
const runId = live.dataset.runId;
const button = document.getElementById("run-cancel");
const error = document.getElementById("run-cancel-error");

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

setInterval(async () => {
  const run = await api("GET", `/api/runs/${runId}`).catch(() => null);
  if (run && run.status !== live.dataset.status) {
    window.location.reload();
  }
}, live.dataset.status === "waiting" ? 5000 : 1000);  // a wait may last days
