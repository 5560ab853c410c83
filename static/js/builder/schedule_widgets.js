// The schedule trigger's inputs: the cron expression with presets and a live
// preview (the next 5 fire times in the zone and a sentence, from
// POST /api/schedules/preview), and the time zone with the browser's list.
import { api } from "../api.js";
import { h } from "./dom.js";

const PRESETS = [
  ["", "Presets…"],
  ["*/5 * * * *", "Every 5 minutes"],
  ["0 * * * *", "Every hour"],
  ["0 9 * * *", "Every day at 09:00"],
  ["0 9 * * 1-5", "Every weekday at 09:00"],
  ["0 9 * * 1", "Every Monday at 09:00"],
];
const ZONES = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
let previewTimer = null;

function zoneInput(wrapper) {
  return wrapper?.closest("form")?.querySelector('[data-field="data.timezone"] input');
}

async function showPreview(box, cron, zone) {
  try {
    const preview = await api("POST", "/api/schedules/preview", { cron, timezone: zone || undefined });
    const when = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
    box.classList.remove("invalid");
    box.replaceChildren(
      h("p", { class: "schedule-sentence", text: preview.description }),
      h("ol", { class: "schedule-next", "aria-label": "Next fire times" },
        preview.next.map((iso) => h("li", {}, h("time", { datetime: iso, text: when(iso) })))),
    );
  } catch (error) {
    const messages = Object.values(error.details || {}).flat();
    box.classList.add("invalid");
    box.replaceChildren(h("p", { class: "field-error", role: "alert", text: messages.join(" ") || error.message }));
  }
}

/** Refresh the preview soon (typing is debounced). */
export function schedulePreview(box, cron, zone) {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(() => showPreview(box, cron, zone), 250);
}

export function cronWidget(value, onChange, wrapper) {
  const box = h("div", { class: "schedule-preview", "data-testid": "schedule-preview", "aria-live": "polite" });
  const input = h("input", { class: "mono", spellcheck: "false", oninput: () => changed() });
  const presets = h("select", { "aria-label": "Cron presets", onchange: () => {
    if (!presets.value) return;
    input.value = presets.value;
    presets.value = "";
    changed();
  } }, PRESETS.map(([cron, label]) => h("option", { value: cron, text: label })));
  input.value = value ?? "";
  const changed = () => {
    onChange(input.value);
    schedulePreview(box, input.value, zoneInput(wrapper)?.value);
  };
  // The zone field is built after this one: wire it once the form is complete.
  setTimeout(() => {
    zoneInput(wrapper)?.addEventListener("input", () => schedulePreview(box, input.value, zoneInput(wrapper).value));
    showPreview(box, input.value, zoneInput(wrapper)?.value);
  });
  return { element: h("div", { class: "cron-field" }, input, presets, box), input };
}

export function timezoneWidget(value, onChange) {
  const listId = "timezone-options";
  const input = h("input", { list: listId, spellcheck: "false", oninput: () => onChange(input.value) });
  input.value = value ?? "";
  const list = document.getElementById(listId) ||
    h("datalist", { id: listId }, ZONES.map((zone) => h("option", { value: zone })));
  return { element: h("div", {}, input, list.isConnected ? null : list), input };
}
