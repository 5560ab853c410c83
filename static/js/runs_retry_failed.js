// The Runs page's "Retry all failed": queues a retry of each failed run the
// page's filters match (POST /api/runs/retry-failed with the same query, up
// to 100 a call) and says how many were queued and how many are left.
import { api } from "./api.js";

const box = document.getElementById("retry-failed");
const button = document.getElementById("retry-failed-button");
const result = document.getElementById("retry-failed-result");

button?.addEventListener("click", async () => {
  button.disabled = true;
  result.textContent = "Queueing retries…";
  try {
    const query = box.dataset.query ? `?${box.dataset.query}` : "";
    const answer = await api("POST", `/api/runs/retry-failed${query}`);
    const retries = (n) => `${n} ${n === 1 ? "retry" : "retries"}`;
    result.textContent = answer.queued
      ? `Queued ${retries(answer.queued)}` + (answer.left ? `; ${answer.left} left: press again for more.` : ".")
      : "No failed run to retry here (each is retried once).";
  } catch (failure) {
    result.textContent = failure.message;
  } finally {
    button.disabled = false;
  }
});
