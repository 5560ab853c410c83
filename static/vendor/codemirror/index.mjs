// The CodeMirror 6 parts Weir's builder uses, bundled into one ES module
// (static/vendor/codemirror/build.sh). Nothing here is Weir's own code.
export { EditorView, keymap, Decoration } from "@codemirror/view";
export { EditorState, StateEffect, StateField } from "@codemirror/state";
export { basicSetup } from "codemirror";
export { javascript } from "@codemirror/lang-javascript";
export { autocompletion } from "@codemirror/autocomplete";
export { indentWithTab } from "@codemirror/commands";
