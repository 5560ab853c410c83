// The right panel's tabs: Inspector, Run, History (runs), Versions.
import { $ } from "./dom.js";
import { loadHistory } from "./history.js";
import { clearDiff, loadVersions } from "./versions.js";

export const TABS = ["inspector", "run", "history", "versions"];
export function showTab(name) {
  for (const tab of TABS) {
    $(`tab-${tab}`).setAttribute("aria-selected", String(tab === name));
    $(`pane-${tab}`).hidden = tab !== name;
  }
  if (name === "history") loadHistory();
  if (name === "versions") loadVersions();
  else clearDiff(); // the diff's colours belong to the Versions tab
}
for (const tab of TABS) $(`tab-${tab}`).addEventListener("click", () => showTab(tab));
