// The palette's apps: one group per app (its icon and name), its actions by
// summary. Searching shows the actions whose app name, summary, method, path
// or operation id hold every word, each matching app's group opened.
import { $ } from "./dom.js";

const groups = [...$("palette-apps").querySelectorAll(".palette-app")];

/** The action buttons matching `query` (all of them, groups closed, when empty). */
export function appActionMatches(query) {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const found = [];
  for (const group of groups) {
    const appName = group.querySelector(".palette-app-name").textContent.toLowerCase();
    let shown = 0;
    for (const button of group.querySelectorAll("[data-app-action]")) {
      const text = `${appName} ${button.textContent} ${button.title} ${button.dataset.operation}`.toLowerCase();
      const match = words.every((word) => text.includes(word));
      button.parentElement.hidden = !match;
      if (match) {
        shown += 1;
        if (words.length) found.push(button);
      }
    }
    group.hidden = shown === 0;
    group.querySelector("details").open = words.length > 0 && shown > 0;
  }
  return found;
}
