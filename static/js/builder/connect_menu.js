// The inspector's Connections menu: the keyboard way to connect and disconnect.
// For each output of the selected node it lists where its edges go (each with a
// Disconnect button) and offers "Connect to" any other node that takes input.
import { handlesOf, kindOf } from "../graph_format.js";
import { editor, kinds, records } from "./context.js";
import { h } from "./dom.js";

function nameOf(dfId) {
  const record = records.get(String(dfId));
  return record ? record.name || record.id : String(dfId);
}

/** The Connections section for node `dfId`; `rerender` redraws the inspector. */
export function connectionsSection(dfId, rerender) {
  const record = records.get(dfId);
  const kind = kindOf(kinds, record.type);
  const entry = editor.drawflow.drawflow.Home.data[dfId];
  const section = h("fieldset", { class: "connections" }, h("legend", { class: "field-label", text: "Connections" }));
  const targets = [...records].filter(([other, target]) => other !== dfId && !kindOf(kinds, target.type).is_trigger);
  handlesOf(kind, record).forEach((handle, index) => {
    const output = `output_${index + 1}`;
    const connected = entry?.outputs[output]?.connections || [];
    const from = handle ? `${handle} output` : "Output";
    const list = h("ul", { class: "connection-list" }, connected.map((connection) =>
      h("li", {},
        h("span", { text: `${from} → ${nameOf(connection.node)}` }),
        h("button", {
          type: "button", class: "small", text: "Disconnect",
          "aria-label": `Disconnect ${from} from ${nameOf(connection.node)}`,
          onclick: () => {
            editor.removeSingleConnection(dfId, connection.node, output, "input_1");
            rerender();
          },
        }))));
    const free = targets.filter(([other]) => !connected.some((connection) => String(connection.node) === other));
    const selectId = `connect-${dfId}-${index}`;
    const select = h("select", { id: selectId },
      h("option", { value: "", text: free.length ? "Choose a node…" : "No other node takes input" }),
      free.map(([other]) => h("option", { value: other, text: nameOf(other) })));
    const button = h("button", {
      type: "button", class: "small", text: "Connect",
      onclick: () => {
        if (!select.value) return;
        editor.addConnection(dfId, select.value, output, "input_1");
        rerender();
      },
    });
    section.append(list, h("div", { class: "connect-row" },
      h("label", { for: selectId, text: `Connect ${handle ? `${handle} output` : "output"} to` }), select, button));
  });
  return section;
}
