// "Import cURL" in the HTTP request node's inspector: a pasted curl command
// fills method, URL, query, headers and body (docs/builder.md, "Import cURL").
import { markChanged, records } from "./context.js";
import { h, showText } from "./dom.js";
import { CurlError, parseCurl } from "./curl_parse.js";

let lastNotes = { dfId: null, notes: [] }; // shown again once the inspector is redrawn

export function curlImportSection(dfId, rerender) {
  const notes = lastNotes.dfId === dfId ? lastNotes.notes : [];
  lastNotes = { dfId: null, notes: [] };
  const textarea = h("textarea", {
    id: "curl-command", class: "mono", rows: "6", spellcheck: "false",
    placeholder: "curl https://api.example.com/items -H 'Accept: application/json'",
  });
  const error = h("p", { class: "field-error", role: "alert", hidden: true });
  const panel = h("div", { class: "curl-import-panel", hidden: true },
    h("label", { class: "field-label", for: "curl-command", text: "cURL command" }),
    textarea,
    error,
    h("button", { type: "button", class: "small", text: "Fill the node", onclick: () => fill() }),
  );
  const toggle = h("button", {
    type: "button", class: "small", text: "Import cURL", "aria-expanded": "false",
    onclick: () => {
      panel.hidden = !panel.hidden;
      toggle.setAttribute("aria-expanded", String(!panel.hidden));
      if (!panel.hidden) textarea.focus();
    },
  });
  const status = h("div", { class: "curl-import-notes hint", role: "status" },
    notes.length ? h("ul", {}, notes.map((note) => h("li", { text: note }))) : null);

  function fill() {
    let request;
    try {
      request = parseCurl(textarea.value);
    } catch (problem) {
      if (!(problem instanceof CurlError)) throw problem;
      showText(error, problem.message);
      textarea.setAttribute("aria-invalid", "true");
      return;
    }
    const record = records.get(dfId);
    record.data = {
      ...record.data,
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      body_type: request.bodyType,
      query: request.query,
    };
    lastNotes = { dfId, notes: request.notes };
    markChanged();
    rerender();
  }

  return h("div", { class: "field curl-import" }, toggle, panel, status);
}
