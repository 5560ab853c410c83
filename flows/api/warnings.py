"""A flow's `warnings` in the API: saved, but probably a mistake."""

from __future__ import annotations

from flows.credentials.literals import save_warnings
from flows.forms.password import missing
from flows.nodes.form import form_settings, form_slug


def own_webhook_calls(flow) -> list[str]:
    """An http_request calling this flow's own webhook starts a loop that only
    `WEBHOOK_MAX_HOPS` (508) ends."""
    own_hook = f"/api/webhooks/{flow.pk}"
    return [
        f"Node {node.get('id')!r} calls this flow's own webhook: every run "
        "starts another, until the webhook refuses the chain (508)."
        for node in flow.nodes
        if isinstance(node, dict)
        and node.get("type") == "http_request"
        and isinstance(node.get("data"), dict)
        and own_hook in str(node["data"].get("url", ""))
    ]


def form_without_page(flow) -> list[str]:
    """A form whose address another flow held when it was saved has no page."""
    slug = form_slug(flow.nodes)
    if slug is None or flow.form_slug == slug:
        return []
    return [
        f"Another flow's form is at /f/{slug}, so this form has no page; "
        "choose another address."
    ]


def form_without_password(flow) -> list[str]:
    """A form asking for a password with none set (a new flow imported or
    promoted: exports never carry it) is closed until one is set."""
    form = form_settings(flow.nodes)
    if form is None or not missing(flow, form):
        return []
    return [
        "The form asks for a password but none is set, so its page is closed; "
        "type one into the form node."
    ]


def flow_warnings(flow, request) -> list[str]:
    """Every warning; the literal-secret check only on a save (it decrypts the
    workspace's credentials: one query)."""
    saving = request is not None and request.method in ("POST", "PATCH", "PUT")
    literal = save_warnings(flow.nodes, flow.workspace_id) if saving else []
    return (
        literal
        + own_webhook_calls(flow)
        + form_without_page(flow)
        + form_without_password(flow)
    )
