// The flow builder page: the entry module the template loads. Each job lives in
// its own module under builder/; importing them wires their event handlers.
// read_only.js comes first: its key listeners must run before the editing ones.
// Everything the user typed reaches the DOM through textContent, or through
// graph_format.nodeHtml() (escaped) for Drawflow's innerHTML.
import "./builder/read_only.js";
import "./builder/canvas.js";
import { refreshEmptyHint, renderSaveState } from "./builder/context.js";
import "./builder/error_flow_panel.js";
import "./builder/history.js";
import "./builder/keyboard.js";
import { labelNodes } from "./builder/keyboard_access.js";
import "./builder/mcp_offer_panel.js";
import "./builder/node_view.js";
import { markPinnedNodes } from "./builder/pins_panel.js";
import { markUnreachable } from "./builder/reachability.js";
import "./builder/run_panel.js";
import "./builder/tabs.js";
import "./builder/template_assist.js";
import "./builder/versions.js";
import { startUndo } from "./builder/undo.js";
import { fitView, graphOverflowsView, renderMinimap } from "./builder/view.js";
import { renderSigning } from "./builder/webhook_panel.js";

renderSigning();
refreshEmptyHint();
if (graphOverflowsView()) fitView();
renderMinimap();
labelNodes();
markUnreachable();
markPinnedNodes();
renderSaveState();
startUndo();
document.body.dataset.builderReady = "true";
