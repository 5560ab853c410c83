"""A form page's password: kept hashed on the flow, never in its nodes.

The author types it into the form node's `password`; every save takes it out
of the node and keeps only its hash in `Flow.form_password` (Django's password
hashers). So a flow's nodes, and everything made from them (its versions,
exports, git files, promotion diffs), never hold it; an import or a
promotion over an existing flow keeps that flow's password, and a flow that
asks for a password but has none set has no page until one is set
(docs/forms.md, "The password").
"""

from __future__ import annotations

from django.contrib.auth.hashers import check_password, make_password


def seal(flow) -> None:
    """Move a password typed into the form node to the flow's hash (in
    memory; the caller saves). An empty or absent one keeps the hash."""
    for node in flow.nodes or []:
        if not (isinstance(node, dict) and node.get("type") == "form"):
            continue
        data = node.get("data")
        if not isinstance(data, dict) or "password" not in data:
            continue
        typed = data.pop("password")
        if isinstance(typed, str) and typed:
            flow.form_password = make_password(typed)


def matches(flow, given: str) -> bool:
    """Whether `given` is the form's password (False when none is set)."""
    return bool(flow.form_password) and check_password(given, flow.form_password)


def missing(flow, form: dict) -> bool:
    """The form asks for a password, and none is set: it has no page."""
    return form.get("access") == "password" and not flow.form_password
