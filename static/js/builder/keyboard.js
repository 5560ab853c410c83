// Builder-wide shortcuts: Ctrl+S saves; Delete removes the selection; Ctrl+D
// duplicates, Ctrl+A picks every node (clipboard.js); Ctrl+Z
// undoes, Ctrl+Shift+Z and Ctrl+Y redo (outside text fields, which keep their own).
import { editor } from "./context.js";
import { typingInField } from "./dom.js";
import { save } from "./save.js";
import { clearPicks, duplicateSelection, pickAll } from "./clipboard.js";
import { redo, undo } from "./undo.js";


// Capture phase, so Drawflow's own Delete handler never runs twice with ours.
window.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
    event.preventDefault();
    save();
    return;
  }
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && (key === "d" || key === "a") && !typingInField(event.target)) {
    event.preventDefault();
    if (key === "d") duplicateSelection();
    else pickAll();
    return;
  }
  if (key === "escape" && !typingInField(event.target)) clearPicks();
  if ((event.ctrlKey || event.metaKey) && (key === "z" || key === "y") && !typingInField(event.target)) {
    event.preventDefault();
    if (key === "y" || event.shiftKey) redo();
    else undo();
    return;
  }
  const deleting = event.key === "Delete" || (event.key === "Backspace" && event.metaKey);
  if (!deleting || typingInField(event.target)) return;
  if (editor.node_selected) {
    event.preventDefault();
    event.stopPropagation();
    editor.removeNodeId(editor.node_selected.id);
  } else if (editor.connection_selected) {
    event.preventDefault();
    event.stopPropagation();
    editor.removeConnection();
    editor.connection_selected = null;
  }
}, true);
