// The form node's inspector widgets: its fields as a list editor, and its
// address with the public URL it gives (like the webhook box's URL).
import { flow } from "./context.js";
import { copyText, h } from "./dom.js";

const KINDS = ["text", "long_text", "number", "email", "select", "multi_select", "checkbox", "date", "file"];
const WITH_OPTIONS = ["select", "multi_select"];

// A list of {name, label, kind, required, options}: one row each.
export function formFieldsEditor(value, onChange) {
  const rows = h("div", { class: "form-field-rows" });
  const emit = () => {
    const fields = [];
    rows.querySelectorAll(".form-field-row").forEach((row) => {
      const get = (part) => row.querySelector(`[data-part="${part}"]`);
      const name = get("name").value.trim();
      if (!name) return;
      const field = { name, label: get("label").value, kind: get("kind").value, required: get("required").checked };
      if (WITH_OPTIONS.includes(field.kind)) {
        field.options = get("options").value.split(",").map((option) => option.trim()).filter(Boolean);
      }
      fields.push(field);
    });
    onChange(fields);
  };
  const addRow = (field = {}) => {
    const name = h("input", { class: "mono", placeholder: "name", "aria-label": "Field name", "data-part": "name", oninput: emit });
    const label = h("input", { placeholder: "Label", "aria-label": "Field label", "data-part": "label", oninput: emit });
    const kind = h("select", { "aria-label": "Field kind", "data-part": "kind" },
      KINDS.map((option) => h("option", { value: option, text: option.replace("_", " ") })));
    const options = h("input", { placeholder: "options, comma-separated", "aria-label": "Field options", "data-part": "options", oninput: emit });
    const required = h("input", { type: "checkbox", "data-part": "required", onchange: emit });
    name.value = field.name ?? "";
    label.value = field.label ?? "";
    kind.value = field.kind ?? "text";
    options.value = (field.options ?? []).join(", ");
    required.checked = field.required === true;
    const showOptions = () => { options.hidden = !WITH_OPTIONS.includes(kind.value); };
    kind.addEventListener("change", () => { showOptions(); emit(); });
    showOptions();
    const remove = h("button", {
      type: "button", class: "small icon", "aria-label": "Remove field", text: "×",
      onclick: () => { row.remove(); emit(); },
    });
    const row = h("div", { class: "form-field-row" }, name, label, kind,
      h("label", { class: "choice" }, required, document.createTextNode(" required")), options, remove);
    rows.append(row);
    return name;
  };
  for (const field of Array.isArray(value) ? value : []) addRow(field);
  const add = h("button", { type: "button", class: "small", text: "Add field", onclick: () => addRow().focus() });
  return { element: h("div", { class: "form-fields" }, rows, add), input: rows };
}

// The page's address, and the URL visitors open.
export function formSlugWidget(value, onChange) {
  const origin = new URL(flow.webhook_url, location.href).origin;
  const link = h("a", { class: "mono form-url", target: "_blank", rel: "noopener" });
  const show = (slug) => {
    link.href = `${origin}/f/${slug}`;
    link.textContent = slug ? `${origin}/f/${slug}` : "Give an address to publish the form.";
  };
  const input = h("input", { class: "mono", oninput: () => { show(input.value.trim()); onChange(input.value.trim()); } });
  input.value = value ?? "";
  show(input.value);
  const copy = h("button", { type: "button", class: "small", text: "Copy URL", onclick: () => copyText(link.href, copy) });
  return { element: h("div", { class: "form-slug" }, input, h("p", { class: "muted" }, "Public URL: ", link, " ", copy)), input };
}
