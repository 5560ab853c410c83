// The one way page scripts talk to Weir's API: JSON in, JSON out, CSRF header,
// and every non-2xx answer turned into an ApiError carrying the envelope
// {error: {code, message, details}} of docs/api.md, section 2.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api(method, url, body, headers = {}) {
  const init = {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json", ...headers },
  };
  if (method !== "GET" && method !== "HEAD") {
    init.headers["X-CSRFToken"] = csrfToken();
  }
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (networkError) {
    throw new ApiError(0, "network_error", "Weir could not be reached. Check your connection and try again.");
  }
  let payload = null;
  const text = await response.text();
  if (text) {
    try {
      payload = JSON.parse(text);
    } catch (parseError) {
      payload = null;
    }
  }
  if (!response.ok) {
    const error = (payload && payload.error) || {};
    throw new ApiError(
      response.status,
      error.code || "http_" + response.status,
      error.message || `The server answered ${response.status}.`,
      error.details,
    );
  }
  return payload;
}
