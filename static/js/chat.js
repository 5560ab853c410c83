// The chat page: renders a conversation and talks to POST /api/agents/:id/chat,
// reading its Server-Sent Events as they come: tokens are shown as plain text
// while they arrive, and replaced by the server's sanitised HTML on `done`.
// Message HTML comes from the server already sanitised (agents/markdown.py, nh3);
// everything else (tokens, tool names, arguments, results, errors) is set as text.
// Stop aborts the request; the server keeps the text so far as a cancelled reply.
// A tool call that asks first ends the turn with `approval_required`: the page
// shows Approve / Deny (chat_approval.js), and the decision streams the rest.

import { csrfToken } from "./api.js";
import { approvalCard } from "./chat_approval.js";

const data = JSON.parse(document.getElementById("chat-data").textContent);
const list = document.getElementById("chat-messages");
const typing = document.getElementById("chat-typing");
const form = document.getElementById("chat-form");
const input = document.getElementById("chat-input");
const send = document.getElementById("chat-send");
const stop = document.getElementById("chat-stop");

let conversationId = data.conversation_id;
let waiting = 0; // tool calls shown for a decision
const toolsById = {}; // shown tool calls, so a decided one fills in its result

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function scrollToEnd() {
  list.scrollTop = list.scrollHeight;
}

// Adds a message or tool call at the end; the empty-conversation hint goes away.
function show(node) {
  document.getElementById("chat-empty")?.remove();
  list.append(node);
  scrollToEnd();
}

function addBubble(role, { html, text }) {
  const bubble = element("div", `chat-message chat-${role}`);
  const body = element("div", "chat-body");
  if (html !== undefined) body.innerHTML = html;
  else body.textContent = text;
  bubble.append(body);
  show(bubble);
  return bubble;
}

function addError(message) {
  addBubble("error", { text: message });
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// One tool call, collapsed: name and status, then arguments, result and run link.
// The API gives runId only to the owner of the tool's flow (anyone else would get
// a 404 there), so other users see no link.
function addToolCall({ name, status, args, result, runId }) {
  const details = element("details", "chat-tool");
  details.append(element("summary", "", `Tool ${name} · ${status}`));
  if (args !== undefined) {
    details.append(element("div", "muted", "Arguments"));
    details.append(element("pre", "", JSON.stringify(args, null, 2)));
  }
  show(details);
  if (result !== undefined) finishToolCall(details, { name, status, result, runId });
  return details;
}

function finishToolCall(details, { name, status, result, runId }) {
  details.querySelector("summary").textContent = `Tool ${name} · ${status}`;
  details.append(element("div", "muted", "Result"));
  details.append(element("pre", "", JSON.stringify(result, null, 2)));
  if (runId) {
    const link = element("a", "chat-run-link", "Open the run");
    link.href = `/runs/${runId}/`;
    details.append(link);
  }
}

// A stored result names its run's status; one without (no run was made) was
// refused, or denied by the person chatting.
function toolStatus(result) {
  if (result && typeof result === "object") {
    if (result.error && result.error.code === "denied") return "denied";
    return result.status || "refused";
  }
  return "done"; // cut at 16,000 characters: no longer JSON
}

function renderHistory(messages) {
  const argumentsById = {};
  for (const message of messages) {
    if (message.role === "assistant" && message.tool_calls.length) {
      for (const call of message.tool_calls) argumentsById[call.id] = call.arguments;
    }
    if (message.role === "tool" && message.approval === "pending_approval") {
      const call = { id: message.tool_call_id, name: message.tool_name, arguments: argumentsById[message.tool_call_id] };
      toolsById[call.id] = addToolCall({ name: call.name, status: "waiting for approval", args: call.arguments });
      askApproval(call);
    } else if (message.role === "tool") {
      const result = parseJson(message.content);
      addToolCall({
        name: message.tool_name,
        status: toolStatus(result),
        args: argumentsById[message.tool_call_id],
        result,
        runId: message.run_id,
      });
    } else if (message.error && message.error.code === "cancelled") {
      if (message.content) addBubble(message.role, { html: message.html });
      addBubble("note", { text: "Stopped." });
    } else if (message.error) {
      addError(message.error.message);
    } else if (message.content) {
      addBubble(message.role, { html: message.html });
    }
  }
}

function rememberConversation(id, title) {
  if (conversationId === id) return;
  conversationId = id;
  const url = new URL(window.location);
  url.searchParams.set("c", id);
  window.history.replaceState(null, "", url);
  const empty = document.getElementById("chat-no-conversations");
  if (empty) empty.remove();
  const item = element("li", "current");
  const link = element("a", "", title);
  link.href = `?c=${id}`;
  item.append(link);
  document.getElementById("chat-conversations").prepend(item);
}

// Server-Sent Events from a fetch body: yields {event, data} per frame.
async function* readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue; // a ping
        const colon = line.indexOf(": ");
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 2);
      }
      if (fields.event) yield { event: fields.event, data: JSON.parse(fields.data) };
    }
  }
}

