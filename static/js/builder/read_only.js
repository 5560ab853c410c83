// A role that may not edit the flow (viewer, runner) sees it read only, from
// the role in the flow's own workspace: no palette, no undo, nodes neither
// dragged nor connected, the flow's and the nodes' fields disabled. Copy
// buttons, tabs, history and (for a runner) Run stay. The API refuses edits
// anyway; this only spares a viewer an editor whose work is refused at Save.
import { editor, flow } from "./context.js";
import { $ } from "./dom.js";
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
}
