// `{{ }}` template fields in the inspector (any text input or textarea): as the
// user types, completions of `input.`, `prev.` and `results.` paths from the
// last run shown (a listbox: arrows choose, Enter or Tab takes, Escape closes),
// and a live preview of the filled-in text. Plain paths are filled in here, as
// the engine's fast path does; other expressions show as "‹…›" (they are
// evaluated in the sandbox when the flow runs).
import { samples } from "./code_editor.js";
import { h } from "./dom.js";
import { inspector } from "./inspector.js";
import { dfIdOfNode, records, state } from "./context.js";

const PATH = /^(input|prev|results)(\.[\w$]+)*$/;
const TYPING = /\{\{\s*((?:input|prev|results)(?:\.[\w$]*)+)$/;
let list = null; // the open listbox: {element, field, options, index, from}

/** A node's name by its id (`results.<id>` names a node by id). */
function nodeName(id) {
  return records.get(dfIdOfNode(id))?.name || null;
}

function nodeId() {
  return records.get(state.selected)?.id;
}

function lookup(path, data) {
  const [root, ...keys] = path.split(".");
  let value = data[root];
  for (const key of keys) value = value?.[key];
  return value;
}

function preview(text, data) {
  return text.replace(/\{\{\s*(.*?)\s*\}\}/g, (_, expression) => {
    if (!PATH.test(expression)) return `‹${expression}›`;
    const value = lookup(expression, data);
    if (value === undefined) return "";
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

const previews = new WeakMap(); // field -> its preview line
const referenceLines = new WeakMap(); // field -> its "Refers to" line

/** Under a field that reads other nodes' results: their names, ids after them. */
function showReferences(field) {
  const ids = [...new Set([...field.value.matchAll(/\{\{[^}]*?\bresults\.([\w$]+)/g)].map((match) => match[1]))];
  const named = ids.filter((id) => nodeName(id)).map((id) => `${nodeName(id)} (${id})`);
  let line = referenceLines.get(field);
  if (!named.length) {
    line?.remove();
    referenceLines.delete(field);
    return;
  }
  if (!line?.isConnected) {
    line = h("p", { class: "template-refs hint" });
    field.after(line);
    referenceLines.set(field, line);
  }
  line.textContent = `Refers to ${named.join(", ")}`;
}

function showPreview(field, data) {
  let box = previews.get(field);
  if (!field.value.includes("{{")) {
    box?.remove();
    previews.delete(field);
    return;
  }
  if (!box?.isConnected) {
    box = h("p", { class: "template-preview hint", "aria-live": "polite" });
    field.after(box);
    previews.set(field, box);
  }
  const haveRun = state.lastSteps.length > 0;
  box.textContent = haveRun ? `Preview (last run): ${preview(field.value, data)}` : "Run the flow once to preview this template.";
}

function close() {
  list?.element.remove();
  list = null;
}

function choose(index) {
  const { field, options, from } = list;
  const before = field.value.slice(0, from) + options[index];
  field.value = before + field.value.slice(field.selectionStart);
  field.selectionStart = field.selectionEnd = before.length;
  close();
  field.dispatchEvent(new Event("input", { bubbles: true }));
}

function render() {
  // Under `results.` the options are node ids: the node's name shows, its id under it.
  const named = (option) => (list.nodes && nodeName(option)) || null;
  list.element.replaceChildren(...list.options.map((option, index) =>
    h("li", { role: "option", id: `template-option-${index}`, "aria-selected": String(index === list.index),
      class: index === list.index ? "active" : "",
      onmousedown: (event) => { event.preventDefault(); choose(index); } },
    named(option) ?? option, named(option) ? h("span", { class: "option-id", text: option }) : null)));
  list.field.setAttribute("aria-activedescendant", `template-option-${list.index}`);
}

function suggest(field, data) {
  const typed = field.value.slice(0, field.selectionStart).match(TYPING);
  const parts = typed ? typed[1].split(".") : [];
  const parent = typed ? lookup(parts.slice(0, -1).join("."), data) : null;
  const partial = parts[parts.length - 1] ?? "";
  const options = parent && typeof parent === "object"
    ? Object.keys(parent).filter((key) => key.startsWith(partial)) : [];
  if (!options.length) return close();
  if (list?.field !== field) {
    close();
    list = { element: h("ul", { class: "template-options", role: "listbox", "aria-label": "Fields of the last run" }), field };
    field.after(list.element);
  }
  Object.assign(list, { options, index: 0, from: field.selectionStart - partial.length, nodes: parts.length === 2 && parts[0] === "results" });
  render();
}

inspector.addEventListener("input", (event) => {
  const field = event.target;
  if (!field.matches("input:not([type]), input[type=text], textarea") || !nodeId()) return;
  const data = samples(nodeId());
  showPreview(field, data);
  showReferences(field);
  suggest(field, data);
});

inspector.addEventListener("keydown", (event) => {
  if (!list || event.target !== list.field) return;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const step = event.key === "ArrowDown" ? 1 : -1;
    list.index = (list.index + step + list.options.length) % list.options.length;
    render();
  } else if (event.key === "Enter" || event.key === "Tab") {
    event.preventDefault();
    choose(list.index);
  } else if (event.key === "Escape") {
    event.preventDefault();
    event.stopPropagation();
    close();
  }
});

inspector.addEventListener("focusout", () => setTimeout(() => {
  if (list && document.activeElement !== list.field) close();
}));
