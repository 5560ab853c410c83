// A run's data as a tree the user can read and drag from: every key a row,
// objects and arrays folded open a few levels deep. Dragging a row carries its
// `{{ path }}` reference as text, so dropping it on a text field inserts it at
// the drop point (the browser's own text drop); the code editor takes the bare
// path (`input.city`) from the drag's second type.
import { h } from "./dom.js";

const OPEN_DEPTH = 3;
const MAX_KEYS = 50;

/** "{{ results.fetch.items }}": the template reference of a path. */
export function reference(path) {
  return `{{ ${path} }}`;
}

function leafText(value) {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  return String(value);
}

function row(label, path, value, caption) {
  const key = h("span", {
    class: "tree-key", draggable: "true", "data-path": path, title: `Drag ${reference(path)} onto a setting`,
    ondragstart: (event) => {
      event.dataTransfer.setData("text/plain", reference(path));
      event.dataTransfer.setData("application/x-weir-path", path);
      event.dataTransfer.effectAllowed = "copy";
    },
  }, label, caption ? h("span", { class: "tree-caption", text: caption }) : null);
  if (value === null || typeof value !== "object") {
    return h("li", { class: "tree-leaf" }, key, h("span", { class: "tree-value", text: leafText(value) }));
  }
  return h("li", {}, branch(key, path, value, path.split(".").length));
}

function branch(summary, path, value, depth) {
  const entries = Object.entries(value);
  const shown = entries.slice(0, MAX_KEYS).map(([key, item]) => row(key, `${path}.${key}`, item));
  if (entries.length > MAX_KEYS) shown.push(h("li", { class: "muted", text: `… ${entries.length - MAX_KEYS} more` }));
  const count = entries.length;
  const kind = Array.isArray(value) ? `array of ${count}` : `${count} field${count === 1 ? "" : "s"}`;
  return h("details", { open: depth <= OPEN_DEPTH },
    h("summary", {}, summary, h("span", { class: "tree-value muted", text: kind })),
    h("ul", { class: "data-tree" }, shown));
}

/**
 * The tree of `roots`: [{path, label, caption, value}], e.g. `input`, or
 * `results.fetch` labelled with the node's name and its id underneath.
 */
export function dataTree(roots) {
  return h("ul", { class: "data-tree" }, roots.map(({ path, label, caption, value }) => row(label, path, value, caption)));
}
