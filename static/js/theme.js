// The header's theme menu: choosing one changes the page at once and keeps
// the choice on the account (POST /account/theme/, which also answers the
// plain form when scripts are off). The Set button is for that form only.
const form = document.getElementById("theme-form");
const select = document.getElementById("theme-select");
document.getElementById("theme-submit").hidden = true;

select.addEventListener("change", async () => {
  const previous = document.documentElement.dataset.theme;
  document.documentElement.dataset.theme = select.value;
  document.dispatchEvent(new CustomEvent("theme-changed"));
  const response = await fetch(form.action, {
    method: "POST", body: new FormData(form), headers: { Accept: "application/json" }, credentials: "same-origin",
  }).catch(() => null);
  if (!response?.ok) {
    document.documentElement.dataset.theme = previous;
    select.value = previous;
    select.title = "The theme could not be saved; try again.";
  }
});
