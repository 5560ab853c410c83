// The knowledge base page: while a document is queued or indexing, ask the API
// for the documents every second and show each one's status and progress.
const table = document.getElementById("document-table");
const LABELS = { queued: "Queued", indexing: "Indexing", ready: "Ready", failed: "Failed" };
const pending = (status) => status === "queued" || status === "indexing";

function show(row, found) {
  const pill = row.querySelector("[data-status]");
  pill.className = `pill status-${found.status}`;
  pill.textContent = LABELS[found.status] || found.status;
  row.querySelector("[data-progress]").textContent =
    found.status === "indexing" ? `${found.chunks_done} / ${found.chunks_total}` : `${found.chunks_total}`;
  const error = row.querySelector("[data-error]");
  error.textContent = found.error;
  error.hidden = !found.error;
}

async function refresh() {
  const response = await fetch(table.dataset.documentsUrl, { headers: { Accept: "application/json" } });
  if (!response.ok) return;
  const byId = new Map((await response.json()).map((found) => [found.id, found]));
  let waiting = false;
  for (const row of table.querySelectorAll("tr[data-document]")) {
    const found = byId.get(row.dataset.document);
    if (!found) continue;
    show(row, found);
    waiting ||= pending(found.status);
  }
  if (waiting) setTimeout(refresh, 1000);
}

if (table && [...table.querySelectorAll("[data-status]")].some((pill) => /status-(queued|indexing)/.test(pill.className))) {
  setTimeout(refresh, 1000);
}
