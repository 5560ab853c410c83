// The right panel's tabs: Inspector, Run, History (runs), Versions. Showing
// one emits "tab-shown"; History and Versions load themselves on it.
import { emit } from "./context.js";
import { $ } from "./dom.js";

export const TABS = ["inspector", "run", "history", "versions"];
export function showTab(name) {
  for (const tab of TABS) {
    $(`tab-${tab}`).setAttribute("aria-selected", String(tab === name));
    $(`pane-${tab}`).hidden = tab !== name;
  }
  emit("tab-shown", name);
}
for (const tab of TABS) $(`tab-${tab}`).addEventListener("click", () => showTab(tab));
