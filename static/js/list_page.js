// What the list pages (credentials, API tokens, flows) share: an error line
// shown or hidden with its text, a table cell, and an API error as one line.

export function showError(element, message) {
  element.textContent = message;
  element.hidden = !message;
}

export function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

// The envelope's message, or each field's messages (`name: This field…`)
// when the error names fields (a 400 `validation_error`).
export function describe(error) {
  const fields = Object.entries(error.details || {}).filter(([, messages]) => Array.isArray(messages));
  if (!fields.length) return error.message;
  return fields.map(([field, messages]) => `${field}: ${messages.join(" ")}`).join(" ");
}
