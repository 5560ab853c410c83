// Keyboard access to the canvas. Every node is a focusable button labelled with
// its kind and name: focusing it selects it, the arrow keys move it (Shift: by
// 50 px), Enter opens its settings in the inspector, Delete removes it.
// Connections are made and removed from the inspector's Connections menu
// (connect_menu.js), so nothing needs a mouse drag.
import { container, editor, graphListeners, markChanged, nodeElement, records, state } from "./context.js";
import { selectNode } from "./inspector.js";
import { showTab } from "./tabs.js";

const STEP = 10;
const BIG_STEP = 50;

/** Give every node on the canvas its tab stop and its button role. */
export function labelNodes() {
  for (const dfId of records.keys()) {
    const element = nodeElement(dfId);
    if (!element) continue;
    element.tabIndex = 0;
    element.setAttribute("role", "button"); // named by its text: kind, name, handles, run status
  }
}

function moveNode(dfId, dx, dy) {
  const entry = editor.drawflow.drawflow.Home.data[dfId];
  const element = nodeElement(dfId);
  if (!entry || !element) return;
  entry.pos_x += dx;
  entry.pos_y += dy;
  element.style.left = `${entry.pos_x}px`;
  element.style.top = `${entry.pos_y}px`;
  editor.updateConnectionNodes(`node-${dfId}`);
  markChanged({ coalesce: `move|${dfId}` });
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

container.addEventListener("focusin", (event) => {
  const element = event.target.closest?.(".drawflow-node");
  if (!element || event.target !== element) return;
  const dfId = element.id.replace("node-", "");
  if (state.selected !== dfId) selectNode(dfId);
});

container.addEventListener("keydown", (event) => {
  const element = event.target.closest?.(".drawflow-node");
  if (!element || event.target !== element) return;
  const dfId = element.id.replace("node-", "");
  if (ARROWS[event.key]) {
    event.preventDefault();
    const [x, y] = ARROWS[event.key];
    const step = event.shiftKey ? BIG_STEP : STEP;
    moveNode(dfId, x * step, y * step);
  } else if (event.key === "Enter") {
    event.preventDefault();
    selectNode(dfId);
    showTab("inspector");
    document.querySelector("#inspector input, #inspector select, #inspector textarea")?.focus();
  }
});

// Nodes come and go (add, paste, undo): label whatever is on the canvas now.
new MutationObserver(labelNodes).observe(editor.precanvas, { childList: true });
graphListeners.push(() => queueMicrotask(labelNodes));
