// The chat page: renders a conversation and talks to POST /api/agents/:id/chat.
// Message HTML comes from the server already sanitised (agents/markdown.py, nh3);
// everything else (tool names, arguments, results, errors) is set as text.

import { api } from "./api.js";

const data = JSON.parse(document.getElementById("chat-data").textContent);
const list = document.getElementById("chat-messages");
const typing = document.getElementById("chat-typing");
const form = document.getElementById("chat-form");
const input = document.getElementById("chat-input");
const send = document.getElementById("chat-send");

let conversationId = data.conversation_id;

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
  details.append(element("div", "muted", "Result"));
  details.append(element("pre", "", JSON.stringify(result, null, 2)));
  if (runId) {
    const link = element("a", "chat-run-link", "Open the run");
    link.href = `/runs/${runId}/`;
    details.append(link);
  }
  show(details);
}

// A stored result names its run's status; one without (no run was made) was refused.
function toolStatus(result) {
  if (result && typeof result === "object") return result.status || "refused";
  return "done"; // cut at 16,000 characters: no longer JSON
}

function renderHistory(messages) {
  const argumentsById = {};
  for (const message of messages) {
    if (message.role === "assistant" && message.tool_calls.length) {
      for (const call of message.tool_calls) argumentsById[call.id] = call.arguments;
    }
    if (message.role === "tool") {
      const result = parseJson(message.content);
      addToolCall({
        name: message.tool_name,
        status: toolStatus(result),
        args: argumentsById[message.tool_call_id],
        result,
        runId: message.run_id,
      });
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

async function submit(event) {
  event.preventDefault();
  const content = input.value;
  if (!content.trim()) return;
  if (content.length > data.max_chars) {
    addError(`Messages are limited to ${data.max_chars} characters.`);
    return;
  }
  addBubble("user", { text: content });
  input.value = "";
  send.disabled = true;
  typing.hidden = false;
  scrollToEnd();
  try {
    const body = { content };
    if (conversationId) body.conversation_id = conversationId;
    const answer = await api("POST", `/api/agents/${data.agent.id}/chat`, body);
    rememberConversation(answer.conversation_id, content.slice(0, 80));
    for (const call of answer.tool_calls) {
      addToolCall({
        name: call.name,
        status: call.status,
        args: call.arguments,
        result: call.result,
        runId: call.run_id,
      });
    }
    addBubble("assistant", { html: answer.message.html });
  } catch (error) {
    // A failed reply still stores the user's message in its conversation.
    if (error.details && error.details.conversation_id) {
      rememberConversation(error.details.conversation_id, content.slice(0, 80));
    }
    addError(error.message);
  } finally {
    typing.hidden = true;
    send.disabled = false;
    input.focus();
  }
}

form.addEventListener("submit", submit);
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});

renderHistory(data.messages);
input.focus();
