// The inspector's input widgets, one per FormField `widget` (flows.nodes.FormField).
// Each returns {element, input}: what to insert and what the label points at.
import { api } from "../api.js";
import { h, prettyJson, showText } from "./dom.js";
import { codeMirrorEditor } from "./code_editor.js";
import { cronWidget, timezoneWidget } from "./schedule_widgets.js";
import { casesEditor, flowSelect } from "./flow_widgets.js";
import { formFieldsEditor, formSlugWidget } from "./form_widgets.js";

// `asPairs`: the value is a list of {name, value} where a name may repeat (an
// HTTP query), not an object.
export function keyValueEditor(value, onChange, { asPairs = false } = {}) {
  const rows = h("div", { class: "kv-rows" });
  const emit = () => {
    const result = asPairs ? [] : {};
    rows.querySelectorAll(".kv-row").forEach((row) => {
      const [keyInput, valueInput] = row.querySelectorAll("input");
      const key = keyInput.value.trim();
      if (!key) return;
      if (asPairs) result.push({ name: key, value: valueInput.value });
      else result[key] = valueInput.value;
    });
    onChange(result);
  };
  const addRow = (key = "", text = "") => {
    const keyInput = h("input", { class: "mono", placeholder: "key", "aria-label": "Key", oninput: emit });
    const valueInput = h("input", { class: "mono", placeholder: "value", "aria-label": "Value", oninput: emit });
    keyInput.value = key;
    valueInput.value = typeof text === "string" ? text : JSON.stringify(text);
    const remove = h("button", {
      type: "button", class: "small icon", "aria-label": "Remove row", text: "×",
      onclick: () => { row.remove(); emit(); },
    });
    const row = h("div", { class: "kv-row" }, keyInput, valueInput, remove);
    rows.append(row);
    return keyInput;
  };
  if (asPairs) for (const pair of Array.isArray(value) ? value : []) addRow(pair?.name ?? "", pair?.value ?? "");
  else for (const [key, text] of Object.entries(value || {})) addRow(key, text);
  const add = h("button", { type: "button", class: "small", text: "Add row", onclick: () => addRow().focus() });
  return { element: h("div", { class: "kv" }, rows, add), input: rows };
}

export let agentsCache = null;
export async function loadAgents() {
  if (!agentsCache) {
    agentsCache = api("GET", "/api/agents").then((list) => (Array.isArray(list) ? list : list.results || []));
  }
  return agentsCache;
}

let credentialsCache = null;
async function loadCredentials() {
  if (!credentialsCache) credentialsCache = api("GET", "/api/credentials");
  return credentialsCache;
}

