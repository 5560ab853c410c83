// A role that may not edit the flow (viewer, runner) sees it read only, from
// the role in the flow's own workspace: no palette, no undo, nodes neither
// dragged nor connected, the flow's and the nodes' fields disabled. Copy
// buttons, tabs, history and (for a runner) Run stay. The API refuses edits
// anyway; this only spares a viewer an editor whose work is refused at Save.
import { editor, flow } from "./context.js";
import { typingInField } from "./dom.js";
import { inspector } from "./inspector.js";

export const readOnly = !flow.may_edit;

function lock(root) {
  for (const control of root.querySelectorAll("input, select, textarea, button:not([data-copy])")) {
    control.disabled = true;
  }
  for (const editable of root.querySelectorAll("[contenteditable=true]")) {
    editable.setAttribute("contenteditable", "false");
  }
}

if (readOnly) {
  document.body.classList.add("read-only");
  editor.editor_mode = "view";
  document.querySelector(".palette-section").hidden = true;
  document.querySelector(".undo-controls").hidden = true;
  lock(document.querySelector(".left-panel"));
  new MutationObserver(() => lock(inspector)).observe(inspector, { childList: true, subtree: true });
  // The editing shortcuts (keyboard.js, clipboard.js, keyboard_access.js) go
  // nowhere: this module is imported first, so its capture listeners run first.
  window.addEventListener("keydown", blockEditingKeys, true);
  window.addEventListener("paste", (event) => event.stopImmediatePropagation(), true);
}

const EDITING_KEYS = new Set(["delete", "backspace", "arrowup", "arrowdown", "arrowleft", "arrowright"]);
const EDITING_SHORTCUTS = new Set(["s", "d", "x", "v", "z", "y"]);

function blockEditingKeys(event) {
  if (typingInField(event.target)) return;
  const key = event.key.toLowerCase();
  const shortcut = (event.ctrlKey || event.metaKey) && EDITING_SHORTCUTS.has(key);
  if (!shortcut && !EDITING_KEYS.has(key)) return;
  event.preventDefault();
  event.stopImmediatePropagation();
}
