// The app_action node's inspector: pick the app, search and pick one of its
// operations, then fill a form made from the operation's parameters and request
// body schema (GET /api/apps/:slug/operations): required marks, enums as
// selects, defaults, descriptions. Every input takes {{ }} templates.
import { api } from "../api.js";
import { h } from "./dom.js";

const operationsCache = new Map();
function operationsOf(slug) {
  if (!operationsCache.has(slug)) {
    operationsCache.set(slug, api("GET", `/api/apps/${encodeURIComponent(slug)}/operations`));
  }
  return operationsCache.get(slug);
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** What an input's text stands for, given its schema: numbers and booleans as
 * themselves, JSON for objects and arrays, text (a template) otherwise. */
function parsed(text, schema) {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (text === "") return undefined;
  if ((type === "integer" || type === "number") && NUMBER.test(text)) return Number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  if (type === "object" || type === "array") {
    try {
      return JSON.parse(text);
    } catch {
      return text; // a template giving the value
    }
  }
  return text;
}

function shown(value) {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** One input: label (with its required mark), the input, its description. */
function paramField(id, name, required, description, schema, value, set) {
  const hasDefault = schema.default !== undefined;
  let input;
  const options = schema.enum || (schema.type === "boolean" ? [true, false] : null);
  if (options) {
    const empty = hasDefault ? `(default: ${shown(schema.default)})` : "(not set)";
    input = h("select", { id },
      h("option", { value: "", text: empty }),
      ...options.map((option) => h("option", { value: shown(option), text: shown(option) })));
    input.value = shown(value);
  } else if (schema.type === "object" || schema.type === "array") {
    input = h("textarea", { id, class: "mono", rows: 3, placeholder: schema.type === "array" ? "[ ... ]" : "{ ... }" });
    input.value = shown(value);
  } else {
    input = h("input", { id, type: "text", placeholder: hasDefault ? `default: ${shown(schema.default)}` : "" });
    input.value = shown(value);
  }
  input.addEventListener(options ? "change" : "input", () => set(parsed(input.value, schema)));
  return h("div", { class: "field app-param", "data-param": name },
    h("label", { class: "field-label", for: id }, name,
      required ? h("abbr", { class: "required-mark", title: "required", text: " *" }) : null),
    input,
    description ? h("p", { class: "hint", text: description }) : null);
}

function paramsForm(operation, params, change) {
  const current = { ...params };
  const body = typeof current.body === "object" && current.body !== null ? { ...current.body } : {};
  const save = () => {
    const next = { ...current };
    if (Object.keys(body).length) next.body = { ...body };
    else delete next.body;
    change("data.params", next);
  };
  const fields = operation.parameters.map((parameter, index) =>
    paramField(`app-param-${index}`, parameter.name, parameter.required,
      parameter.description || `${parameter.in} parameter`, parameter.schema || {}, current[parameter.name],
      (value) => {
        if (value === undefined) delete current[parameter.name];
        else current[parameter.name] = value;
        save();
      }));
  const schema = operation.request_body_schema;
  if (schema?.properties) {
    fields.push(h("h3", { class: "app-body-title", text: "Request body" }));
    const required = schema.required || [];
    Object.entries(schema.properties).forEach(([name, property], index) => {
      fields.push(paramField(`app-body-${index}`, name, required.includes(name),
        property.description || "", property, body[name], (value) => {
          if (value === undefined) delete body[name];
          else body[name] = value;
          save();
        }));
    });
  }
  if (!fields.length) fields.push(h("p", { class: "muted small-text", text: "This operation takes no parameters." }));
  return fields;
}

/**
 * The section for an app_action node's `record`; `change(path, value)` writes
 * a field back, `rerender()` redraws the inspector (a new app or operation
 * changes the form).
 */
export function appActionSection(record, kind, change, rerender) {
  const apps = kind.apps || {};
  const app = apps[record.data.app];
  const appSelect = h("select", { id: "app-action-app" },
    h("option", { value: "", text: "Pick an app" }),
    ...Object.values(apps).map((each) => h("option", { value: each.slug, text: each.name })));
  appSelect.value = app ? app.slug : "";
  appSelect.addEventListener("change", () => {
    change("data.app", appSelect.value);
    change("data.operation", "");
    change("data.params", {});
    rerender();
  });
  const section = h("div", { class: "app-action-form" },
    h("div", { class: "field", "data-field": "data.app" },
      h("label", { class: "field-label", for: "app-action-app", text: "App" }), appSelect));
  if (!app) return section;

  const search = h("input", { type: "search", id: "app-action-search", placeholder: `Search ${app.name} operations`, "aria-label": "Search operations", autocomplete: "off" });
  const operationSelect = h("select", { id: "app-action-operation", size: Math.min(6, app.operations.length + 1) },
    h("option", { value: "", text: "Pick an operation" }),
    ...app.operations.map((operation) => h("option", {
      value: operation.id, text: operation.summary || operation.id, title: `${operation.method} ${operation.path}`,
    })));
  operationSelect.value = record.data.operation || "";
  search.addEventListener("input", () => {
    const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    for (const option of operationSelect.options) {
      if (!option.value) continue;
      const text = `${option.text} ${option.value} ${option.title}`.toLowerCase();
      option.hidden = !words.every((word) => text.includes(word));
    }
  });
  operationSelect.addEventListener("change", () => {
    change("data.operation", operationSelect.value);
    change("data.params", {});
    rerender();
  });
  const form = h("div", { class: "app-action-params", "data-field": "data.params" });
  section.append(
    h("div", { class: "field", "data-field": "data.operation" },
      h("label", { class: "field-label", for: "app-action-operation", text: "Operation" }), search, operationSelect),
    form,
  );
  if (record.data.operation) {
    form.append(h("p", { class: "muted small-text", text: "Loading the operation's form…" }));
    operationsOf(app.slug).then((operations) => {
      const operation = operations.find((each) => each.id === record.data.operation);
      form.replaceChildren(...(operation
        ? paramsForm(operation, record.data.params || {}, change)
        : [h("p", { class: "field-error", text: `${app.name} has no operation ${record.data.operation}.` })]));
    }).catch((error) => {
      form.replaceChildren(h("p", { class: "field-error", role: "alert", text: `The operations did not load: ${error.message}` }));
    });
  }
  return section;
}
