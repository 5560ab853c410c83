// What the inspector shows for a node kind, read from the kind's own description
// (flows.nodes: `fields` and `default_data` in the page's node-kinds JSON). This
// file knows no kind by name. A field's `path` is where the value lives in the node
// ("name" or "data.<key>"), and is also the `field` the API names in a validation
// error, so errors land next to the right input.

const WHOLE_DATA = [{ path: "data", label: "Data (JSON)", widget: "json-object" }];

/** The inspector's fields for `kind`; a kind that declares none is edited as JSON. */
export function fieldsFor(kind) {
  return kind.fields && kind.fields.length ? kind.fields : WHOLE_DATA;
}

/** A fresh copy of the `data` a new node of `kind` starts with. */
export function defaultData(kind) {
  return structuredClone(kind.default_data || {});
}
