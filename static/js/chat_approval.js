// A tool call waiting for the person chatting (docs/agents.md, "Tools that ask
// first"): its name, its arguments as editable JSON, Approve and Deny (with an
// optional reason). Everything from the model is set as text. `decide(body)`
// sends the decision and resolves once the resumed turn has been shown; a
// refusal (409, 404, 400) comes back as an error shown under the buttons.

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

let cards = 0;

export function approvalCard(call, decide) {
  const id = `approval-${++cards}`;
  const card = element("div", "chat-approval");
  card.setAttribute("role", "group");
  card.setAttribute("aria-labelledby", `${id}-title`);
  const title = element("p", "chat-approval-title", `${call.name} asks for your approval before it runs.`);
  title.id = `${id}-title`;
  const argsLabel = element("label", "", "Arguments (JSON, editable)");
  argsLabel.htmlFor = `${id}-args`;
  const args = element("textarea", "chat-approval-args");
  args.id = `${id}-args`;
  args.rows = Math.min(10, JSON.stringify(call.arguments, null, 2).split("\n").length + 1);
  args.value = JSON.stringify(call.arguments, null, 2);
  const reasonLabel = element("label", "", "Reason, if you deny (told to the model)");
  reasonLabel.htmlFor = `${id}-reason`;
  const reason = element("input", "chat-approval-reason");
  reason.id = `${id}-reason`;
  const error = element("p", "field-error");
  error.id = `${id}-error`;
  error.setAttribute("role", "alert");
  args.setAttribute("aria-describedby", error.id);
  const approve = element("button", "primary", "Approve");
  approve.type = "button";
  const deny = element("button", "danger", "Deny");
  deny.type = "button";
  const buttons = element("div", "chat-approval-buttons");
  buttons.append(approve, deny);
  card.append(title, argsLabel, args, reasonLabel, reason, buttons, error);

  async function send(body, verdict) {
    error.textContent = "";
    approve.disabled = deny.disabled = true;
    const failure = await decide(body);
    if (failure) {
      error.textContent = failure;
      approve.disabled = deny.disabled = false;
      return;
    }
    const outcome = element("p", "muted", `${call.name}: ${verdict}.`);
    outcome.id = title.id; // the group keeps a name
    card.replaceChildren(outcome);
  }

  approve.addEventListener("click", () => {
    let edited;
    try {
      edited = JSON.parse(args.value);
    } catch {
      edited = null;
    }
    if (!edited || typeof edited !== "object" || Array.isArray(edited)) {
      error.textContent = "The arguments must be a JSON object.";
      args.focus();
      return;
    }
    send({ decision: "approve", arguments: edited }, "approved");
  });
  deny.addEventListener("click", () => send({ decision: "deny", reason: reason.value }, "denied"));
  return card;
}
