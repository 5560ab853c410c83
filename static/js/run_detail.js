// The run page of a queued, running or waiting run: a Cancel button, and the
// page follows the run (reloads once its status changes) until it has finished.
import { api } from "./api.js";
import { wireCancel } from "./run_cancel.js";

const live = document.getElementById("run-live");
const runId = live.dataset.runId;
const cancel = document.getElementById("run-cancel"); // absent for a role that may not
if (cancel) wireCancel(cancel, document.getElementById("run-cancel-error"), runId);

setInterval(async () => {
  const run = await api("GET", `/api/runs/${runId}`).catch(() => null);
  if (run && run.status !== live.dataset.status) {
    window.location.reload();
  }
}, live.dataset.status === "waiting" ? 5000 : 1000);  // a wait may last days
