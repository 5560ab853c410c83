// Times in the viewer's own zone: each `.local-time[data-time]` gets the ISO
// time it holds written out as the browser's locale and zone write it.
for (const element of document.querySelectorAll(".local-time[data-time]")) {
  const moment = new Date(element.dataset.time);
  if (Number.isNaN(moment.getTime())) continue;
  const text = moment.toLocaleString(undefined, {
    year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
  element.textContent = `(your time: ${text})`;
}
