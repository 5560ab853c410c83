// The agent page's "Publishing" settings: whether strangers may chat at
// /c/<slug>, the sites that may embed the widget (one origin a line), the
// visitors' rates and how long their conversations are kept.

export const PUBLISH_FIELDS = [
  "published",
  "public_slug",
  "allowed_origins",
  "visitor_rate",
  "public_rate",
  "visitor_retention_days",
];

const el = (id) => document.getElementById(id);

function showSnippet(slug, published) {
  const snippet = el("agent-embed");
  if (!snippet) return;
  const origin = window.location.origin;
  snippet.hidden = !(published && slug);
  el("agent-public-link").href = `${origin}/c/${slug}`;
  el("agent-public-link").textContent = `${origin}/c/${slug}`;
  el("agent-embed-code").value = `<script src="${origin}/c/widget.js" data-agent="${slug}"></script>`;
}

export function fillPublishing(form, agent) {
  if (!agent) return;
  form.elements.published.checked = agent.published;
  form.elements.public_slug.value = agent.public_slug || "";
  form.elements.allowed_origins.value = (agent.allowed_origins || []).join("\n");
  form.elements.visitor_rate.value = agent.visitor_rate;
  form.elements.public_rate.value = agent.public_rate;
  form.elements.visitor_retention_days.value = agent.visitor_retention_days;
  showSnippet(agent.public_slug, agent.published);
}

export function publishingValue(form) {
  return {
    published: form.elements.published.checked,
    public_slug: form.elements.public_slug.value.trim() || null,
    allowed_origins: form.elements.allowed_origins.value
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean),
    visitor_rate: form.elements.visitor_rate.value.trim(),
    public_rate: form.elements.public_rate.value.trim(),
    visitor_retention_days: Number(form.elements.visitor_retention_days.value),
  };
}
