// The right panel's tabs: Inspector, Run, History.
import { $ } from "./dom.js";
import { loadHistory } from "./history.js";

export const TABS = ["inspector", "run", "history"];
export function showTab(name) {
  for (const tab of TABS) {
    $(`tab-${tab}`).setAttribute("aria-selected", String(tab === name));
    $(`pane-${tab}`).hidden = tab !== name;
  }
  if (name === "history") loadHistory();
}
for (const tab of TABS) $(`tab-${tab}`).addEventListener("click", () => showTab(tab));
