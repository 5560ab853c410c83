// The run page's "Retry from failed node" and "Re-run": the new run's page
// opens once it has run.
import { wireAgain } from "./run_again.js";

const box = document.getElementById("run-again");
const error = document.getElementById("run-again-error");
for (const button of box?.querySelectorAll("button[data-again]") || []) {
  wireAgain(button, box.dataset.runId, error, (result) => {
    window.location.assign(`/runs/${result.run_id}/`);
  });
}
