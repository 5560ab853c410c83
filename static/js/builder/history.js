// The History tab: the flow's runs, page by page, filtered by status, trigger
// and date; click one for its steps. Unfinished runs are followed live.
import { api } from "../api.js";
import { flow, on } from "./context.js";
import { $, formatDuration, formatTime, h, showText } from "./dom.js";
import { ACTIVE, followRun, stopFollowing } from "./live_run.js";
import { showRun } from "./run_view.js";

const REFRESH_MS = 2000; // while the page shows unfinished runs
const filters = $("history-filters");
const view = { page: 1, refresh: null };

export async function showHistoryRun(runId, row) {
  document.querySelectorAll("#history-rows tr").forEach((other) => other.classList.remove("current"));
  row?.classList.add("current");
  const target = $("history-detail");
  target.replaceChildren(h("p", { class: "muted", text: "Loading run…" }));
  stopFollowing();
  try {
    const detail = await api("GET", `/api/runs/${runId}`);
    if (ACTIVE.has(detail.status)) {
      await followRun(target, runId, () => loadHistory());
    } else {
      showRun(target, detail);
    }
  } catch (error) {
    target.replaceChildren(h("p", { class: "form-error", text: error.message }));
  }
}

function query() {
  const params = new URLSearchParams({ page: String(view.page) });
  for (const [name, value] of new FormData(filters)) {
    if (value) params.set(name, value);
  }
  return params;
}

function historyRow(run) {
  const status = run.status;
  const row = h("tr", { class: "history-row", tabindex: "0", "data-run-id": run.id },
    h("td", {}, h("time", { datetime: run.created_at, text: formatTime(run.created_at) })),
    h("td", { text: run.trigger }),
    h("td", {}, h("span", { class: `pill status-${status}`, text: String(status).replace("_", " ") })),
    h("td", { class: "num", text: formatDuration(run.duration ?? run.duration_ms) }));
  row.addEventListener("click", () => showHistoryRun(run.id, row));
  row.addEventListener("keydown", (event) => { if (event.key === "Enter") showHistoryRun(run.id, row); });
  return row;
}

function showPager(page, count) {
  const pages = Math.max(1, Math.ceil(count / 20));
  $("history-pager").hidden = pages <= 1;
  $("history-page-text").textContent = `Page ${view.page} of ${pages} · ${count} runs`;
  $("history-newer").disabled = !page.previous;
  $("history-older").disabled = !page.next;
}

export async function loadHistory() {
  clearTimeout(view.refresh);
  const rows = $("history-rows");
  showText($("history-error"), "");
  try {
    const page = await api("GET", `/api/flows/${flow.id}/runs?${query()}`);
    const runs = page.results || [];
    const current = rows.querySelector("tr.current")?.dataset.runId;
    rows.replaceChildren(...runs.map(historyRow));
    if (current) rows.querySelector(`tr[data-run-id="${CSS.escape(current)}"]`)?.classList.add("current");
    const filtered = [...new FormData(filters).values()].some(Boolean);
    const empty = $("history-empty");
    empty.textContent = filtered
      ? "No run matches these filters."
      : "No runs yet. Run the flow, or call its webhook URL.";
    empty.hidden = runs.length > 0;
    showPager(page, page.count ?? runs.length);
    if (runs.some((run) => ACTIVE.has(run.status)) && !$("pane-history").hidden) {
      view.refresh = setTimeout(loadHistory, REFRESH_MS);
    }
  } catch (error) {
    showText($("history-error"), error.message);
    if (error.details) {
      for (const [name, messages] of Object.entries(error.details)) {
        filters.elements[name]?.setAttribute("aria-invalid", "true");
        if (messages?.length) showText($("history-error"), messages[0]);
      }
    }
  }
}

function turnPage(delta) {
  view.page = Math.max(1, view.page + delta);
  loadHistory();
}

filters.addEventListener("change", () => {
  filters.querySelectorAll("[aria-invalid]").forEach((field) => field.removeAttribute("aria-invalid"));
  view.page = 1;
  loadHistory();
});
filters.addEventListener("submit", (event) => event.preventDefault());
$("history-refresh").addEventListener("click", loadHistory);
on("tab-shown", (name) => name === "history" && loadHistory());
on("runs-changed", () => !$("pane-history").hidden && loadHistory());
$("history-newer").addEventListener("click", () => turnPage(-1));
$("history-older").addEventListener("click", () => turnPage(1));
