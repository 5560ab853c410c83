// The webhook box: enabled toggle, URL and curl example, signing secret.
// Settings save at once (not with the graph).
import { api } from "../api.js";
import { flow } from "./context.js";
import { $, copyText, showText } from "./dom.js";
import { adoptVersionIfGraphUnchanged } from "./save.js";

export const webhookState = {
  enabled: flow.webhook_enabled,
  signed: flow.webhook_signed,
  scheme: flow.webhook_signature_scheme || "standard",
  secret: "",
};
const SCHEME_NAMES = { standard: "Standard Webhooks", github: "GitHub", stripe: "Stripe", slack: "Slack" };
// Stripe and Slack make the secret: it is pasted here. Weir makes the others'.
const GIVEN_BY_PROVIDER = ["stripe", "slack"];

/**
 * A ready-to-paste example. For a signed flow it computes the Standard Webhooks
 * signature with openssl (HMAC-SHA256 of "id.timestamp.body" keyed with the
 * base64-decoded secret), filling in the secret when it was just created here.
 */
export function renderCurl() {
  const url = flow.webhook_url;
  if (webhookState.signed && webhookState.scheme !== "standard") {
    $("webhook-curl").textContent =
      `# ${SCHEME_NAMES[webhookState.scheme]} signs each delivery with the secret.\n` +
      `# Set this URL as the webhook's endpoint there:\n${url}`;
    return;
  }
  const lines = webhookState.signed
    ? [
      `SECRET='${webhookState.secret || "whsec_…"}'  # your signing secret`,
      `BODY='{"name": "Ada"}'`,
      `ID="msg_$(date +%s%N)"; TS=$(date +%s)`,
      `KEY=$(printf %s "\${SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \\n')`,
      `SIG=$(printf %s "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -binary | base64)`,
      `curl -X POST '${url}' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -H "webhook-id: $ID" -H "webhook-timestamp: $TS" \\`,
      `  -H "webhook-signature: v1,$SIG" -d "$BODY"`,
    ]
    : [
      `curl -X POST '${url}' \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d '{"name": "Ada"}'`,
    ];
  $("webhook-curl").textContent = lines.join("\n");
}

export function renderSigning() {
  const signing = $("signing-state");
  signing.textContent = webhookState.signed
    ? (webhookState.scheme === "standard" ? "Signed" : `Signed (${SCHEME_NAMES[webhookState.scheme]})`)
    : "Unsigned";
  $("secret-scheme").value = webhookState.scheme;
  $("secret-given").hidden = !GIVEN_BY_PROVIDER.includes($("secret-scheme").value);
  signing.className = webhookState.signed ? "pill on" : "pill off";
  signing.title = webhookState.signed
    ? "Calls must carry a valid signature made with the secret."
    : "Anyone with the URL can call it. Add a secret to require signed calls.";
  $("secret-create").textContent = webhookState.signed ? "Rotate secret" : "Add secret";
  $("secret-remove").hidden = !webhookState.signed;
  $("webhook-section").classList.toggle("disabled", !webhookState.enabled);
  renderCurl();
}

$("webhook-enabled").addEventListener("change", async (event) => {
  const wanted = event.target.checked;
  showText($("webhook-error"), "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { webhook_enabled: wanted });
    webhookState.enabled = updated.webhook_enabled;
    await adoptVersionIfGraphUnchanged(updated);
  } catch (error) {
    event.target.checked = !wanted;
    showText($("webhook-error"), error.message);
  }
  renderSigning();
});

$("secret-create").addEventListener("click", async () => {
  showText($("webhook-error"), "");
  if (webhookState.signed && !window.confirm("Rotate the signing secret? Senders using the old one will be refused.")) return;
  let created = null;
  const scheme = $("secret-scheme").value;
  const given = $("secret-given").value.trim();
  const request = given ? { scheme, secret: given } : { scheme };
  try {
    created = await api("POST", `/api/flows/${flow.id}/webhook-secret`, request);
    webhookState.signed = true;
    webhookState.scheme = created.scheme;
    webhookState.secret = created.secret;
    $("secret-given").value = "";
    $("secret-value").value = created.secret;
    $("secret-once").hidden = false;
    await adoptVersionIfGraphUnchanged();
  } catch (error) {
    showText($("webhook-error"), error.message);
  }
  renderSigning();
  // Scrolled only now: renderSigning grows the curl example above the secret,
  // which would push a box scrolled into view earlier back out of it.
  if (created) {
    $("secret-once").scrollIntoView({ block: "nearest" });
    $("secret-value").select();
  }
});

$("secret-remove").addEventListener("click", async () => {
  showText($("webhook-error"), "");
  if (!window.confirm("Remove the signing secret? The webhook will accept unsigned calls.")) return;
  try {
    await api("DELETE", `/api/flows/${flow.id}/webhook-secret`);
    webhookState.signed = false;
    webhookState.scheme = "standard";
    webhookState.secret = "";
    $("secret-once").hidden = true;
    $("secret-value").value = "";
    await adoptVersionIfGraphUnchanged();
  } catch (error) {
    showText($("webhook-error"), error.message);
  }
  renderSigning();
});

$("secret-scheme").addEventListener("change", () => {
  $("secret-given").hidden = !GIVEN_BY_PROVIDER.includes($("secret-scheme").value);
});

document.querySelectorAll("[data-copy]").forEach((button) => {
  button.addEventListener("click", () => {
    const source = $(button.dataset.copy);
    copyText(source.value ?? source.textContent, button);
  });
});

// When the webhook answers: once the run completes, or at once (202, a worker runs it).
$("webhook-response-mode").addEventListener("change", async (event) => {
  const wanted = event.target.value;
  showText($("webhook-error"), "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { webhook_response_mode: wanted });
    event.target.value = updated.webhook_response_mode;
    await adoptVersionIfGraphUnchanged(updated);
  } catch (error) {
    event.target.value = wanted === "immediately" ? "completed" : "immediately";
    showText($("webhook-error"), error.message);
  }
});
