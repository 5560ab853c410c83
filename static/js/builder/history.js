// The History tab: the flow's latest runs; click one for its steps.
import { api } from "../api.js";
import { flow } from "./context.js";
import { $, formatDuration, formatTime, h, showText } from "./dom.js";
import { renderRun, stepsOf } from "./run_view.js";

export async function showHistoryRun(runId, row) {
  document.querySelectorAll("#history-rows tr").forEach((other) => other.classList.remove("current"));
  row?.classList.add("current");
  const target = $("history-detail");
  target.replaceChildren(h("p", { class: "muted", text: "Loading run…" }));
  try {
    const detail = await api("GET", `/api/runs/${runId}`);
    renderRun(target, detail, stepsOf(detail, detail));
  } catch (error) {
    target.replaceChildren(h("p", { class: "form-error", text: error.message }));
  }
}

export async function loadHistory() {
  const rows = $("history-rows");
  showText($("history-error"), "");
  try {
    const page = await api("GET", `/api/flows/${flow.id}/runs`);
    const runs = Array.isArray(page) ? page : page.results || [];
    rows.replaceChildren(...runs.map((run) => {
      const status = run.status;
      const row = h("tr", { class: "history-row", tabindex: "0", "data-run-id": run.id },
        h("td", {}, h("time", { datetime: run.created_at, text: formatTime(run.created_at) })),
        h("td", { text: run.trigger }),
        h("td", {}, h("span", { class: `pill status-${status}`, text: String(status).replace("_", " ") })),
        h("td", { class: "num", text: formatDuration(run.duration ?? run.duration_ms) }));
      row.addEventListener("click", () => showHistoryRun(run.id, row));
      row.addEventListener("keydown", (event) => { if (event.key === "Enter") showHistoryRun(run.id, row); });
      return row;
    }));
    $("history-empty").hidden = runs.length > 0;
  } catch (error) {
    showText($("history-error"), error.message);
  }
}
$("history-refresh").addEventListener("click", loadHistory);
