// Nodes no path of edges leads to from a trigger never run (the engine skips
// them, flows/graph/__init__.py reachable_from_triggers): the canvas greys them and
// says so on the node, updated after every graph change.
import { currentGraph, dfIdOfNode, graphListeners, kinds, nodeElement } from "./context.js";
import { h } from "./dom.js";

export const UNREACHABLE_TEXT = "Not connected to a trigger: skipped when the flow runs";

/** Ids of the trigger nodes and of every node reached from one. */
export function reachableIds(graph) {
  const outgoing = new Map();
  for (const edge of graph.edges) {
    if (!outgoing.has(edge.source)) outgoing.set(edge.source, []);
    outgoing.get(edge.source).push(edge.target);
  }
  const stack = graph.nodes.filter((node) => kinds[node.type]?.is_trigger).map((node) => node.id);
  const reached = new Set(stack);
  while (stack.length) {
    for (const target of outgoing.get(stack.pop()) || []) {
      if (!reached.has(target)) {
        reached.add(target);
        stack.push(target);
      }
    }
  }
  return reached;
}

export function markUnreachable() {
  const { graph } = currentGraph();
  const reached = reachableIds(graph);
  for (const node of graph.nodes) {
    const element = nodeElement(dfIdOfNode(node.id));
    if (!element) continue;
    const off = !reached.has(node.id);
    element.classList.toggle("unreachable", off);
    let warning = element.querySelector(".node-warning");
    if (off && !warning) {
      // Above the node, outside its box: placement counts on a fixed node size.
      warning = h("div", {
        class: "node-warning", role: "note", title: UNREACHABLE_TEXT, "aria-label": UNREACHABLE_TEXT,
        text: "⚠ Not connected to a trigger",
      });
      element.append(warning);
    } else if (!off && warning) {
      warning.remove();
    }
  }
}

graphListeners.push(() => markUnreachable());
