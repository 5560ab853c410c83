// Run files in the run panel (docs/engine.md, "Files"): a `$file` marker in
// a step's output is shown as its name, type and size with a download link,
// not as the raw marker. The link is an ordinary <a download>, so it is in
// the tab order and Enter follows it; the API answers it as an attachment.
import { h } from "./dom.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isFile(value) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const inner = value.$file;
  return keys.length === 1 && inner && typeof inner === "object" && UUID.test(String(inner.id));
}

/** Every marker in a JSON value, each file once, in order. */
export function filesIn(value, found = new Map()) {
  if (isFile(value)) found.set(value.$file.id, value.$file);
  else if (Array.isArray(value)) value.forEach((item) => filesIn(item, found));
  else if (value && typeof value === "object") Object.values(value).forEach((item) => filesIn(item, found));
  return [...found.values()];
}

export function formatSize(bytes) {
  if (typeof bytes !== "number") return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The value with each marker as a short text, for the JSON shown beside. */
export function withFilesAsText(value) {
  if (isFile(value)) return `[file ${value.$file.name}]`;
  if (Array.isArray(value)) return value.map(withFilesAsText);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withFilesAsText(item)]));
  }
  return value;
}

/** The files of a step's output as a list of download links (null: none). */
export function fileList(runId, value) {
  const files = filesIn(value);
  if (!files.length || !runId) return null;
  return h("ul", { class: "step-files", "aria-label": "Files" }, files.map((file) => {
    const facts = [file.type, formatSize(file.size)].filter(Boolean).join(" · ");
    return h("li", { class: "step-file" },
      h("a", {
        href: `/api/runs/${encodeURIComponent(runId)}/files/${encodeURIComponent(file.id)}`,
        download: String(file.name || "file"),
        "aria-label": `Download ${file.name} (${facts})`,
        text: String(file.name || "file"),
      }),
      h("span", { class: "muted", text: ` ${facts}` }));
  }));
}
