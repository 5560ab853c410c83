// Weir chat widget: <script src="https://WEIR/c/widget.js" data-agent="SLUG"></script>
// Adds a button that opens a panel showing the agent's hosted chat in a frame.
// It first asks Weir whether this site may use the chat (CORS): a site that is
// not among the agent's allowed origins is refused, and the frame would be too
// (Content-Security-Policy frame-ancestors). No framework, no globals.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.dataset.agent) return;
  var slug = encodeURIComponent(script.dataset.agent);
  var weir = new URL(script.src).origin;
  var label = script.dataset.label || "Chat with us";
  var panel = null;
  var frame = null;

  var button = document.createElement("button");
  button.type = "button";
  button.className = "weir-chat-button";
  button.textContent = label;
  button.setAttribute("aria-expanded", "false");
  Object.assign(button.style, {
    position: "fixed", right: "20px", bottom: "20px", zIndex: "2147483000",
    padding: "10px 16px", border: "0", borderRadius: "20px", cursor: "pointer",
    background: "#2f6fed", color: "#fff", font: "15px system-ui, sans-serif",
    boxShadow: "0 2px 8px rgba(0,0,0,.25)"
  });

  function makePanel() {
    var box = document.createElement("div");
    box.className = "weir-chat-panel";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", label);
    Object.assign(box.style, {
      position: "fixed", right: "20px", bottom: "70px", zIndex: "2147483000",
      width: "min(380px, calc(100vw - 40px))", height: "min(560px, calc(100vh - 100px))",
      background: "#fff", border: "1px solid #d0d5dd", borderRadius: "10px",
      boxShadow: "0 4px 20px rgba(0,0,0,.25)", overflow: "hidden",
      font: "15px system-ui, sans-serif"
    });
    return box;
  }

  function refuse(box, message) {
    var note = document.createElement("p");
    note.className = "weir-chat-refused";
    note.setAttribute("role", "alert");
    note.style.margin = "16px";
    note.textContent = message;
    box.appendChild(note);
  }

  function open() {
    panel = makePanel();
    document.body.appendChild(panel);
    fetch(weir + "/c/" + slug + "/session", { method: "POST", mode: "cors", credentials: "omit" })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (session) {
        frame = document.createElement("iframe");
        frame.className = "weir-chat-frame";
        frame.title = session.agent.name;
        frame.src = weir + "/c/" + slug;
        Object.assign(frame.style, { width: "100%", height: "100%", border: "0" });
        panel.appendChild(frame);
      })
      .catch(function () {
        refuse(panel, "This chat is not available on this site.");
      });
  }

  function toggle() {
    var expanded = button.getAttribute("aria-expanded") === "true";
    if (!panel) open();
    else panel.hidden = expanded;
    button.setAttribute("aria-expanded", expanded ? "false" : "true");
  }

  function close() {
    if (panel && !panel.hidden) {
      toggle();
      button.focus();
    }
  }

  button.addEventListener("click", toggle);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") close();
  });
  // Escape inside the chat's frame: the frame asks us (and only it may).
  window.addEventListener("message", function (event) {
    if (event.origin === weir && frame && event.source === frame.contentWindow &&
        event.data && event.data.weirChat === "close") close();
  });
  function attach() { document.body.appendChild(button); }
  if (document.body) attach();
  else document.addEventListener("DOMContentLoaded", attach);
})();
