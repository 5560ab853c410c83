// The Runs page's chart: GET /api/runs/stats?range=24h|7d|30d drawn with uPlot
// (static/vendor/uplot, loaded as a classic script: window.uPlot). One chart of
// runs per bucket, stacked by status; one of the p50 and p95 run duration.
import { api } from "./api.js";

const STATUS_COLOURS = {
  succeeded: "#16a34a",
  failed: "#dc2626",
  timed_out: "#ea580c",
  running: "#2563eb",
  queued: "#94a3b8",
};
const RANGE_WORDS = { "24h": "24 hours", "7d": "7 days", "30d": "30 days" };

const countsBox = document.getElementById("chart-counts");
const durationsBox = document.getElementById("chart-durations");
const summary = document.getElementById("chart-summary");
const errorBox = document.getElementById("chart-error");
const emptyBox = document.getElementById("chart-empty");
const buttons = [...document.querySelectorAll("[data-range]")];
let charts = [];

function formatMs(ms) {
  if (ms === null || ms === undefined) return "–";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

// Axis ink and grid lines from the page's theme (static/css/theme.css).
function axis(extra = {}) {
  const style = getComputedStyle(document.documentElement);
  return { stroke: style.getPropertyValue("--muted").trim(), grid: { stroke: style.getPropertyValue("--line").trim() },
    ticks: { stroke: style.getPropertyValue("--line").trim() }, ...extra };
}

function chartWidth() {
  return Math.max(320, countsBox.parentElement.clientWidth - 48);
}

// Stacked bars: series k is drawn at the sum of statuses k..n, so each bar's
// visible slice is one status; the legend shows the status's own count.
// The time column of a legend: the hovered bucket's time, else the range.
function timeSeries(words) {
  return { label: "Time", value: (u, value) => (value === null ? `last ${words}` : new Date(value * 1000).toLocaleString()) };
}

function countsChart(stats, xs, words) {
  const statuses = stats.statuses.filter((status) => stats.counts[status] > 0);
  const own = statuses.map((status) => stats.buckets.map((b) => b.counts[status]));
  const stacked = own.map((_, k) =>
    stats.buckets.map((_, i) => own.slice(k).reduce((sum, row) => sum + row[i], 0) || null));
  const bars = uPlot.paths.bars({ size: [0.8, 40] });
  const series = [timeSeries(words), ...statuses.map((status, k) => ({
    label: status.replace("_", " "),
    fill: STATUS_COLOURS[status] || "#64748b",
    stroke: STATUS_COLOURS[status] || "#64748b",
    paths: bars,
    points: { show: false },
    // Without a hovered bar the legend shows the range's total for the status.
    value: (u, value, si, index) => (index === null ? stats.counts[status] : own[k][index]),
  }))];
  return new uPlot({
    width: chartWidth(),
    height: 200,
    series,
    axes: [axis(), axis({ label: "runs", size: 50 })],
    scales: { y: { range: (u, min, max) => [0, Math.max(1, max)] } },
  }, [xs, ...stacked], countsBox);
}

function durationsChart(stats, xs, words) {
  return new uPlot({
    width: chartWidth(),
    height: 160,
    series: [
      timeSeries(words),
      { label: "p50", stroke: "#2563eb", width: 2, spanGaps: true, value: (u, v, si, index) => formatMs(index === null ? stats.p50 : v) },
      { label: "p95", stroke: "#9333ea", width: 2, spanGaps: true, value: (u, v, si, index) => formatMs(index === null ? stats.p95 : v) },
    ],
    axes: [axis(), axis({ label: "ms", size: 60 })],
  }, [xs, stats.buckets.map((b) => b.p50), stats.buckets.map((b) => b.p95)], durationsBox);
}

async function show(range) {
  for (const button of buttons) {
    button.setAttribute("aria-pressed", String(button.dataset.range === range));
  }
  errorBox.hidden = true;
  let stats;
  try {
    stats = await api("GET", `/api/runs/stats?range=${encodeURIComponent(range)}`);
  } catch (error) {
    errorBox.textContent = `The chart could not be loaded: ${error.message}`;
    errorBox.hidden = false;
    summary.textContent = "";
    return;
  }
  for (const chart of charts) chart.destroy();
  charts = [];
  const words = RANGE_WORDS[range] || range;
  if (stats.total === 0) {
    summary.textContent = "";
    emptyBox.textContent = `No runs in the last ${words}.`;
    emptyBox.hidden = false;
    return;
  }
  emptyBox.hidden = true;
  const failed = (stats.counts.failed || 0) + (stats.counts.timed_out || 0);
  summary.textContent = `${stats.total} run${stats.total === 1 ? "" : "s"} in the last ${words}` +
    ` (${failed} failed or timed out) · p50 ${formatMs(stats.p50)} · p95 ${formatMs(stats.p95)}` +
    ` · per ${stats.bucket}`;
  const xs = stats.buckets.map((b) => Date.parse(b.start) / 1000);
  charts = [countsChart(stats, xs, words), durationsChart(stats, xs, words)];
}

for (const button of buttons) {
  button.addEventListener("click", () => show(button.dataset.range));
}
window.addEventListener("resize", () => {
  for (const chart of charts) chart.setSize({ width: chartWidth(), height: chart.height });
});
document.addEventListener("theme-changed", () => {
  const pressed = buttons.find((button) => button.getAttribute("aria-pressed") === "true");
  show(pressed?.dataset.range || "24h");
});
show(buttons[0]?.dataset.range || "24h");
