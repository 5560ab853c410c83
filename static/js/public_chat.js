// A published agent's hosted chat (/c/<slug>), also shown in the widget's frame.
// The visitor's signed token and conversation are kept in localStorage (when the
// browser allows it) and sent in the X-Visitor-Token header; replies stream as
// Server-Sent Events read from fetch's body.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("chat-data").textContent);
  const base = "/c/" + data.slug;
  const storeKey = "weir-chat:" + data.slug;
  const list = document.getElementById("chat-messages");
  const empty = document.getElementById("chat-empty");
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-input");
  const send = document.getElementById("chat-send");
  const typing = document.getElementById("chat-typing");
  const typingText = document.getElementById("chat-typing-text");
  const formError = document.getElementById("chat-form-error");
  const typingDefault = typingText.textContent;

  let state = load() || { token: data.token, conversation: null };

  function load() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(storeKey));
      return saved && saved.token ? saved : null;
    } catch (error) {
      return null;
    }
  }

  function save() {
    try {
      window.localStorage.setItem(storeKey, JSON.stringify(state));
    } catch (error) {
      // Storage blocked (a strict browser in a frame): this page's memory only.
    }
  }

  function restart() {
    state = { token: data.token, conversation: null };
    save();
  }

  function bubble(role, text) {
    empty.hidden = true;
    const item = document.createElement("div");
    item.className = "chat-message chat-" + role;
    const body = document.createElement("div");
    body.className = "chat-body";
    body.textContent = text;
    item.appendChild(body);
    list.appendChild(item);
    list.scrollTop = list.scrollHeight;
    return body;
  }

  function showHtml(body, message) {
    // The server renders the reply's Markdown and sanitises it (agents/markdown.py).
    body.innerHTML = message.html;
    body.parentElement.classList.remove("streaming");
  }

  function showError(message) {
    formError.textContent = message;
    formError.hidden = false;
  }

  function busy(on, text) {
    typing.hidden = !on;
    typingText.textContent = text || typingDefault;
    send.disabled = on;
  }

  async function errorOf(response) {
    try {
      const body = await response.json();
      return body.error || { code: "error", message: "The chat did not answer." };
    } catch (error) {
      return { code: "error", message: "The chat did not answer (" + response.status + ")." };
    }
  }

  function headers(extra) {
    return Object.assign({ "X-Visitor-Token": state.token }, extra || {});
  }

  async function resume() {
    if (!state.conversation) return;
    const response = await fetch(base + "/conversations/" + state.conversation, { headers: headers() });
    if (!response.ok) {
      restart();
      return;
    }
    const conversation = await response.json();
    conversation.messages.forEach(function (message) {
      const body = bubble(message.role, message.content);
      if (message.role === "assistant") showHtml(body, message);
    });
  }

  function handle(event, payload, reply) {
    if (event === "start") {
      state.conversation = payload.conversation_id;
      save();
    } else if (event === "token") {
      busy(true);
      reply.body = reply.body || bubble("assistant", "");
      reply.body.parentElement.classList.add("streaming");
      reply.body.textContent += payload.text;
      list.scrollTop = list.scrollHeight;
    } else if (event === "tool_call") {
      busy(true, "Using " + payload.name + "…");
    } else if (event === "done") {
      reply.body = reply.body || bubble("assistant", "");
      showHtml(reply.body, payload.message);
    } else if (event === "error") {
      bubble("error", payload.message);
    }
  }

  async function readEvents(response, reply) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        let payload = "";
        frame.split("\n").forEach(function (line) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) payload += line.slice(6);
        });
        if (payload) handle(event, JSON.parse(payload), reply);
      }
    }
  }

  async function submit(text) {
    formError.hidden = true;
    bubble("user", text);
    busy(true);
    try {
      const response = await fetch(base + "/chat", {
        method: "POST",
        headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
        body: JSON.stringify({ content: text, conversation_id: state.conversation }),
      });
      if (!response.ok) {
        const error = await errorOf(response);
        if (error.code === "invalid_visitor_session" || error.code === "not_found") restart();
        showError(error.message);
        return;
      }
      await readEvents(response, {});
    } catch (error) {
      showError("The connection was lost; try again.");
    } finally {
      busy(false);
      input.focus();
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const text = input.value;
    if (!text.trim() || send.disabled) return;
    input.value = "";
    submit(text);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  document.getElementById("chat-restart").addEventListener("click", function () {
    restart();
    list.querySelectorAll(".chat-message").forEach(function (item) { item.remove(); });
    empty.hidden = false;
    formError.hidden = true;
    input.focus();
  });
  // In the widget's frame, Escape asks the host page's widget to close the panel.
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && window.parent !== window) {
      window.parent.postMessage({ weirChat: "close" }, "*");
    }
  });
  resume().catch(restart);
})();
