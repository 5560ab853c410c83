// The code node's editor: CodeMirror 6 (vendored, static/vendor/codemirror)
// with JavaScript highlighting, bracket matching and line numbers; Tab indents,
// Escape then Tab leaves the editor. It completes `input.`, `prev.` and
// `results.` paths from the last run shown, and marks the line the last run's
// error names for this node.
import {
  autocompletion, basicSetup, Decoration, EditorState, EditorView, indentWithTab, javascript, keymap,
} from "../../vendor/codemirror/codemirror.bundle.js";
import { currentGraph, dfIdOfNode, records, state } from "./context.js";

const ROOTS = ["input", "prev", "results"];

/** The sample values the last run gives this node's code. */
export function samples(nodeId) {
  const steps = state.lastSteps;
  const results = {};
  for (const step of steps) if (step.status === "succeeded") results[step.node_id] = step.output;
  const { graph } = currentGraph();
  const triggers = graph.nodes.filter((node) => ["webhook", "schedule", "form"].includes(node.type));
  const input = triggers.map((node) => results[node.id]).find((value) => value !== undefined) ?? {};
  const sources = graph.edges.filter((edge) => edge.target === nodeId).map((edge) => edge.source);
  const prev = sources.length === 1
    ? results[sources[0]]
    : Object.fromEntries(sources.map((source) => [source, results[source]]));
  return { input, prev, results };
}

function completeFromLastRun(nodeId) {
  return (context) => {
    const word = context.matchBefore(/[A-Za-z_$][\w$]*(?:\.[\w$]*)*/);
    if (!word || !word.text.includes(".")) return null;
    const parts = word.text.split(".");
    if (!ROOTS.includes(parts[0])) return null;
    let value = samples(nodeId)[parts[0]];
    for (const key of parts.slice(1, -1)) value = value?.[key];
    if (!value || typeof value !== "object") return null;
    const last = parts[parts.length - 1];
    return {
      from: word.to - last.length,
      // Under `results.` the keys are node ids: the node's name shows beside each.
      options: Object.keys(value).map((key) => ({
        label: key,
        type: "property",
        detail: (parts.length === 2 && parts[0] === "results" && records.get(dfIdOfNode(key))?.name)
          || (Array.isArray(value[key]) ? "array" : typeof value[key]),
      })),
      validFor: /^[\w$]*$/,
    };
  };
}

/** The line of this node's error in the last run: "(line 3, column 5)". */
function errorLine(nodeId) {
  const step = state.lastSteps.find((item) => item.node_id === nodeId && item.error);
  const match = step?.error?.message?.match(/line (\d+)/);
  return match ? Number(match[1]) : null;
}

const errorLineMark = Decoration.line({ class: "cm-error-line", attributes: { title: "The last run failed here" } });

function errorDecorations(nodeId) {
  return EditorView.decorations.of((view) => {
    const line = errorLine(nodeId);
    if (!line || line > view.state.doc.lines) return Decoration.none;
    return Decoration.set([errorLineMark.range(view.state.doc.line(line).from)]);
  });
}

/** {element, input}: the editor, and its editable element (for the label). */
export function codeMirrorEditor(value, onInput, { nodeId, label }) {
  const view = new EditorView({
    state: EditorState.create({
      doc: value ?? "",
      extensions: [
        basicSetup,
        javascript(),
        keymap.of([indentWithTab]),
        autocompletion({ override: [completeFromLastRun(nodeId)], activateOnTyping: true }),
        errorDecorations(nodeId),
        // A field dragged from the node view: code reads `input.city`, not `{{ input.city }}`.
        EditorView.domEventHandlers({
          drop(event, view) {
            const path = event.dataTransfer?.getData("application/x-weir-path");
            const at = path && view.posAtCoords({ x: event.clientX, y: event.clientY });
            if (at === null || at === undefined || !path) return false;
            event.preventDefault();
            view.dispatch({ changes: { from: at, insert: path }, selection: { anchor: at + path.length } });
            view.focus();
            return true;
          },
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onInput(update.state.doc.toString());
        }),
        // tabindex: the content is focusable anyway (contenteditable); saying so
        // lets checkers see the scrollable region has keyboard access.
        EditorView.contentAttributes.of({ "aria-label": label, "data-testid": "code-editor", tabindex: "0" }),
      ],
    }),
  });
  const element = document.createElement("div");
  element.className = "cm-code-editor";
  element.append(view.dom);
  return { element, input: view.contentDOM };
}