export function fieldWidget(field, value, onChange, wrapper) {
  switch (field.widget) {
    case "code":
      return codeMirrorEditor(value, onChange, { nodeId: field.nodeId, label: field.label });
    case "textarea": {
      const input = h("textarea", { rows: "4", oninput: () => onChange(input.value) });
      input.value = value ?? "";
      return { element: input, input };
    }
    case "number": {
      const input = h("input", { type: "number", min: field.min, max: field.max, oninput: () => {
        const number = Number(input.value);
        onChange(input.value === "" ? null : Number.isFinite(number) ? number : input.value);
      } });
      input.value = value ?? "";
      return { element: input, input };
    }
    case "number-or-template": {
      // A number, or a {{ }} template that must render to one at run time.
      const input = h("input", { type: "text", inputmode: "numeric", class: "mono", oninput: () => {
        const text = input.value.trim();
        onChange(text === "" ? null : /^\d+$/.test(text) ? Number(text) : text);
      } });
      input.value = value ?? "";
      return { element: input, input };
    }
    case "select": {
      const options = [...field.options];
      if (value && !options.includes(value)) options.push(value);
      const input = h("select", { onchange: () => onChange(input.value) },
        options.map((option) => h("option", { value: option, text: option })));
      input.value = value ?? options[0];
      return { element: input, input };
    }
    case "keyvalue":
      return keyValueEditor(value, onChange);
    case "pairs":
      return keyValueEditor(value, onChange, { asPairs: true });
    case "cases":
      return casesEditor(value, onChange);
    case "form-fields":
      return formFieldsEditor(value, onChange);
    case "form-slug":
      return formSlugWidget(value, onChange);
    case "flow":
      return flowSelect(value, onChange);
    case "json":
    case "json-object": {
      const input = h("textarea", { class: "code-input mono", rows: "5", spellcheck: "false" });
      if (field.widget === "json") input.value = typeof value === "string" ? value : value == null ? "" : prettyJson(value);
      else input.value = prettyJson(value ?? {});
      input.addEventListener("input", () => {
        if (field.widget === "json" && !input.value.trim()) {
          onChange(null);
          return;
        }
        let parsed;
        try {
          parsed = JSON.parse(input.value);
        } catch (error) {
          if (field.widget === "json") onChange(input.value);
          else showText(wrapper.querySelector(".field-error"), "Not valid JSON yet.");
          return;
        }
        if (field.widget === "json-object" && (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))) {
          showText(wrapper.querySelector(".field-error"), "Must be a JSON object.");
          return;
        }
        onChange(parsed);
      });
      return { element: input, input };
    }
    case "agent": {
      const input = h("select", { onchange: () => onChange(input.value) },
        h("option", { value: "", text: "Choose an agent…" }));
      if (value) input.append(h("option", { value, text: value }));
      input.value = value ?? "";
      loadAgents().then((agents) => {
        input.replaceChildren(h("option", { value: "", text: agents.length ? "Choose an agent…" : "No agents yet (an admin adds them)" }));
        for (const agent of agents) input.append(h("option", { value: agent.id, text: `${agent.name} (${agent.model})` }));
        if (value && !agents.some((agent) => agent.id === value)) input.append(h("option", { value, text: `${value} (unknown)` }));
        input.value = value ?? "";
      }).catch(() => {});
      return { element: input, input };
    }
    case "credential": {
      // Only the id is stored in the flow; the value never reaches the builder.
      const input = h("select", { onchange: () => onChange(input.value || null) },
        h("option", { value: "", text: "No credential" }));
      if (value) input.append(h("option", { value, text: value }));
      input.value = value ?? "";
      loadCredentials().then((credentials) => {
        const usable = credentials.filter((c) => !field.kinds || field.kinds.includes(c.kind));
        input.replaceChildren(h("option", { value: "", text: usable.length ? "No credential" : "No credentials yet (add one on the Credentials page)" }));
        for (const c of usable) input.append(h("option", { value: c.id, text: `${c.name} (${c.kind})` }));
        if (value && !usable.some((c) => c.id === value)) input.append(h("option", { value, text: "Missing credential" }));
        input.value = value ?? "";
      }).catch(() => {});
      return { element: input, input };
    }
    case "cron":
      return cronWidget(value, onChange, wrapper);
    case "timezone":
      return timezoneWidget(value, onChange);
    case "choices": {
      // Several of `options`, as a list in their order: a checkbox each.
      const chosen = new Set(Array.isArray(value) ? value : []);
      const emit = () => onChange(field.options.filter((option) => chosen.has(option)));
      const boxes = field.options.map((option) => {
        const box = h("input", {
          type: "checkbox", value: option,
          onchange: () => { box.checked ? chosen.add(option) : chosen.delete(option); emit(); },
        });
        box.checked = chosen.has(option);
        return h("label", { class: "choice" }, box, document.createTextNode(" " + option));
      });
      const group = h("div", { class: "choices", role: "group" }, boxes);
      return { element: group, input: boxes.length ? boxes[0].querySelector("input") : group };
    }
    case "lines": {
      // A list of short texts, one per line.
      const input = h("textarea", {
        class: "mono", rows: 3,
        oninput: () => onChange(input.value.split("\n").map((line) => line.trim()).filter(Boolean)),
      });
      input.value = Array.isArray(value) ? value.join("\n") : "";
      return { element: input, input };
    }
    case "checkbox": {
      const input = h("input", { type: "checkbox", onchange: () => onChange(input.checked) });
      input.checked = value === true;
      return { element: input, input };
    }
    default: {
      const input = h("input", { class: field.mono ? "mono" : "", oninput: () => onChange(input.value) });
      input.value = value ?? "";
      return { element: input, input };
    }
  }
}
