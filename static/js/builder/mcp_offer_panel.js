// "Offer over MCP": whether /api/mcp lists and runs this flow as a tool, saved
// as soon as it is ticked (like the error flow); a refusal shows under it.
import { api } from "../api.js";
import { flow } from "./context.js";
import { $, showText } from "./dom.js";
import { adoptVersionIfGraphUnchanged } from "./save.js";

const box = $("mcp-offered");

box.addEventListener("change", async () => {
  const wanted = box.checked;
  showText($("mcp-offered-error"), "");
  try {
    const updated = await api("PATCH", `/api/flows/${flow.id}`, { mcp_offered: wanted });
    box.checked = updated.mcp_offered;
    await adoptVersionIfGraphUnchanged(updated);
  } catch (error) {
    box.checked = !wanted;
    showText($("mcp-offered-error"), error.details?.mcp_offered?.[0] || error.message);
  }
});