// One streamed turn on the page: the live bubble, and tool calls by id.
class LiveTurn {
  constructor() {
    this.bubble = null;
    this.tools = toolsById;
  }

  token(text) {
    typing.hidden = true;
    if (!this.bubble) this.bubble = addBubble("assistant", { text: "" });
    this.bubble.classList.add("streaming");
    this.bubble.firstChild.textContent += text;
    scrollToEnd();
  }

  toolCall(call) {
    this.close();
    this.tools[call.id] = addToolCall({ name: call.name, status: "running", args: call.arguments });
    typing.hidden = false;
  }

  toolResult(call) {
    const details = this.tools[call.id] || addToolCall({ name: call.name, status: call.status, args: call.arguments });
    const status = toolStatus(call.result) === "denied" ? "denied" : call.status;
    finishToolCall(details, { name: call.name, status, result: call.result, runId: call.run_id });
  }

  // The turn stopped for calls that ask first: each gets Approve / Deny.
  awaiting(answer) {
    this.close();
    for (const call of answer.pending) {
      const details = this.tools[call.id];
      if (details) details.querySelector("summary").textContent = `Tool ${call.name} · waiting for approval`;
      askApproval(call);
    }
  }

  done(answer) {
    if (!this.bubble) this.bubble = addBubble("assistant", { text: "" });
    this.bubble.firstChild.innerHTML = answer.message.html;
    this.close();
  }

  // The text so far stays as it is; the next text starts a new bubble.
  close() {
    if (this.bubble) this.bubble.classList.remove("streaming");
    this.bubble = null;
  }
}

let controller = null;

// Keyboard users land on the next decision to make, else back in the input.
function focusNext() {
  const approve = waiting && list.querySelector(".chat-approval button.primary");
  (approve || input).focus();
}

function askApproval(call) {
  waiting += 1;
  show(approvalCard(call, (body) => decide(call, body)));
}

// POSTs `body` and shows the turn's events as they come; throws what went wrong.
async function streamTurn(url, body, title) {
  const turn = new LiveTurn();
  controller = new AbortController();
  send.disabled = true;
  stop.hidden = false;
  typing.hidden = false;
  scrollToEnd();
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "text/event-stream", "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!response.ok) {
      const error = ((await response.json().catch(() => null)) || {}).error || {};
      throw Object.assign(new Error(error.message || `The server answered ${response.status}.`), { details: error.details });
    }
    for await (const { event, data: payload } of readEvents(response)) {
      if (event === "start") rememberConversation(payload.conversation_id, title);
      else if (event === "token") turn.token(payload.text);
      else if (event === "tool_call") turn.toolCall(payload);
      else if (event === "tool_result") turn.toolResult(payload);
      else if (event === "approval_required") turn.awaiting(payload);
      else if (event === "done") turn.done(payload);
      else if (event === "error") {
        turn.close();
        addError(payload.message);
      }
    }
  } finally {
    turn.close();
    controller = null;
    typing.hidden = true;
    stop.hidden = true;
    send.disabled = false;
  }
}

function reportFailure(error, title) {
  if (error.name === "AbortError") {
    addBubble("note", { text: "Stopped. The reply so far is kept in the conversation." });
    return;
  }
  // A failed reply still stores the user's message in its conversation.
  if (error.details && error.details.conversation_id) {
    rememberConversation(error.details.conversation_id, title);
  }
  addError(error instanceof TypeError ? "Weir could not be reached. Check your connection and try again." : error.message);
}

// Sends a decision on `call`; resolves to null once the resumed turn is shown,
// or to the message of a refusal (shown on the card, which stays).
async function decide(call, body) {
  const url = `/api/conversations/${conversationId}/tool-calls/${encodeURIComponent(call.id)}`;
  waiting -= 1;
  try {
    await streamTurn(url, body, "");
    return null;
  } catch (error) {
    if (error.name === "AbortError") {
      reportFailure(error, ""); // decided; the reply was stopped
      return null;
    }
    waiting += 1; // refused or unreachable: the call still waits
    return error instanceof TypeError ? "Weir could not be reached. Try again." : error.message;
  } finally {
    focusNext();
  }
}

async function submit(event) {
  event.preventDefault();
  const content = input.value;
  if (!content.trim()) return;
  if (waiting) {
    addError("Approve or deny the tool call above first.");
    return;
  }
  if (content.length > data.max_chars) {
    addError(`Messages are limited to ${data.max_chars} characters.`);
    return;
  }
  addBubble("user", { text: content });
  input.value = "";
  const body = { content };
  if (conversationId) body.conversation_id = conversationId;
  try {
    await streamTurn(`/api/agents/${data.agent.id}/chat`, body, content.slice(0, 80));
  } catch (error) {
    reportFailure(error, content.slice(0, 80));
  } finally {
    focusNext();
  }
}

stop.addEventListener("click", () => {
  if (controller) controller.abort();
});
form.addEventListener("submit", submit);
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});

renderHistory(data.messages);
focusNext();
