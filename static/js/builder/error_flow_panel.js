// "On failure, run flow": the flow's error flow, saved as soon as it is chosen
// (like the webhook's Respond setting); a refusal shows under the select.
import { api } from "../api.js";
import { flow } from "./context.js";
import { $, showText } from "./dom.js";
import { adoptVersionIfGraphUnchanged } from "./save.js";

const select = $("error-flow");
let saved = select.value;

select.addEventListener("change", async () => {
  const wanted = select.value;
  showText($("error-flow-error"), "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { error_flow: wanted || null });
    saved = select.value = updated.error_flow ?? "";
    await adoptVersionIfGraphUnchanged(updated);
  } catch (error) {
    select.value = saved;
    showText($("error-flow-error"), error.details?.error_flow?.[0] || error.message);
  }
});
